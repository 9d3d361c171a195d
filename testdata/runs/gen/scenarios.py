#!/usr/bin/env python3
"""Regenerate recomp's example runs: real JAX and TensorFlow programs that recompile for one
reason each, run with the frameworks' own compile logging on and XLA_FLAGS=--xla_dump_to.

    python3 testdata/runs/gen/scenarios.py --out testdata/runs            # all scenarios
    python3 testdata/runs/gen/scenarios.py --out /tmp/runs jax-dtype      # some of them

Each scenario NAME becomes OUT/NAME/run.log (stdout and stderr of the program) and
OUT/NAME/dump/ (the HLO modules XLA dumped before optimisation; the other dump files are
dropped to keep the folder small). jax-persistent-cache runs twice with one cache folder,
OUT/jax-persistent-cache/cache, and writes run1.log and run2.log. Needs jax/jaxlib (CPU) and tensorflow-cpu; see README.md.
"""
import argparse
import os
import shutil
import subprocess
import sys

# --- the programs: each runs in a fresh process -------------------------------------------

def _jax(log_config=False):
    if log_config:
        import logging
        logging.basicConfig()  # "WARNING:jax._src...:message" prefixes, as many apps have
    import jax
    jax.config.update("jax_platforms", "cpu")
    jax.config.update("jax_log_compiles", True)
    jax.config.update("jax_explain_cache_misses", True)
    return jax


def jax_partial_batch():
    """The last batch of an epoch is smaller (32 then 24): a new input shape."""
    import numpy as np
    jax = _jax()
    import jax.numpy as jnp

    @jax.jit
    def train_step(w, x, y):
        def loss(w):
            return jnp.mean((jnp.tanh(x @ w) - y) ** 2)
        return w - 0.1 * jax.grad(loss)(w)

    w = np.ones((8, 4), np.float32)
    for batch in (32, 32, 32, 24):  # 3 full batches, then the remainder
        w = train_step(w, np.ones((batch, 8), np.float32), np.zeros((batch, 4), np.float32))
    jax.block_until_ready(w)


def jax_closed_constant():
    """A Python float (the learning rate) is closed over and changes per epoch: it is baked
    into the graph as a constant, and the step function is built again."""
    import numpy as np
    jax = _jax()
    import jax.numpy as jnp

    def make_train_step(lr):
        @jax.jit
        def train_step(w, x):
            return w - lr * jax.grad(lambda w: jnp.sum(jnp.tanh(x @ w)))(w)
        return train_step

    w = np.ones((8, 4), np.float32)
    x = np.ones((32, 8), np.float32)
    for lr in (0.1, 0.05):  # one epoch each, decayed learning rate
        step = make_train_step(lr)
        for _ in range(2):
            w = step(w, x)
    jax.block_until_ready(w)


def jax_dtype():
    """The same step called with float32 and then bfloat16 inputs (mixed precision switched
    on part-way)."""
    import numpy as np
    jax = _jax(log_config=True)
    import jax.numpy as jnp

    @jax.jit
    def forward(w, x):
        return jnp.tanh(x @ w).sum()

    w = np.ones((8, 4), np.float32)
    x = np.ones((32, 8), np.float32)
    forward(w, x).block_until_ready()
    forward(w.astype(jnp.bfloat16), x.astype(jnp.bfloat16)).block_until_ready()


def jax_static_arg():
    """A static argument (the number of inner steps) changes: each value is its own graph."""
    import functools
    import numpy as np
    jax = _jax()
    import jax.numpy as jnp

    @functools.partial(jax.jit, static_argnames=("inner_steps",))
    def run(w, x, inner_steps):
        for _ in range(inner_steps):
            w = w - 0.01 * jnp.tanh(x @ w)
        return w

    w = np.ones((8, 8), np.float32)
    x = np.ones((8, 8), np.float32)
    for n in (2, 2, 3):
        w = run(w, x, inner_steps=n)
    jax.block_until_ready(w)


def jax_redefined():
    """jax.jit applied to a new lambda inside the loop: the graph is the same every time but
    JAX cannot know that the function is, so it traces and compiles again."""
    import numpy as np
    jax = _jax()

    x = np.ones((16, 16), np.float32)
    for _ in range(3):
        scale = jax.jit(lambda v: v * 2.0 + 1.0)
        x = scale(x)
    jax.block_until_ready(x)


def jax_persistent_cache():
    """The same program run twice with a persistent compilation cache: the first run misses
    and writes, the second hits."""
    import numpy as np
    jax = _jax()
    import jax.numpy as jnp
    jax.config.update("jax_compilation_cache_dir", os.environ["RECOMP_JAX_CACHE"])
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 0)
    jax.config.update("jax_persistent_cache_min_entry_size_bytes", 0)

    @jax.jit
    def train_step(w, x):
        return w - 0.1 * jax.grad(lambda w: jnp.sum(jnp.tanh(x @ w)))(w)

    w = np.ones((8, 4), np.float32)
    for _ in range(3):
        w = train_step(w, np.ones((32, 8), np.float32))
    jax.block_until_ready(w)


