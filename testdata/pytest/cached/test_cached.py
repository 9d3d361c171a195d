"""The cost of recomp's pytest plugin on tests whose programs are all compiled already: 300
tests (RECOMP_CACHED_TESTS of them when it is set) that each run a jitted function 20 times on a
shape a module fixture compiled (its input on the device when RECOMP_CACHED_ON_DEVICE is set).
Measure with and without --recomp (docs/pytest.md, "What it costs")."""
import os

import jax
import jax.numpy as jnp
import numpy as np
import pytest


@jax.jit
def step(w, x):
    return jnp.tanh(x @ w).sum()


@pytest.fixture(scope="module")
def compiled():
    w, x = jnp.ones((64, 64)), np.ones((32, 64), np.float32)
    if os.environ.get("RECOMP_CACHED_ON_DEVICE"):
        # x on the device once: a numpy x is aliased or copied at each call as its address is
        # aligned or not, which moves the instructions of a run by some 55 million at random
        # (recomp-bench -pytest -pytest-count counts them).
        x = jnp.asarray(x)
    step(w, x).block_until_ready()
    return w, x


@pytest.mark.parametrize("i", range(int(os.environ.get("RECOMP_CACHED_TESTS", "300"))))
def test_cached(compiled, i):
    w, x = compiled
    for _ in range(20):
        step(w, x).block_until_ready()
