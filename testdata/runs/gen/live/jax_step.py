"""A JAX training step whose last batch is partial: run by recomp's live test of `recomp run`,
which switches the evidence on (this program sets no logging flag of its own)."""
import numpy as np
import jax
import jax.numpy as jnp


@jax.jit
def train_step(w, x, y):
    def loss(w):
        return jnp.mean((jnp.tanh(x @ w) - y) ** 2)
    return w - 0.1 * jax.grad(loss)(w)


w = np.ones((8, 4), np.float32)
for step, batch in enumerate((32, 32, 32, 24)):
    w = train_step(w, np.ones((batch, 8), np.float32), np.zeros((batch, 4), np.float32))
    print(f"step {step} batch {batch}", flush=True)
jax.block_until_ready(w)