def _tf():
    import tensorflow as tf
    return tf


def tf_varying_shapes():
    """tf.function(jit_compile=True) fed batches of a different size each call: every call
    retraces, and every new signature is a new XLA compilation."""
    import numpy as np
    tf = _tf()

    @tf.function(jit_compile=True)
    def train_step(x):
        return tf.reduce_sum(tf.tanh(tf.matmul(x, tf.ones((8, 4)))))

    for batch in (32, 32, 28, 24, 20, 16, 12):
        train_step(tf.constant(np.ones((batch, 8), np.float32)))


def tf_python_scalar():
    """A Python float passed as an argument is part of the trace signature: every new value
    retraces and is baked into the compiled graph as a constant."""
    import numpy as np
    tf = _tf()

    @tf.function(jit_compile=True)
    def train_step(x, lr):
        return x - lr * tf.tanh(x)

    x = tf.constant(np.ones((32, 8), np.float32))
    for lr in (0.1, 0.1, 0.09, 0.081, 0.0729, 0.06561, 0.059049):
        x = train_step(x, lr)


def tf_fixed():
    """The fixed variant of the two above: an input_signature with the batch size fixed
    (partial batches padded), and the learning rate passed as a tensor. One compilation."""
    import numpy as np
    tf = _tf()

    @tf.function(jit_compile=True, reduce_retracing=True,
                 input_signature=[tf.TensorSpec([32, 8], tf.float32), tf.TensorSpec([], tf.float32)])
    def train_step(x, lr):
        return tf.reduce_sum(x - lr * tf.tanh(x))

    for batch, lr in ((32, 0.1), (32, 0.09), (24, 0.081)):
        x = np.ones((batch, 8), np.float32)
        x = np.pad(x, ((0, 32 - batch), (0, 0)))  # pad the partial batch
        train_step(tf.constant(x), tf.constant(lr, tf.float32))


SCENARIOS = {
    "jax-partial-batch": jax_partial_batch,
    "jax-closed-constant": jax_closed_constant,
    "jax-dtype": jax_dtype,
    "jax-static-arg": jax_static_arg,
    "jax-redefined": jax_redefined,
    "jax-persistent-cache": jax_persistent_cache,
    "tf-varying-shapes": tf_varying_shapes,
    "tf-python-scalar": tf_python_scalar,
    "tf-fixed": tf_fixed,
}

# --- the driver ---------------------------------------------------------------------------

def run_one(name, out_dir, dump, log_path, extra_env):
    env = dict(os.environ)
    env.update(extra_env)
    env["XLA_FLAGS"] = (env.get("XLA_FLAGS", "") + " --xla_dump_to=" + dump).strip()
    env["JAX_PLATFORMS"] = "cpu"
    env["CUDA_VISIBLE_DEVICES"] = ""
    env["TF_CPP_MIN_LOG_LEVEL"] = "0"
    env["TF_CPP_VMODULE"] = "device_compiler=2,device_compilation_profiler=2"
    with open(log_path, "wb") as log:
        proc = subprocess.run([sys.executable, os.path.abspath(__file__), "--run", name],
                              stdout=log, stderr=subprocess.STDOUT, env=env, cwd=out_dir)
    if proc.returncode != 0:
        sys.exit(f"{name}: the program failed (exit {proc.returncode}); see {log_path}")


def trim_dump(dump):
    """Keep the HLO text dumped before optimisation; drop the rest (objects, LLVM IR,
    buffer assignments, per-pass dumps)."""
    for entry in sorted(os.listdir(dump)):
        path = os.path.join(dump, entry)
        if os.path.isdir(path):
            shutil.rmtree(path)
        elif not entry.endswith(".before_optimizations.txt"):
            os.remove(path)


def generate(name, out):
    target = os.path.join(out, name)
    shutil.rmtree(target, ignore_errors=True)
    os.makedirs(target)
    dump = os.path.join(target, "dump")
    if name == "jax-persistent-cache":
        cache = os.path.join(target, "cache")  # kept: a real JAX cache folder for `recomp cache`
        for i in (1, 2):
            run_one(name, target, dump, os.path.join(target, f"run{i}.log"), {"RECOMP_JAX_CACHE": cache})
    else:
        run_one(name, target, dump, os.path.join(target, "run.log"), {})
    trim_dump(dump)
    print(f"{name}: {target}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", help="folder that receives one folder per scenario")
    ap.add_argument("--run", help=argparse.SUPPRESS)  # internal: run one program in this process
    ap.add_argument("names", nargs="*", help="scenarios to generate (default: all)")
    args = ap.parse_args()
    if args.run:
        SCENARIOS[args.run]()
        return
    if not args.out:
        ap.error("--out is required")
    for name in args.names or SCENARIOS:
        if name not in SCENARIOS:
            ap.error(f"unknown scenario {name!r}; known: {', '.join(SCENARIOS)}")
        generate(name, os.path.abspath(args.out))


if __name__ == "__main__":
    main()
