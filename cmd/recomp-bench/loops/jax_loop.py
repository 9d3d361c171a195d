"""A JAX training loop of N steps of one shape (argv[1]): recomp-bench -overhead runs it plain and
under `recomp run` to measure what recomp's evidence costs per step. A small MLP, so that the
framework's per-step work, and any per-step cost of the logging, weighs as much as it can."""
import sys

import jax
import jax.numpy as jnp
import numpy as np

steps = int(sys.argv[1])


@jax.jit
def train_step(w1, w2, x, y):
    def loss(w1, w2):
        return jnp.mean((jnp.tanh(x @ w1) @ w2 - y) ** 2)
    l, (g1, g2) = jax.value_and_grad(loss, argnums=(0, 1))(w1, w2)
    return w1 - 0.01 * g1, w2 - 0.01 * g2, l


rng = np.random.default_rng(0)
w1, w2 = jnp.asarray(rng.normal(size=(64, 128)), jnp.float32), jnp.asarray(rng.normal(size=(128, 8)), jnp.float32)
x, y = jnp.asarray(rng.normal(size=(32, 64)), jnp.float32), jnp.asarray(rng.normal(size=(32, 8)), jnp.float32)
for step in range(steps):
    w1, w2, l = train_step(w1, w2, x, y)
    if step % 500 == 0:
        print(f"step {step} loss {float(l):.4f}", flush=True)
jax.block_until_ready(w1)
print("done", flush=True)
