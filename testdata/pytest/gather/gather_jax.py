"""recomp.gather() on a JAX program that compiles again at each new length, then
raise_on_recompile: prints what python/suites_test.go checks. Run alone it makes its own run
folders (argv[1] and argv[2]); under recomp run it joins recomp run's."""
import sys

import recomp

with recomp.gather(out=sys.argv[1]) as ev:
    import jax
    import jax.numpy as jnp

    f = jax.jit(lambda x: x.sum())
    for n in (2, 3, 4):
        f(jnp.ones(n))
p = ev.recompiled[0]
print("recompiled:", p["program"], p["after_warmup"], "cause:", p["causes"][0]["label"])
print("folder:", ev.folder, "compilations:", len(ev.compilations))
try:
    with recomp.gather(out=sys.argv[2], raise_on_recompile=True):
        g = jax.jit(lambda x: x * 2)
        for n in (2, 3):
            g(jnp.ones(n))
except recomp.Recompiled as err:
    print("raised: version", err.report["version"], str(err).splitlines()[0][:70])
