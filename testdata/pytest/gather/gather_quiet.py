"""recomp.gather() around a JAX program's import and first compilations: run by
python/suites_test.go, which checks that the process's standard error holds none of the C++
info lines recomp's settings would make there (XLA's backend and dump set-up), which never reach
the run folder's run.log. argv[1] is the run folder."""
import sys

import recomp

with recomp.gather(out=sys.argv[1]) as ev:
    import jax
    import jax.numpy as jnp

    jax.jit(lambda x: x * 2)(jnp.ones(3)).block_until_ready()
print("compilations:", len(ev.compilations))
