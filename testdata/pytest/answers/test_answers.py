"""JAX tests for what recomp's pytest plugin says in a failure, and how the failure counts
(python/suites_test.go, TestPytestPluginAnswers): a test that fails recomp's check alone fails
the run, and a test's causes and fix are those of its compilations after its warm-up, not the
session's."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest


@jax.jit
def scale(x):
    return (x * 2.0).sum()


def _sizes(*sizes):
    for n in sizes:
        scale(np.ones((n,), np.float32)).block_until_ready()


def test_compiles_once():
    _sizes(2)


def test_cleared_cache():
    # Its first compilation is a new size for the session (its warm-up, no cause of its own);
    # the compilation after the caches are cleared is its recompilation: identical modules.
    scale(np.ones((12,), np.float32)).block_until_ready()
    jax.clear_caches()
    scale(np.ones((12,), np.float32)).block_until_ready()


def test_compiles_nothing():
    pass

