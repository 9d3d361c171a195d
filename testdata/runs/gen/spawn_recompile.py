import multiprocessing as mp

import numpy as np


def work(i):
    import jax
    import jax.numpy as jnp

    @jax.jit
    def step(x):
        return jnp.tanh(x * 2.0).sum()

    # Each worker compiles step for 8 rows, then for 8 + i + 1: a recompilation of its own.
    # XLA numbers both workers' modules from 0: each dumps into a folder of its own.
    for n in (8, 8, 9 + i):
        step(np.ones((n, 4), np.float32)).block_until_ready()
    return i


if __name__ == "__main__":
    mp.set_start_method("spawn")
    with mp.Pool(2) as p:
        print(p.map(work, range(2)))
