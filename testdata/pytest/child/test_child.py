"""A suite whose one test passes on its own while a process it starts compiles a JAX program
again in a loop: the probe's records of that process never reach the plugin in the tests'
process, so no test can be blamed, and pytest --recomp fails the session (exit status 1) with
recomp's cause (python/suites_test.go)."""
import subprocess
import sys

CHILD = """
import jax, jax.numpy as jnp, numpy as np

@jax.jit
def child_step(x):
    return jnp.tanh(x).sum()

for n in range(2, 6):
    child_step(np.ones((n, 4), np.float32)).block_until_ready()
"""


def test_starts_a_process():
    subprocess.run([sys.executable, "-c", CHILD], check=True)
