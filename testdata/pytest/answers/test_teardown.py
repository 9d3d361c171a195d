"""A module-scoped fixture whose clean-up compiles a program again: pytest runs it in the
teardown of the module's last test, which compiled nothing and must not be blamed
(python/suites_test.go, TestPytestPluginAnswers)."""
import jax
import numpy as np
import pytest


@jax.jit
def shift(x):
    return (x + 1.0).sum()


@pytest.fixture(scope="module")
def cleanup():
    shift(np.ones((4,), np.float32)).block_until_ready()
    yield
    for n in (5, 6, 7):  # the fixture's clean-up compiles again: its own row, no test's
        shift(np.ones((n,), np.float32)).block_until_ready()


def test_uses_cleanup(cleanup):
    pass


def test_last_of_the_module(cleanup):
    pass
