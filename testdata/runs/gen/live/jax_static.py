"""A JAX training step with a static argument (a dropout rate annealed every epoch): run by recomp's
live test of `recomp run`, whose probe records the static arguments of each trace, so that the
live line names the argument and its values (every batch is full: the first compilation after
warm-up is the rate's)."""
from functools import partial

import numpy as np
import jax
import jax.numpy as jnp


@partial(jax.jit, static_argnames=("dropout",))
def train_step(w, x, y, dropout):
    def loss(w):
        return jnp.mean((jnp.tanh(x @ w) * (1.0 - dropout) - y) ** 2)
    return w - 0.1 * jax.grad(loss)(w)


w = np.ones((8, 4), np.float32)
for epoch, dropout in enumerate((0.2, 0.1, 0.05)):
    for batch in (32, 32, 32):
        w = train_step(w, np.ones((batch, 8), np.float32), np.zeros((batch, 4), np.float32), dropout=dropout)
    print(f"epoch {epoch} dropout {dropout}", flush=True)
jax.block_until_ready(w)
