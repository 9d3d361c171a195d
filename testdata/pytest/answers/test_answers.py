"""JAX tests for what recomp's pytest plugin says in a failure, and how the failure counts
(python/suites_test.go, TestPytestPluginAnswers): a test that fails recomp's check alone fails
the run, a test's causes and fix are its own, not the session's, and the marker's arguments are
checked."""
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


@pytest.mark.recomp(enabled=False)
def test_marker_disabled():
    _sizes(9, 10, 11)


@pytest.mark.recomp(recompilation=2)  # a misspelt argument: an error, never the defaults
def test_marker_misspelt():
    _sizes(3, 4, 5)


@pytest.mark.recomp(recompilations="two")
def test_marker_bad_value():
    _sizes(6, 7, 8)


@pytest.mark.recomp(recompilations=np.int64(2), budget_s=np.float32(60))  # NumPy's numbers read as Python's
def test_marker_numpy_allowance():
    _sizes(13, 14, 15)


def test_lambda_in_loop():
    x = jnp.ones((4,))
    for lr in (0.1, 0.2, 0.3):
        step = jax.jit(lambda v: v * lr)  # a new function each time: compiled again
        step(x).block_until_ready()


@jax.jit
def peak(x):
    return x.max()


def test_gather_after_others():
    # The session's folder holds the recompilations of the tests above: not this block's.
    import recomp
    with recomp.gather(raise_on_recompile=True) as ev:
        peak(np.ones((7,), np.float32)).block_until_ready()
    assert ev.recompiled == [] and len(ev.compilations) == 1


@pytest.mark.recomp(False)
def test_gather_block_recompiles():
    import recomp
    with pytest.raises(recomp.Recompiled) as err:
        with recomp.gather(raise_on_recompile=True) as ev:
            _sizes(30, 31)
    assert [p["program"] for p in ev.recompiled] == ["jit_scale"], ev.recompiled
    assert "jit_peak" not in str(err.value) and "jit__lambda" not in str(err.value), str(err.value)
