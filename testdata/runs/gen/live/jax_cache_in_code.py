"""A JAX program that compiles one step, with a persistent compilation cache folder set in code
when JAX_CACHE_IN_CODE names one (as jax.config.update is documented to be used, after import):
recomp's probe keeps JAX's cache-key log to a run with such a folder (cmd/recomp's
TestLiveJAXCacheKeyLines)."""
import os

import jax
import jax.numpy as jnp

if os.environ.get("JAX_CACHE_IN_CODE"):
    jax.config.update("jax_compilation_cache_dir", os.environ["JAX_CACHE_IN_CODE"])


@jax.jit
def step(x):
    return jnp.tanh(x).sum()


step(jnp.ones((8, 4))).block_until_ready()
