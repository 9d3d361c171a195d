"""A JAX training loop that recompiles after warm-up and keeps running (a batch of 24 from step
3 on, for a minute): run by recomp's live tests of `recomp run --fail-on-recompile`, which must
say the recompilation before the program's next line and stop the program long before its end."""
import time

import numpy as np
import jax
import jax.numpy as jnp


@jax.jit
def train_step(w, x, y):
    def loss(w):
        return jnp.mean((jnp.tanh(x @ w) - y) ** 2)
    return w - 0.1 * jax.grad(loss)(w)


w = np.ones((8, 4), np.float32)
for step in range(1200):
    batch = 32 if step < 3 else 24
    w = train_step(w, np.ones((batch, 8), np.float32), np.zeros((batch, 4), np.float32))
    jax.block_until_ready(w)
    print(f"step {step} batch {batch}", flush=True)
    time.sleep(0.05)
