"""A small JAX suite for recomp's pytest plugin: python/suites_test.go runs it with the wheel
installed and holds what each test must give under pytest --recomp (with and without -n 2)."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest


@jax.jit
def predict(w, x):
    return jnp.tanh(x @ w).sum(axis=-1)


@jax.jit
def init(x):
    return jnp.ones((x.shape[-1], 4), jnp.float32) * 0.1


@pytest.fixture(scope="module")
def weights():
    return init(np.ones((1, 16), np.float32))


def test_compile_once(weights):
    for _ in range(3):
        predict(weights, np.ones((8, 16), np.float32)).block_until_ready()


def test_growing_prefixes(weights):
    xs = np.ones((12, 16), np.float32)
    for n in range(2, 6):
        predict(weights, xs[:n]).block_until_ready()


@pytest.mark.parametrize("batch", [20, 24, 28])
def test_batch(weights, batch):
    predict(weights, np.ones((batch, 16), np.float32)).block_until_ready()


@pytest.mark.recomp(False)
def test_opted_out(weights):
    for n in (33, 35, 37):
        predict(weights, np.ones((n, 16), np.float32)).block_until_ready()


@pytest.mark.recomp(recompilations=2)
def test_allowed(weights):
    for n in (9, 10, 11):
        predict(weights, np.ones((n, 16), np.float32)).block_until_ready()


def test_own_compilations(weights, recomp_compilations):
    predict(weights, np.ones((13, 16), np.float32)).block_until_ready()
    assert len(recomp_compilations) == 1 and "predict" in recomp_compilations[0]["name"]


@pytest.mark.skip(reason="skipped on purpose")
def test_skipped():
    predict(jnp.ones((16, 4)), np.ones((1, 16), np.float32))


def test_fails_on_its_own(weights):
    predict(weights, np.ones((8, 16), np.float32))
    assert 1 + 1 == 3, "fails on its own"


@pytest.fixture
def predicts_at_teardown(weights):
    yield
    for n in (41, 43):  # a new shape each: compiled again as the test's own fixture tears down
        predict(weights, np.ones((n, 16), np.float32)).block_until_ready()


def test_recompiles_at_teardown(predicts_at_teardown):
    pass
