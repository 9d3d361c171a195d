#!/usr/bin/env python3
"""Make recomp's JAX example runs: real JAX programs, run on CPU with JAX's own compile logging
on and XLA dumping every module it compiles, each built to recompile (or not) for one known reason.

    py=$(testdata/runs/gen/venv.sh testdata/runs/gen/jax-0.12.txt)
    $py testdata/runs/gen/jax_runs.py --out testdata/runs/jax-0.12              # all scenarios
    $py testdata/runs/gen/jax_runs.py --out /tmp/runs partial-batch dtype       # some of them
    $py testdata/runs/gen/jax_runs.py --list                                    # names, and why skipped

One file serves every JAX version of the matrix (jax-0.12.txt, jax-0.4.txt): it reads the
installed versions, skips the scenarios the version cannot run (saying which and why) and handles
the API differences (shard_map's home, flax nnx). This file holds the scenarios (programs and
specs), the evidence hook (jax.monitoring listeners inside the program, judged against the dump)
and the set-up fixture (JAX_*/XLA_FLAGS environment); driver.py runs them and writes each
scenario's run.log, dump/ and truth.json (see README.md).

persistent-cache runs the program twice with one cache folder (OUT/persistent-cache/cache, kept)
and writes run1.log and run2.log. The prefix-* scenarios run the partial-batch program and rewrite
its output line by line the way the named launcher does (kubectl logs --timestamps, srun --label,
torchrun --tee 3 --role rank, mpirun --tag-output).
"""
import collections
import datetime
import json
import os
import re

import driver

# jax.monitoring events the programs count (the same names in JAX 0.4.38 and 0.12: jax/_src/dispatch.py
# BACKEND_COMPILE_EVENT and jax/_src/compiler.py's persistent-cache events).
BACKEND_COMPILE_EVENT = "/jax/core/compile/backend_compile_duration"
CACHE_HIT_EVENT = "/jax/compilation_cache/cache_hits"
CACHE_MISS_EVENT = "/jax/compilation_cache/cache_misses"  # recorded when an entry is written
CACHE_REQUEST_EVENT = "/jax/compilation_cache/compile_requests_use_cache"  # a request that looked in the cache
HOW = ("jax.monitoring listeners in the program: '%s' duration events (one per XLA compile request, "
       "persistent-cache hits included) minus '%s' events; cache_hits counts '%s' events"
       % (BACKEND_COMPILE_EVENT, CACHE_HIT_EVENT, CACHE_HIT_EVENT))

JAX_VERSION = driver.installed("jax") or "0"
JAX = driver.version_tuple(JAX_VERSION)


# --- inside the program: the evidence hook and setup ---------------------------------------------

def _install_evidence():
    """Count JAX's own compile and persistent-cache events into driver.EVIDENCE (the driver writes it
    to the side file named in RECOMP_EVIDENCE when the program ends)."""
    import jax.monitoring as monitoring
    ev = driver.EVIDENCE
    ev.update(backend_compile_events=0, cache_hits=0, cache_misses=0, cache_requests=0, by_module={}, compiles=[],
              calls=[], problems=[], truth={})
    hit = []  # a persistent-cache hit is reported inside the compile request it serves

    def on_duration(event, duration, **kwargs):
        if event == BACKEND_COMPILE_EVENT:
            ev["backend_compile_events"] += 1
            name = str(kwargs.get("fun_name", "?"))  # JAX 0.12 passes the module name; 0.4 nothing
            ev["by_module"][name] = ev["by_module"].get(name, 0) + 1
            ev["compiles"].append({"module": name, "seconds": duration, "hit": bool(hit)})
            hit.clear()

    def on_event(event, **kwargs):
        if event == CACHE_HIT_EVENT:
            ev["cache_hits"] += 1
            hit.append(1)
        elif event == CACHE_MISS_EVENT:
            ev["cache_misses"] += 1
        elif event == CACHE_REQUEST_EVENT:
            ev["cache_requests"] += 1

    monitoring.register_event_duration_secs_listener(on_duration)
    monitoring.register_event_listener(on_event)


def _jax(config=False):
    """Import JAX the way the scenario's user would have turned the logs on: by environment
    (JAX_LOG_COMPILES=1, JAX_EXPLAIN_CACHE_MISSES=1, set by the driver) or in code."""
    import jax
    _install_evidence()
    if config:
        jax.config.update("jax_log_compiles", True)
        jax.config.update("jax_explain_cache_misses", True)
    return jax


class _Calls:
    """The program's own record of its calls of one jitted function: before() marks JAX's compile
    events so far; after(site, key, ...) says whether the call compiled (a compile event since the
    mark) and records what the program knows of it: its line, what it fed, and for a compilation
    again, its causes, the key of the earlier call it differs least from, and what changed. A call
    with a new key is expected to compile, a known key not (a persistent-cache hit is no compile)."""

    def __init__(self, identity):
        self.identity, self.mark, self.keys = identity, 0, set()

    def before(self):
        self.mark = len(driver.EVIDENCE["compiles"])

    def after(self, site, key, input, causes=(), against=None, changed=None):
        ev = driver.EVIDENCE
        new = list(range(self.mark, len(ev["compiles"])))
        real = [i for i in new if not ev["compiles"][i]["hit"]]
        hit = any(ev["compiles"][i]["hit"] for i in new)
        expected = key not in self.keys
        self.keys.add(key)
        if bool(real or hit) != expected:
            ev["problems"].append(f"{self.identity} at {site} ({key}): compiled {bool(real or hit)}, expected {expected}")
        if real or hit:
            ev["calls"].append({"identity": self.identity, "event": (real or new)[-1], "hit": hit and not real,
                                "site": site, "key": key, "input": input, "causes": list(causes),
                                "against": against, "changed": changed})
        return bool(real)


def _data(rows, cols, seed=0, dtype="float32"):
    import numpy as np
    return np.random.default_rng(seed).standard_normal((rows, cols)).astype(dtype)


def _shard_map():
    import jax
    if hasattr(jax, "shard_map"):  # JAX >= 0.7
        return jax.shard_map, {"check_vma": False}
    from jax.experimental.shard_map import shard_map  # JAX 0.4
    return shard_map, {"check_rep": False}


# --- the programs ----------------------------------------------------------------------------

def p_partial_batch():
    """The training loop of partial-batch and of the logfmt-*/prefix-* variants."""
    import numpy as np
    jax = _jax()
    import jax.numpy as jnp

    @jax.jit
    def train_step(w, x, y):
        def loss_fn(w):
            return jnp.mean((jnp.tanh(x @ w) - y) ** 2)
        loss, grad = jax.value_and_grad(loss_fn)(w)
        return w - 0.1 * grad, loss

    w = np.full((8, 4), 0.1, np.float32)
    data, labels = _data(120, 8), _data(120, 4, seed=1)
    for step, start in enumerate(range(0, 120, 32)):  # 32, 32, 32, then the remainder: 24
        x, y = data[start:start + 32], labels[start:start + 32]
        w, loss = train_step(w, x, y)
        print(f"step {step} batch {x.shape[0]} loss {float(loss):.4f}")
    jax.block_until_ready(w)


def p_logfmt_asctime():
    import logging
    logging.basicConfig(format="%(asctime)s %(levelname)s %(name)s: %(message)s", level=logging.WARNING)
    p_partial_batch()


def p_logfmt_json():
    import logging

    class JSONFormatter(logging.Formatter):
        def format(self, record):
            return json.dumps({
                "ts": datetime.datetime.fromtimestamp(record.created, datetime.timezone.utc)
                .isoformat(timespec="milliseconds").replace("+00:00", "Z"),
                "level": record.levelname,
                "logger": record.name,
                "message": record.getMessage(),
            })

    handler = logging.StreamHandler()
    handler.setFormatter(JSONFormatter())
    logging.basicConfig(level=logging.WARNING, handlers=[handler])
    p_partial_batch()


def p_logfmt_rich():
    import logging
    from rich.logging import RichHandler
    logging.basicConfig(level=logging.WARNING, format="%(message)s", datefmt="[%X]", handlers=[RichHandler()])
    p_partial_batch()


def p_seq_length():
    import numpy as np
    jax = _jax()
    import jax.numpy as jnp

    @jax.jit
    def train_step(params, x, y):
        def loss_fn(p):
            h = jnp.tanh(x @ p["w"])            # [batch, seq, 16]
            pooled = jnp.mean(h, axis=1)         # mean over the sequence
            return jnp.mean((pooled @ p["v"] - y) ** 2)
        loss, grads = jax.value_and_grad(loss_fn)(params)
        return jax.tree_util.tree_map(lambda p, g: p - 0.05 * g, params, grads), loss

    rng = np.random.default_rng(0)
    params = {"w": np.full((8, 16), 0.05, np.float32), "v": np.full((16, 2), 0.05, np.float32)}
    for step, seq in enumerate((16, 16, 24)):  # a longer bucket of sequences arrives
        x = rng.standard_normal((4, seq, 8)).astype(np.float32)
        y = rng.standard_normal((4, 2)).astype(np.float32)
        params, loss = train_step(params, x, y)
        print(f"step {step} seq {seq} loss {float(loss):.4f}")
    jax.block_until_ready(params)


def p_closed_constant():
    import numpy as np
    jax = _jax(config=True)
    import jax.numpy as jnp

    def make_train_step(lr):
        @jax.jit
        def train_step(w, x):
            return w - lr * jax.grad(lambda w: jnp.sum(jnp.tanh(x @ w)))(w)
        return train_step

    w = np.full((8, 4), 0.1, np.float32)
    x = _data(32, 8)
    for epoch, lr in enumerate((0.1, 0.05)):  # the learning rate decays per epoch
        step = make_train_step(lr)
        for _ in range(2):
            w = step(w, x)
        print(f"epoch {epoch} lr {lr}")
    jax.block_until_ready(w)


def p_dtype():
    import numpy as np
    jax = _jax(config=True)
    import jax.numpy as jnp

    @jax.jit
    def predict(w, x):
        return jnp.tanh(x @ w).sum()

    w = np.full((8, 4), 0.1, np.float32)
    x = _data(32, 8)
    print("f32", float(predict(w, x)))
    # mixed precision switched on part-way (ml_dtypes' bfloat16 numpy arrays: no eager JAX op)
    print("bf16", float(predict(w.astype(jnp.bfloat16), x.astype(jnp.bfloat16))))


def p_static_arg():
    import functools
    import numpy as np
    jax = _jax()
    import jax.numpy as jnp

    @functools.partial(jax.jit, static_argnames=("inner_steps",))
    def run(w, x, inner_steps):
        for _ in range(inner_steps):
            w = w - 0.01 * jnp.tanh(x @ w)
        return w

    w = np.full((8, 8), 0.1, np.float32)
    x = _data(8, 8)
    for n in (2, 2, 3):
        w = run(w, x, inner_steps=n)
        print(f"ran {n} inner steps")
    jax.block_until_ready(w)


def p_redefined():
    import numpy as np
    jax = _jax()

    x = np.ones((16, 16), np.float32)
    for _ in range(3):
        scale = jax.jit(lambda v: v * 2.0 + 1.0)
        x = scale(x)
    jax.block_until_ready(x)
    print("done")


def p_donation():
    import numpy as np
    jax = _jax()
    import jax.numpy as jnp

    def update(w, g):
        return w - 0.1 * jnp.tanh(g)

    w = np.full((16, 16), 0.1, np.float32)
    g = _data(16, 16)
    plain = jax.jit(update)
    w = plain(w, g)                    # first version of the loop: no donation
    donating = jax.jit(update, donate_argnums=0)
    for _ in range(2):                 # then the parameters' buffer is donated to the update
        w = donating(w, g)
    print("sum", float(w.sum()))


def p_sharding():
    import numpy as np
    jax = _jax()
    import jax.numpy as jnp
    from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

    devices = np.array(jax.devices())
    print("devices", len(devices))

    @jax.jit
    def train_step(w, x, y):
        def loss_fn(w):
            return jnp.mean((jnp.tanh(x @ w) - y) ** 2)
        loss, grad = jax.value_and_grad(loss_fn)(w)
        return w - 0.1 * grad, loss

    w0, x0, y0 = np.full((8, 16), 0.1, np.float32), _data(32, 8), _data(32, 16, seed=1)
    for shape in ((2, 4), (4, 2)):     # the same devices, re-meshed: 2 data x 4 model, then 4 x 2
        mesh = Mesh(devices.reshape(shape), ("data", "model"))
        w = jax.device_put(w0, NamedSharding(mesh, P(None, "model")))
        x = jax.device_put(x0, NamedSharding(mesh, P("data", None)))
        y = jax.device_put(y0, NamedSharding(mesh, P("data", "model")))
        for step in range(2):
            w, loss = train_step(w, x, y)
            print(f"mesh {shape} step {step} loss {float(loss):.4f}")


def p_shard_map():
    import numpy as np
    jax = _jax()
    import jax.numpy as jnp
    from jax import lax
    from jax.sharding import Mesh, PartitionSpec as P
    shard_map, extra = _shard_map()

    n = len(jax.devices())
    mesh = Mesh(np.array(jax.devices()), ("x",))

    def body(w, x):                                      # x: this device's rows
        h = jnp.tanh(x @ w)
        total = lax.psum(jnp.sum(h, axis=0), "x")                          # all-reduce
        row_means = lax.all_gather(jnp.mean(h, axis=1), "x", tiled=True)   # all-gather
        shifted = lax.ppermute(h, "x", perm=[(i, (i + 1) % n) for i in range(n)])  # collective-permute
        scattered = lax.psum_scatter(h, "x", scatter_dimension=1, tiled=True)       # reduce-scatter
        biggest = lax.pmax(jnp.max(h), "x")
        out = h + shifted + total / biggest
        return out, row_means, scattered

    @jax.jit
    def sharded_step(w, x):
        return shard_map(body, mesh=mesh, in_specs=(P(), P("x", None)),
                         out_specs=(P("x", None), P(), P("x", None)), **extra)(w, x)

    w = np.full((8, 16), 0.1, np.float32)
    for batch in (64, 64, 32):   # the global batch shrinks: 8 then 4 rows per device
        out, means, sc = sharded_step(w, _data(batch, 8))
        print(f"global batch {batch} out {out.shape} means {means.shape} scattered {sc.shape}")


def p_constructs():
    import functools
    import numpy as np
    jax = _jax()
    import jax.numpy as jnp
    from jax import lax
    try:
        import optax
    except ImportError:
        optax = None

    @jax.jit
    def scan_rnn(w, xs):                      # xs: [batch, time, d]; scan over time
        def cell(h, x_t):
            h = jnp.tanh(h @ w + x_t)
            return h, jnp.sum(h, axis=-1)
        h0 = jnp.zeros((xs.shape[0], w.shape[0]), xs.dtype)
        h, ys = lax.scan(cell, h0, jnp.swapaxes(xs, 0, 1))
        return h, ys

    @jax.jit
    def while_count(x):                       # x: [batch, 8]
        def cond(c):
            i, v = c
            return jnp.logical_and(i < 20, jnp.max(jnp.abs(v)) > 1e-3)
        def body(c):
            i, v = c
            return i + 1, v * 0.5
        return lax.while_loop(cond, body, (jnp.int32(0), x))

    @jax.jit
    def fori_poly(w, x):                      # x: [16, d], w: [d, d]
        return lax.fori_loop(0, 5, lambda i, v: jnp.tanh(v @ w) + i.astype(v.dtype), x)

    @jax.jit
    def branchy(x, k):                        # x: [batch, 8]
        y = lax.cond(jnp.sum(x) > 0, lambda v: v * 2.0, lambda v: -v, x)
        return lax.switch(k, [jnp.sin, jnp.cos, lambda v: v ** 2], y)

    @jax.jit
    def remat_mlp(w1, w2, x):                 # x: [batch, 8]
        def loss_fn(w1, w2):
            block = jax.checkpoint(lambda h: jax.nn.gelu(h @ w1) @ w2)   # recomputed in the backward pass
            logits = block(x)
            return jnp.mean(jax.nn.logsumexp(logits, axis=-1) - jnp.sum(jax.nn.softmax(logits) * logits, axis=-1))
        return jax.value_and_grad(loss_fn, argnums=(0, 1))(w1, w2)

    @jax.jit
    def linalg_ops(a):                        # a: [n, n]; LAPACK custom calls on CPU, and an FFT
        sym = a @ a.T + jnp.eye(a.shape[0], dtype=a.dtype)
        evals, evecs = jnp.linalg.eigh(sym)
        q, r = jnp.linalg.qr(a)
        s = jnp.linalg.svd(a, compute_uv=False)
        chol = jnp.linalg.cholesky(sym)
        spec = jnp.fft.rfft(a, axis=-1)
        return evals, evecs @ q, jnp.diag(r), s, chol, jnp.abs(spec)

    def host_norm(x):
        return np.linalg.norm(np.asarray(x), axis=-1).astype(np.float32)

    def host_log(x):
        return np.asarray(np.sum(x), np.float32)

    @jax.jit
    def host_callback(x):                     # x: [batch, 4]
        norms = jax.pure_callback(host_norm, jax.ShapeDtypeStruct(x.shape[:1], x.dtype), x)
        logged = _io_callback()(host_log, jax.ShapeDtypeStruct((), jnp.float32), x, ordered=True)
        return x / norms[:, None], logged

    @jax.jit
    def random_ops(key, rbg_key, x):          # x: [batch, 8]
        k1, k2 = jax.random.split(key)
        noise = jax.random.normal(k1, x.shape, x.dtype)
        drop = jax.random.bernoulli(k2, 0.9, x.shape)
        rbg_noise = jax.random.uniform(rbg_key, x.shape, x.dtype)
        perm = jax.random.permutation(k2, x.shape[0])
        return jnp.where(drop, x + noise, 0.0)[perm] + rbg_noise

    @jax.jit
    def cnn_ops(kernel, x, idx):              # x: [batch, 8, 8, 1] NHWC
        y = lax.conv_general_dilated(x, kernel, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))
        pooled = lax.reduce_window(y, -jnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")
        flat = pooled.reshape(pooled.shape[0], -1)
        best = jnp.argmax(flat, axis=-1)                          # variadic reduce
        top, top_idx = lax.top_k(flat, 3)
        ranked = jnp.sort(flat, axis=-1)
        picked = flat[jnp.arange(flat.shape[0]), idx % flat.shape[1]]   # gather
        hist = jnp.zeros((flat.shape[1],), flat.dtype).at[idx % flat.shape[1]].add(1.0)  # scatter
        gram = jnp.einsum("bi,bj->bij", flat, flat).sum(0)        # batched dot
        cum = jnp.cumsum(flat, axis=-1)
        win = lax.dynamic_slice_in_dim(cum, 1, 4, axis=1)
        upd = lax.dynamic_update_slice_in_dim(ranked, win, 0, axis=1)
        return best, top, top_idx, picked, hist, gram, upd, flat.astype(jnp.bfloat16).astype(jnp.float16)

    @functools.partial(jax.jit, donate_argnums=0)
    def donated_update(w, g):                 # w, g: [d, d]
        return w - 0.1 * jnp.tanh(g), jnp.sum(g)

    adam_step = None
    if optax is not None:
        opt = optax.adam(1e-2)

        @jax.jit
        def adam_step(params, opt_state, x, y):   # x: [batch, 8]
            def loss_fn(p):
                return jnp.mean((jnp.tanh(x @ p["w"]) + p["b"] - y) ** 2)
            loss, grads = jax.value_and_grad(loss_fn)(params)
            updates, opt_state = opt.update(grads, opt_state, params)
            return optax.apply_updates(params, updates), opt_state, loss

    key = jax.random.key(0)
    rbg_key = jax.random.key(1, impl="rbg")
    for i, (b, t, d, n) in enumerate(((8, 6, 8, 6), (12, 10, 12, 10))):
        print(f"round {i}: batch {b}, time {t}, width {d}, matrix {n}")
        w8 = np.full((8, 8), 0.1, np.float32)
        scan_rnn(w8, _data(4 * t, 8).reshape(4, t, 8))                          # input_shape (time)
        while_count(_data(b, 8))                                                  # batch_size
        fori_poly(np.full((d, d), 0.05, np.float32), _data(16, d))                # input_shape (width)
        branchy(_data(b, 8), np.int32(1))                                         # batch_size
        remat_mlp(w8, np.full((8, 4), 0.1, np.float32), _data(b * 4, 8))          # batch_size
        linalg_ops(_data(n, n))                                                   # input_shape
        host_callback(_data(b, 4))                                                # batch_size
        random_ops(key, rbg_key, _data(b, 8))                                     # batch_size
        cnn_ops(np.full((3, 3, 1, 2), 0.1, np.float32), _data(b * 64, 1).reshape(b, 8, 8, 1),
                np.arange(b, dtype=np.int32))                                     # batch_size
        donated_update(np.full((d, d), 0.1, np.float32), _data(d, d))            # input_shape (width)
        if adam_step is not None:
            params = {"w": np.full((8, 4), 0.1, np.float32), "b": np.zeros((4,), np.float32)}
            if i == 0:
                opt_state = opt.init(params)  # eager: optax builds zeros with one-op programs
            params, opt_state, loss = adam_step(params, opt_state, _data(b * 4, 8), _data(b * 4, 4, seed=1))  # batch_size
            print(f"adam loss {float(loss):.4f}")
    print("done")


def _io_callback():
    from jax.experimental import io_callback
    return io_callback


def p_eager_init():
    import numpy as np
    jax = _jax()
    import jax.numpy as jnp

    # model initialisation the eager way: every jnp/jax.random call below runs as its own tiny
    # XLA program, compiled once per new shape/dtype signature
    key = jax.random.PRNGKey(0)
    k1, k2, k3 = jax.random.split(key, 3)
    params = {
        "w1": jax.random.normal(k1, (8, 32)) * 0.1,
        "b1": jnp.zeros((32,)),
        "w2": jax.random.normal(k2, (32, 16)) * 0.1,
        "b2": jnp.zeros((16,)),
        "w3": jax.random.normal(k3, (16, 4)) * 0.1,
        "b3": jnp.ones((4,)),
    }
    params["scale"] = jnp.ones((8,)).astype(jnp.bfloat16).astype(jnp.float32)
    params["emb"] = jnp.concatenate([jnp.zeros((3, 8)), jnp.ones((5, 8))], axis=0)
    params["pos"] = jnp.concatenate([jnp.zeros((4,)), jnp.ones((4,))]).astype(jnp.float32)
    params["gate"] = jnp.broadcast_to(jnp.ones((1, 4)), (4, 4)) * 0.5
    params["bias16"] = jnp.broadcast_to(jnp.zeros((16,)), (2, 16))

    @jax.jit
    def train_step(params, x, y):
        def loss_fn(p):
            h = jnp.tanh((x * p["scale"]) @ p["w1"] + p["b1"])
            h = jnp.tanh(h @ p["w2"] + p["b2"])
            out = h @ p["w3"] + p["b3"]
            return jnp.mean((out - y) ** 2) + 1e-3 * (jnp.sum(p["emb"]) + jnp.sum(p["pos"]) +
                                                       jnp.sum(p["gate"]) + jnp.sum(p["bias16"]))
        loss, grads = jax.value_and_grad(loss_fn)(params)
        return jax.tree_util.tree_map(lambda p, g: p - 0.05 * g, params, grads), loss

    x, y = _data(32, 8), _data(32, 4, seed=1)
    for step in range(5):
        params, loss = train_step(params, x, y)
        print(f"step {step} loss {float(loss):.4f}")


def p_nested_jit():
    import numpy as np
    jax = _jax()
    import jax.numpy as jnp
    import optax

    @jax.jit
    def layer(w, h):                          # a helper that is jitted on its own too
        return jnp.tanh(h @ w)

    opt = optax.adam(1e-2)

    @jax.jit
    def train_step(params, opt_state, x, y):
        def loss_fn(p):
            return jnp.mean((layer(p["w2"], layer(p["w1"], x)) - y) ** 2)
        loss, grads = jax.value_and_grad(loss_fn)(params)
        updates, opt_state = opt.update(grads, opt_state, params)
        return optax.apply_updates(params, updates), opt_state, loss

    params = {"w1": np.full((8, 16), 0.1, np.float32), "w2": np.full((16, 4), 0.1, np.float32)}
    opt_state = opt.init(params)
    data, labels = _data(88, 8), _data(88, 4, seed=1)
    losses = []
    for step, start in enumerate(range(0, 88, 32)):  # 32, 32, then the remainder: 24
        x, y = data[start:start + 32], labels[start:start + 32]
        params, opt_state, loss = train_step(params, opt_state, x, y)
        losses.append(float(loss))
        print(f"step {step} batch {x.shape[0]} loss {losses[-1]:.4f}")
    # right after the explained recompilation: an epoch metric, a library function JAX compiles
    # without a tracing-cache explanation (it is not user code)
    print("epoch loss", float(jnp.mean(jnp.asarray(losses, dtype=jnp.float32))))
    # evaluation calls the helper directly: first on 10 rows, then on the 6 left over
    for rows in (10, 6):
        feats = layer(params["w1"], _data(rows, 8, seed=2))
        print(f"features {feats.shape}")


def p_fixed_eager():
    """The fixed loop after some array work outside jit (JAX compiles an eager one-op program for
    each operation and argument shape): first compilations only."""
    p_fixed(eager=True)


def p_fixed(eager=False):
    import numpy as np
    jax = _jax()
    import jax.numpy as jnp
    if eager:
        jax.block_until_ready([jnp.ones((8, 16)) * 0.1, jnp.zeros((16,)) + 1.0, jnp.ones((4,)) * 2.0])

    @jax.jit
    def train_step(params, x, y, mask):
        def loss_fn(p):
            h = jnp.tanh(x @ p["w1"] + p["b1"])
            err = jnp.sum((h @ p["w2"] - y) ** 2, axis=-1)
            return jnp.sum(err * mask) / jnp.maximum(jnp.sum(mask), 1.0)
        loss, grads = jax.value_and_grad(loss_fn)(params)
        return jax.tree_util.tree_map(lambda p, g: p - 0.05 * g, params, grads), loss

    params = {"w1": np.full((8, 16), 0.1, np.float32), "b1": np.zeros((16,), np.float32),
              "w2": np.full((16, 4), 0.1, np.float32)}
    n, batch = 620, 32
    data, labels = _data(n, 8), _data(n, 4, seed=1)
    for step, start in enumerate(range(0, n, batch)):    # 20 steps; the last has 12 real rows
        x, y = data[start:start + batch], labels[start:start + batch]
        real = x.shape[0]
        mask = np.zeros((batch,), np.float32)
        mask[:real] = 1.0
        if real < batch:                                    # pad the partial batch on the host
            x = np.pad(x, ((0, batch - real), (0, 0)))
            y = np.pad(y, ((0, batch - real), (0, 0)))
        params, loss = train_step(params, x, y, mask)
        print(f"step {step} rows {real} loss {float(loss):.4f}")


def p_persistent_cache():
    import numpy as np
    jax = _jax()
    import jax.numpy as jnp

    @jax.jit
    def train_step(w, x):
        return w - 0.1 * jax.grad(lambda w: jnp.sum(jnp.tanh(x @ w)))(w)

    w = np.full((8, 4), 0.1, np.float32)
    for step in range(3):
        w = train_step(w, _data(32, 8, seed=step))
        print(f"step {step}")
    jax.block_until_ready(w)


def _nnx_model_and_steps():
    import jax.numpy as jnp
    import optax
    from flax import nnx

    class MLP(nnx.Module):
        def __init__(self, rngs):
            self.l1 = nnx.Linear(8, 32, rngs=rngs)
            self.l2 = nnx.Linear(32, 16, rngs=rngs)
            self.out = nnx.Linear(16, 4, rngs=rngs)

        def __call__(self, x):
            return self.out(nnx.relu(self.l2(nnx.relu(self.l1(x)))))

    model = MLP(nnx.Rngs(0))
    optimizer = nnx.Optimizer(model, optax.adamw(1e-3), wrt=nnx.Param)

    @nnx.jit
    def train_step(model, optimizer, x, y):
        def loss_fn(model):
            return jnp.mean((model(x) - y) ** 2)
        loss, grads = nnx.value_and_grad(loss_fn)(model)
        optimizer.update(model, grads)
        return loss

    @nnx.jit
    def eval_step(model, x, y):
        return jnp.mean((model(x) - y) ** 2)

    return model, optimizer, train_step, eval_step


def p_flax_nnx(drop_remainder=False):
    _jax(config=True)
    model, optimizer, train_step, eval_step = _nnx_model_and_steps()
    n, batch = 112, 32
    data, labels = _data(n, 8), _data(n, 4, seed=1)
    for epoch in range(2):
        stop = n - n % batch if drop_remainder else n
        for start in range(0, stop, batch):  # 32, 32, 32 and (unless dropped) the remainder: 16
            x, y = data[start:start + batch], labels[start:start + batch]
            loss = train_step(model, optimizer, x, y)
            print(f"epoch {epoch} rows {x.shape[0]} loss {float(loss):.4f}")
        val = eval_step(model, _data(32, 8, seed=3), _data(32, 4, seed=4))
        print(f"epoch {epoch} eval loss {float(val):.4f}")


def p_flax_nnx_fixed():
    p_flax_nnx(drop_remainder=True)


# --- programs of the next issues: each records what it knows of its calls (_Calls) -----------------

def _mse_step(jax, jnp, lr=0.1):
    @jax.jit
    def train_step(w, x, y):
        def loss_fn(w):
            return jnp.mean((jnp.tanh(x @ w) - y) ** 2)
        loss, grad = jax.value_and_grad(loss_fn)(w)
        return w - lr * grad, loss
    return train_step


def p_progress_bar():
    """The partial-batch loop drawing its own progress bar, as people write them: every frame starts
    with \\r and rewrites the line, the first frame (0/4) is drawn before the first step, and only the
    end of an epoch prints a newline, so JAX's records of a compilation follow a frame on its line."""
    import sys
    import numpy as np
    jax = _jax()
    import jax.numpy as jnp
    rec = _Calls("jit_train_step")
    train_step = _mse_step(jax, jnp)

    @jax.jit
    def evaluate(w, x, y):
        return jnp.mean((jnp.tanh(x @ w) - y) ** 2)

    w = np.full((8, 4), 0.1, np.float32)
    data, labels = _data(120, 8), _data(120, 4, seed=1)
    steps = 4
    for epoch in range(2):
        sys.stdout.write(f"\rtrain epoch {epoch} [{'':<20}] 0/{steps}")
        sys.stdout.flush()
        for step, start in enumerate(range(0, 120, 32)):  # 32, 32, 32, then the remainder: 24
            x, y = data[start:start + 32], labels[start:start + 32]
            b = x.shape[0]
            rec.before()
            (w, loss), site = train_step(w, x, y), driver.here()
            rec.after(site, f"batch {b}", f"x f32[{b},8], y f32[{b},4]", causes=["batch_size"] if b != 32 else [],
                      against="batch 32" if b != 32 else None, changed="batch 32 -> 24 (the epoch's remainder)" if b != 32 else None)
            done = step + 1
            sys.stdout.write(f"\rtrain epoch {epoch} [{'#' * (20 * done // steps):<20}] {done}/{steps} loss {float(loss):.4f}")
            sys.stdout.flush()
        if epoch == 0:
            sys.stdout.write("\n")
    # no newline after the last frame: the evaluation's compilation records follow it
    print(f" eval loss {float(evaluate(w, data[:32], labels[:32])):.4f}")


def p_rebuilt_jit():
    import numpy as np
    jax = _jax()
    import jax.numpy as jnp
    rec = _Calls("jit_train_step")
    w = np.full((8, 4), 0.1, np.float32)
    data, labels = _data(208, 8), _data(208, 4, seed=1)
    rates = (0.1, 0.05, 0.025)
    for epoch, lr in enumerate(rates):
        train_step = _mse_step(jax, jnp, lr)  # rebuilt every epoch: the new rate is baked in as a constant
        for start, b in ((0, 64), (64, 40), (104, 64), (168, 40)):  # batches alternate 64 and 40 rows
            x, y = data[start:start + b], labels[start:start + b]
            rec.before()
            (w, loss), site = train_step(w, x, y), driver.here()
            if epoch == 0:
                causes, against, changed = ([], None, None) if b == 64 else (
                    ["batch_size"], f"lr {lr} batch 64", "batch 64 -> 40, the same train_step")
            else:
                causes, against = ["constant_value"], f"lr {rates[epoch - 1]} batch {b}"
                changed = (f"a new train_step function (rebuilt for epoch {epoch}) with the learning rate "
                           f"{rates[epoch - 1]} -> {lr} baked in as a constant; the batch, {b} rows, is one the "
                           f"previous train_step compiled")
            rec.after(site, f"lr {lr} batch {b}", f"x f32[{b},8], y f32[{b},4]", causes, against, changed)
        print(f"epoch {epoch} lr {lr} loss {float(loss):.4f}")


def p_adamw_state():
    import numpy as np
    import optax
    jax = _jax()
    import jax.numpy as jnp
    rec = _Calls("jit_train_step")
    opt = optax.adamw(1e-3)

    @jax.jit
    def train_step(params, opt_state, x, y):
        if opt_state is None:  # the first step builds the optimiser state (zeros) inside its graph
            opt_state = opt.init(params)
        def loss_fn(p):
            pooled = jnp.mean(jnp.tanh(x @ p["w"]), axis=1)  # [batch, seq, 16] -> mean over the sequence
            return jnp.mean((pooled @ p["v"] - y) ** 2)
        loss, grads = jax.value_and_grad(loss_fn)(params)
        updates, opt_state = opt.update(grads, opt_state, params)
        return optax.apply_updates(params, updates), opt_state, loss

    rng = np.random.default_rng(0)
    params = {"w": np.full((8, 16), 0.05, np.float32), "v": np.full((16, 2), 0.05, np.float32)}
    opt_state = None
    for step, seq in enumerate((16, 24, 24, 24)):  # the longer sequences arrive with the second step
        x = rng.standard_normal((4, seq, 8)).astype(np.float32)
        y = rng.standard_normal((4, 2)).astype(np.float32)
        state = "built in the step" if opt_state is None else "an input"
        rec.before()
        (params, opt_state, loss), site = train_step(params, opt_state, x, y), driver.here()
        if step == 0:
            rec.after(site, f"seq {seq} state {state}", f"x f32[4,{seq},8], opt_state None")
        else:
            rec.after(site, f"seq {seq} state {state}", f"x f32[4,{seq},8], opt_state (adamw's count, mu, nu)",
                      ["input_shape", "graph_structure"], "seq 16 state built in the step",
                      "two changes at once: the sequence length 16 -> 24 (x f32[4,16,8] -> f32[4,24,8]), and "
                      "adamw's state (count, mu and nu of w and v), which the first step's graph built from "
                      "constants (opt.init: zeros), is an input from this step on")
        print(f"step {step} seq {seq} loss {float(loss):.4f}")


def p_conv_image_side():
    import numpy as np
    jax = _jax()
    import jax.numpy as jnp
    from jax import lax
    rec = _Calls("jit_train_step")

    @jax.jit
    def train_step(p, images, labels):  # images [batch, side, side, 1], labels [batch] in 0..9
        def loss_fn(p):
            h = lax.conv_general_dilated(images, p["k1"], (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))
            h = lax.conv_general_dilated(jax.nn.relu(h), p["k2"], (2, 2), "SAME",
                                         dimension_numbers=("NHWC", "HWIO", "NHWC"))
            pooled = jnp.mean(jax.nn.relu(h), axis=(1, 2))  # global average pool: a sum / (H*W)
            logits = pooled @ p["w"]
            return -jnp.mean(jnp.take_along_axis(jax.nn.log_softmax(logits), labels[:, None], axis=1))
        loss, grads = jax.value_and_grad(loss_fn)(p)
        return jax.tree_util.tree_map(lambda a, g: a - 0.1 * g, p, grads), loss

    rng = np.random.default_rng(0)
    params = {"k1": np.full((3, 3, 1, 4), 0.1, np.float32), "k2": np.full((3, 3, 4, 8), 0.05, np.float32),
              "w": np.full((8, 10), 0.01, np.float32)}
    for step, side in enumerate((28, 28, 32, 32)):  # 28x28 images, then 32x32 ones
        images = rng.random((8, side, side, 1), np.float32)
        labels = rng.integers(0, 10, 8).astype(np.int32)
        rec.before()
        (params, loss), site = train_step(params, images, labels), driver.here()
        rec.after(site, f"side {side}", f"images f32[8,{side},{side},1]",
                  ["input_shape"] if side != 28 else [], "side 28" if side != 28 else None,
                  "the image side 28 -> 32 (images f32[8,28,28,1] -> f32[8,32,32,1]); the mean over H*W and the "
                  "strided convolution's shapes follow it, so constants derived from the shape change with it"
                  if side != 28 else None)
        print(f"step {step} side {side} loss {float(loss):.4f}")


def p_last_batch_both():
    import numpy as np
    jax = _jax()
    import jax.numpy as jnp
    rec = _Calls("jit_train_step")

    @jax.jit
    def train_step(w, tokens, mask, y):  # tokens [batch, padded length, 8]; mask [batch, padded length]
        def loss_fn(w):
            h = jnp.tanh(tokens @ w) * mask[..., None]
            pooled = jnp.sum(h, axis=1) / jnp.maximum(jnp.sum(mask, axis=1, keepdims=True), 1.0)
            return jnp.mean((pooled - y) ** 2)
        loss, grad = jax.value_and_grad(loss_fn)(w)
        return w - 0.1 * grad, loss

    rng = np.random.default_rng(2)  # seed 2: the full batches pad to 32, the last 4 rows to 24
    lengths = rng.integers(4, 31, 100)
    w = np.full((8, 4), 0.1, np.float32)
    first = None
    for step, start in enumerate(range(0, 100, 32)):  # 32, 32, 32, then the remainder: 4
        lens = lengths[start:start + 32]
        b, padded = len(lens), int(-(-lens.max() // 8) * 8)  # pad to the batch's longest, rounded up to 8
        mask = (np.arange(padded)[None, :] < lens[:, None]).astype(np.float32)
        tokens = rng.standard_normal((b, padded, 8)).astype(np.float32) * mask[..., None]
        y = rng.standard_normal((b, 4)).astype(np.float32)
        key = f"batch {b} length {padded}"
        first = first or key
        rec.before()
        (w, loss), site = train_step(w, tokens, mask, y), driver.here()
        recomp_ = key != first
        rec.after(site, key, f"tokens f32[{b},{padded},8], mask f32[{b},{padded}]",
                  ["batch_size", "input_shape"] if recomp_ else [], first if recomp_ else None,
                  f"two changes at once: the batch 32 -> {b} rows (the remainder) and the padded length "
                  f"32 -> {padded} (its longest sequence has {lens.max()} tokens)" if recomp_ else None)
        print(f"step {step} batch {b} padded to {padded} loss {float(loss):.4f}")


def p_length_spread():
    import numpy as np
    jax = _jax()
    import jax.numpy as jnp
    rec = _Calls("jit_train_step")

    @jax.jit
    def train_step(w, x, y):  # x [4, length, 8]
        def loss_fn(w):
            return jnp.mean((jnp.mean(jnp.tanh(x @ w), axis=1) - y) ** 2)
        loss, grad = jax.value_and_grad(loss_fn)(w)
        return w - 0.1 * grad, loss

    rng = np.random.default_rng(0)
    lengths = np.clip(np.rint(rng.normal(54.5, 3.0, 48)), 49, 60).astype(int)  # 48 steps, lengths 49..60
    w = np.full((8, 4), 0.1, np.float32)
    seen = []
    for step, n in enumerate(lengths.tolist()):
        x = rng.standard_normal((4, n, 8)).astype(np.float32)
        y = rng.standard_normal((4, 4)).astype(np.float32)
        rec.before()
        (w, loss), site = train_step(w, x, y), driver.here()
        new = f"length {n}" not in rec.keys
        rec.after(site, f"length {n}", f"x f32[4,{n},8]", ["input_shape"] if new and seen else [],
                  f"length {seen[-1]}" if new and seen else None,
                  f"the sequence length {seen[-1]} -> {n}" if new and seen else None)
        if new:
            seen.append(n)
        print(f"step {step} length {n} loss {float(loss):.4f}")
    sizes = collections.Counter(lengths.tolist())
    driver.EVIDENCE["truth"]["spread"] = {
        "identity": "jit_train_step", "input": "x f32[4,L,8]: L, the sequence length", "steps": len(lengths),
        "sizes": {str(k): sizes[k] for k in sorted(sizes)}, "compiled": sorted(seen), "pad_to": max(seen)}


def _cache_run(decay, causes=("identical",), changed="nothing in the graph (cache_miss says why the cache missed)"):
    """One of two runs sharing a persistent cache folder (cache/): a train step with weight decay.
    Run 2 records its compilation against run 1's with the causes the scenario gives it."""
    import numpy as np
    jax = _jax()
    import jax.numpy as jnp
    rec = _Calls("jit_train_step")
    run = driver.run_index()

    @jax.jit
    def train_step(w, x):
        grad = jax.grad(lambda w: jnp.sum(jnp.tanh(x @ w)))(w)
        return w - 0.1 * (grad + decay * w)

    w = np.full((8, 4), 0.1, np.float32)
    for step in range(3):
        rec.before()
        w, site = train_step(w, _data(32, 8, seed=step)), driver.here()
        rec.after(site, f"run {run}", "w f32[8,4], x f32[32,8]", causes if run > 1 else [],
                  "run 1" if run > 1 else None, changed if run > 1 else None)
        print(f"run {run} step {step} decay {decay}")
    jax.block_until_ready(w)


def p_cache_constant():
    # between the runs the user changed the weight decay, a Python float the step closes over
    _cache_run(1e-4 if driver.run_index() == 1 else 1e-3, ["constant_value"],
               "the weight decay 0.0001 -> 0.001, a Python float baked into the graph as a constant")


def p_ranks_job():
    import numpy as np
    rank, ranks, jax = _join_job()
    import jax.numpy as jnp
    from jax.experimental import multihost_utils
    rec = _Calls("jit_grad_step")

    @jax.jit
    def grad_step(w, x, y):  # this rank's gradient on its own shard of the batch
        return jax.grad(lambda w: jnp.mean((jnp.tanh(x @ w) - y) ** 2))(w)

    @jax.jit
    def eval_step(w, x):  # rank 0 alone evaluates, on its own shard
        return jnp.mean(jnp.tanh(x @ w))

    w = np.full((8, 4), 0.1, np.float32)
    data, labels = _data(256, 8, seed=rank), _data(256, 4, seed=10 + rank)
    for step in range(8):
        b = 20 if rank == 2 and step == 6 else 32  # rank 2's shard of step 6 ends ragged
        x, y = data[step * 32:step * 32 + b], labels[step * 32:step * 32 + b]
        rec.before()
        g, site = grad_step(w, x, y), driver.here()
        if rec.after(site, f"batch {b}", f"x f32[{b},8], y f32[{b},4]", ["batch_size"] if b != 32 else [],
                     "batch 32" if b != 32 else None, "batch 32 -> 20 on this rank only" if b != 32 else None) and b != 32:
            driver.EVIDENCE["truth"].setdefault("diverged", []).append(
                {"rank": rank, "step": step, "identity": "jit_grad_step", "causes": ["batch_size"],
                 "changed": f"x f32[32,8] -> f32[{b},8], y f32[32,4] -> f32[{b},4]: this rank's shard of step "
                            f"{step} ends ragged, the other ranks' are full"})
        grads = multihost_utils.process_allgather(g)  # every rank's gradient, on every rank
        w = w - 0.1 * np.asarray(grads).mean(axis=0)
        if rank == 0 and step == 3:
            n = eval_step(w, x)
            jax.block_until_ready(n)
            driver.EVIDENCE["truth"].setdefault("diverged", []).append(
                {"rank": 0, "step": step, "identity": "jit_eval_step", "causes": [],
                 "changed": "a program only rank 0 runs (its evaluation at step 3)"})
        print(f"rank {rank} step {step} batch {b}")
    jax.distributed.shutdown()


def p_cache_same():
    _cache_run(1e-4)


def _join_job():
    """This process's place in a job (driver.rank()): JAX's distributed runtime on localhost, CPU
    collectives over gloo where the version has the option; (rank, ranks, jax)."""
    rank, ranks, coordinator = driver.rank()
    import jax
    if JAX >= (0, 4, 27):
        jax.config.update("jax_cpu_collectives_implementation", "gloo")
    jax.distributed.initialize(coordinator_address=coordinator, num_processes=ranks, process_id=rank)
    jax = _jax()
    print(f"rank {rank} of {ranks}: process {jax.process_index()}, local devices {jax.local_devices()}")
    return rank, ranks, jax


def p_ranks():
    import numpy as np
    rank, ranks, jax = _join_job()
    import jax.numpy as jnp
    from jax.experimental import multihost_utils
    rec = _Calls("jit_grad_step")

    @jax.jit
    def grad_step(w, x, y):  # this rank's gradient on its own shard of the batch
        return jax.grad(lambda w: jnp.mean((jnp.tanh(x @ w) - y) ** 2))(w)

    w = np.full((8, 4), 0.1, np.float32)
    data, labels = _data(224, 8, seed=rank), _data(224, 4, seed=10 + rank)
    for step in range(4):
        b = 24 if rank == 1 and step == 3 else 32  # rank 1's shard of the last batch is partial
        x, y = data[step * 32:step * 32 + b], labels[step * 32:step * 32 + b]
        rec.before()
        g, site = grad_step(w, x, y), driver.here()
        if rec.after(site, f"batch {b}", f"x f32[{b},8], y f32[{b},4]", ["batch_size"] if b != 32 else [],
                     "batch 32" if b != 32 else None, "batch 32 -> 24 on this rank only" if b != 32 else None) and b != 32:
            driver.EVIDENCE["truth"].setdefault("diverged", []).append(
                {"rank": rank, "step": step, "identity": "jit_grad_step", "causes": ["batch_size"],
                 "changed": f"x f32[32,8] -> f32[{b},8], y f32[32,4] -> f32[{b},4]: this rank's shard of step "
                            f"{step} is partial, the other ranks' are full"})
        grads = multihost_utils.process_allgather(g)  # every rank's gradient, on every rank
        w = w - 0.1 * np.asarray(grads).mean(axis=0)
        print(f"rank {rank} step {step} batch {b}")
    jax.distributed.shutdown()


def p_warmup_uncovered():
    import numpy as np
    jax = _jax()
    import jax.numpy as jnp
    rec = _Calls("jit_train_step")
    train_step = _mse_step(jax, jnp)
    w = np.full((8, 4), 0.1, np.float32)
    warm = (32, 64, 128)
    compiled = []
    for b in warm:  # warm-up: compile the step for every batch size the loader is said to produce
        rec.before()
        _, site = train_step(w, np.zeros((b, 8), np.float32), np.zeros((b, 4), np.float32)), driver.here()
        rec.after(site, f"batch {b}", f"x f32[{b},8], y f32[{b},4]", ["batch_size"] if compiled else [],
                  f"batch {compiled[-1]}" if compiled else None,
                  f"warm-up: batch {compiled[-1]} -> {b}" if compiled else None)
        compiled.append(b)
    print(f"warm-up done: train_step compiled for batch sizes {', '.join(map(str, warm))}")
    uncovered = []
    for step, b in enumerate((64, 128, 32, 48, 64)):  # the loader's last bucket of an epoch has 48 rows
        x, y = _data(b, 8, seed=step), _data(b, 4, seed=100 + step)
        rec.before()
        (w, loss), site = train_step(w, x, y), driver.here()
        if rec.after(site, f"batch {b}", f"x f32[{b},8], y f32[{b},4]", ["batch_size"], "batch 32",
                     f"batch {b}: a size the warm-up did not compile"):
            uncovered.append({"identity": "jit_train_step", "input": f"x f32[{b},8], y f32[{b},4]",
                              "call_site": site, "step": step})
        print(f"step {step} batch {b} loss {float(loss):.4f}")
    driver.EVIDENCE["truth"]["uncovered"] = {
        "log": "run.log", "marker": "warm-up done", "marker_how": "one log; the line 'warm-up done: ...' ends the warm-up",
        "warmed": [f"x f32[{b},8], y f32[{b},4]" for b in warm], "shapes": uncovered}


def p_static_step():
    """A train step jitted once with static_argnums on the step counter (for a decay schedule):
    every step is a new static value, a new trace and a new compilation."""
    import functools
    import numpy as np
    jax = _jax()
    import jax.numpy as jnp

    @functools.partial(jax.jit, static_argnums=(2,))
    def train_step(w, x, step):
        lr = 0.1 / (1 + 0.5 * step)  # a Python value of the static step: baked into the graph
        loss = lambda w: jnp.mean(jnp.tanh(x @ w) ** 2)
        return w - lr * jax.grad(loss)(w)

    w = np.full((8, 4), 0.1, np.float32)
    x = _data(16, 8)
    for step in range(24):
        w = train_step(w, x, step)
    print("trained 24 steps")
    jax.block_until_ready(w)


def p_pytree_key():
    """A train step on a batch dict; from step 12 the loader adds a 'weights' key (per-row loss
    weights): a new input pytree, so the step is traced and compiled again."""
    import numpy as np
    jax = _jax()
    import jax.numpy as jnp

    @jax.jit
    def train_step(w, batch):
        def loss(w):
            err = (batch["x"] @ w - batch["y"]) ** 2
            if "weights" in batch:
                err = err * batch["weights"][:, None]
            return jnp.mean(err)
        return w - 0.1 * jax.grad(loss)(w)

    w = np.full((8, 4), 0.1, np.float32)
    for step in range(24):
        batch = {"x": _data(16, 8, seed=step), "y": _data(16, 4, seed=100 + step)}
        if step >= 12:
            batch["weights"] = np.ones((16,), np.float32)
        w = train_step(w, batch)
    print("trained 24 steps")
    jax.block_until_ready(w)


def p_static_anneal():
    """A train step jitted once, outside the loop, with static_argnames=("dropout",): the rate is
    annealed each epoch (0.1, 0.075, 0.05, 0.025) and each 1000-row epoch ends with a 104-row batch
    (batch 128). Each new rate is a new trace and a new compilation, of the full batch and of the
    last one; only the first 104-row compilation is the batch's."""
    import functools
    jax = _jax()
    import jax.numpy as jnp
    rec = _Calls("jit_train_step")

    @functools.partial(jax.jit, static_argnames=("dropout",))
    def train_step(w, x, y, dropout):
        def loss(w):
            h = jnp.tanh(x @ w) * (1.0 - dropout)  # a Python float at trace time: baked into the graph
            return jnp.mean((h - y) ** 2)
        return w - 0.1 * jax.grad(loss)(w)

    rows, batch = 1000, 128
    X, Y = _data(rows, 16), _data(rows, 4, seed=1)
    w = _data(16, 4, seed=2) * 0.1
    rates = [0.1 * (4 - epoch) / 4 for epoch in range(4)]
    last = {}  # batch size -> the rate it last compiled with
    by_cause = collections.Counter()
    for epoch, rate in enumerate(rates):
        for i in range(0, rows, batch):
            x, y = X[i:i + batch], Y[i:i + batch]
            b = len(x)
            if b in last:
                causes, against, changed = ["constant_value"], f"batch {b}, dropout {last[b]!r}", f"dropout {last[b]!r} -> {rate!r}"
            elif last:
                causes, against, changed = ["batch_size"], f"batch {batch}, dropout {rate!r}", f"batch {batch} -> {b}"
            else:
                causes, against, changed = [], None, None
            rec.before()
            w, site = train_step(w, x, y, dropout=rate), driver.here()
            if rec.after(site, f"batch {b}, dropout {rate!r}", f"x f32[{b},16], y f32[{b},4], dropout={rate!r}",
                         causes, against, changed):
                last[b] = rate
                by_cause.update(causes)
        print(f"epoch {epoch} dropout {rate!r}")
    jax.block_until_ready(w)
    driver.EVIDENCE["truth"]["value_causes"] = [{
        "identity": "jit_train_step", "static": {"dropout": [repr(r) for r in rates]},
        "baked": [repr(1.0 - r) for r in rates], "compilations": by_cause["constant_value"],
        "then": {"batch_size": by_cause["batch_size"]}}]


def p_nnx_attribute():
    """A flax nnx classifier whose softmax temperature is a plain Python float attribute, annealed
    each epoch (2.0, 1.0, 0.5): nnx keeps a plain attribute in the module's graph definition, pytree
    metadata static to nnx.jit, so each new temperature traces and compiles the train step again."""
    jax = _jax()
    import jax.numpy as jnp
    import optax
    from flax import nnx
    rec = _Calls("jit_train_step")

    class Model(nnx.Module):
        def __init__(self, rngs):
            self.lin = nnx.Linear(8, 3, rngs=rngs)
            self.temperature = 2.0  # a plain float: static, not an nnx.Variable

        def __call__(self, x):
            return self.lin(x) / self.temperature

    model = Model(nnx.Rngs(0))
    opt = nnx.Optimizer(model, optax.sgd(0.1), wrt=nnx.Param)

    @nnx.jit
    def train_step(model, opt, x, y):
        def loss_fn(m):
            return optax.softmax_cross_entropy_with_integer_labels(m(x), y).mean()
        loss, grads = nnx.value_and_grad(loss_fn)(model)
        opt.update(model, grads)
        return loss

    X, Y = _data(128, 8), jnp.asarray(_data(128, 1, seed=1)[:, 0] > 0, jnp.int32)
    temps = [2.0, 1.0, 0.5]
    compiled = 0
    for epoch, temp in enumerate(temps):
        model.temperature = temp
        for i in range(0, 128, 32):
            prev = temps[epoch - 1] if epoch else None
            causes, against, changed = ([], None, None) if not epoch else (
                ["constant_value"], f"temperature {prev!r}", f"temperature {prev!r} -> {temp!r}")
            rec.before()
            loss, site = train_step(model, opt, X[i:i + 32], Y[i:i + 32]), driver.here()
            if rec.after(site, f"temperature {temp!r}", f"x f32[32,8], y s32[32], temperature={temp!r}", causes, against, changed):
                compiled += bool(causes)
        print(f"epoch {epoch} temperature {temp} loss {float(loss):.4f}")
    driver.EVIDENCE["truth"]["value_causes"] = [{
        "identity": "jit_train_step", "static": {}, "attributes": {"temperature": [repr(t) for t in temps]},
        "baked": [repr(t) for t in temps], "compilations": compiled, "then": {}}]


def p_weak_type():
    """A train step with momentum whose coefficient is an argument: a Python float (0.5) during the
    warm-up epoch, then read from a schedule held in a numpy float32 array. A Python float is a weakly
    typed f32[]; np.float32 a strongly typed one: the same shape and dtype, a new cache key, so the
    step is traced and compiled again. The graphs are the same after normalisation."""
    import numpy as np
    jax = _jax()
    import jax.numpy as jnp
    rec = _Calls("jit_train_step")

    @jax.jit
    def train_step(w, v, x, y, beta):
        grad = jax.grad(lambda w: jnp.mean((x @ w - y) ** 2))(w)
        v = beta * v + grad
        return w - 0.05 * v, v

    w, v = np.zeros((8, 2), np.float32), np.zeros((8, 2), np.float32)
    X, Y = _data(64, 8), _data(64, 2, seed=1)
    schedule = np.linspace(0.5, 0.9, 3, dtype=np.float32)  # epochs 1-3
    for epoch in range(4):
        beta = 0.5 if epoch == 0 else schedule[epoch - 1]
        weak = isinstance(beta, float)
        for i in range(0, 64, 16):
            causes, against, changed = ([], None, None) if weak or epoch > 1 else (
                ["identical"], "beta weak", "beta: Python float 0.5 (weakly typed f32[]) -> np.float32 (f32[])")
            rec.before()
            (w, v), site = train_step(w, v, X[i:i + 16], Y[i:i + 16], beta), driver.here()
            rec.after(site, "beta weak" if weak else "beta f32", f"beta {type(beta).__name__}", causes, against, changed)
        print(f"epoch {epoch} beta {float(beta):.2f} ({type(beta).__name__})")
    jax.block_until_ready(w)
    driver.EVIDENCE["truth"]["stated"] = {
        "identity": "jit_train_step", "kind": "weak_type", "argument": "beta", "compilations": 1,
        "advice": ["jnp.float32(beta)", "Python float"]}


def p_pytree_none():
    """A train step on a batch dict whose 'weight' entry is None for the batches of the clean
    source and per-row weights for the batches of the noisy one (every third batch): None is an
    empty pytree node, an array a leaf, so JAX traces and compiles the step again for the other
    structure; once both are compiled, the cache serves them."""
    import numpy as np
    jax = _jax()
    import jax.numpy as jnp
    rec = _Calls("jit_train_step")

    @jax.jit
    def train_step(w, batch):
        def loss(w):
            err = jnp.mean((batch["x"] @ w - batch["y"]) ** 2, axis=1)
            if batch["weight"] is not None:
                err = err * batch["weight"]
            return jnp.mean(err)
        return w - 0.1 * jax.grad(loss)(w)

    w = np.full((8, 4), 0.1, np.float32)
    for step in range(12):
        noisy = step % 3 == 2
        batch = {"x": _data(16, 8, seed=step), "y": _data(16, 4, seed=100 + step),
                 "weight": np.full((16,), 0.5, np.float32) if noisy else None}
        key = "weight array" if noisy else "weight None"
        # the graph gains the weight parameter and its ops, and the mean's constants change with them
        causes, against, changed = ((["graph_structure", "constant_value"], "weight None", "batch['weight']: None -> f32[16]")
                                    if noisy and key not in rec.keys else ([], None, None))
        rec.before()
        w, site = train_step(w, batch), driver.here()
        rec.after(site, key, "weight f32[16]" if noisy else "weight None", causes, against, changed)
    print("trained 12 steps")
    jax.block_until_ready(w)
    driver.EVIDENCE["truth"]["stated"] = {
        "identity": "jit_train_step", "kind": "pytree_change", "argument": "['weight']", "compilations": 1,
        "advice": ["None"]}


def p_growing_cache():
    """Greedy decoding with a tiny attention model: each token's key is appended to a key cache with
    jnp.concatenate inside the jitted decode step, so the cache argument grows by one row per token
    and every token compiles the step again (8 prompt rows, then 12 tokens)."""
    import numpy as np
    jax = _jax()
    import jax.numpy as jnp
    rec = _Calls("jit_decode_step")

    @jax.jit
    def decode_step(wq, cache, h):
        q = h @ wq
        att = jax.nn.softmax(cache @ q)
        h = jnp.tanh(att @ cache)
        return h, jnp.concatenate([cache, h[None, :]], axis=0)

    wq = _data(16, 16) * 0.1
    cache, h = _data(8, 16, seed=1), _data(1, 16, seed=2)[0]
    for t in range(12):
        n = cache.shape[0]
        causes, against, changed = (["batch_size"], f"cache {n - 1}", f"cache f32[{n - 1},16] -> f32[{n},16]") if t else ([], None, None)
        rec.before()
        (h, cache), site = decode_step(wq, cache, h), driver.here()
        rec.after(site, f"cache {n}", f"cache f32[{n},16]", causes, against, changed)
    print("decoded 12 tokens; cache rows", cache.shape[0])
    jax.block_until_ready(h)
    driver.EVIDENCE["truth"]["stated"] = {
        "identity": "jit_decode_step", "kind": "batch_size", "argument": "cache", "compilations": 11,
        "advice": ["dynamic_update_slice", "maximum length"]}


def p_stopped():
    """A training loop that compiles its step again after warm-up (each pass over 1 408 rows in batches of
    512: 512, 512, then the 384-row remainder) and would run on for minutes, run under `recomp run
    --fail-on-recompile`, which stops it at that compilation. The step runs inside its call (no asynchronous
    dispatch on CPU) and long enough for the stop to land in JAX's call path, as it does in a real model."""
    import numpy as np
    jax = _jax()
    import jax.numpy as jnp
    jax.config.update("jax_cpu_enable_async_dispatch", False)

    @jax.jit
    def train_step(w, x, y):
        def loss_fn(w):
            h = x
            for _ in range(4):
                h = jnp.tanh(h @ w)
            return jnp.mean((h - y) ** 2)
        return w - 0.01 * jax.grad(loss_fn)(w)

    w = np.full((1024, 1024), 0.01, np.float32)
    data = _data(1408, 1024)
    ev = driver.EVIDENCE
    step = 0
    for epoch in range(200):
        for start in range(0, 1408, 512):
            x = data[start:start + 512]
            # what the program is about to do, for the truth of where the stop found it
            ev["last_call"] = {"step": step, "epoch": epoch, "input": f"x f32[{x.shape[0]},1024]",
                               "compile_events": ev["backend_compile_events"]}
            w = train_step(w, x, x)
            print(f"epoch {epoch} step {step} batch {x.shape[0]}")
            step += 1


# --- the scenarios -----------------------------------------------------------------------------

ENV_LOGS = {"JAX_LOG_COMPILES": "1", "JAX_EXPLAIN_CACHE_MISSES": "1"}
CONFIG_LOGS = {"jax.config.update": "jax_log_compiles=True, jax_explain_cache_misses=True (in the program)"}
FORCE8 = "--xla_force_host_platform_device_count=8"


# reason: candidate substrings of JAX's own explanation, newest wording first (JAX 0.12: "now A and
# before B"; JAX 0.4: "seen B, but now given A"); the first one found in the log is recorded.
REASON_PARTIAL = ["at x, now f32[24,8] and before f32[32,8]", "at x, seen f32[32,8], but now given f32[24,8]",
                  # rich wraps the line at 80 columns
                  "at x, now f32[24,8] and before", "at x, seen f32[32,8], but now given"]


PARTIAL = dict(program=p_partial_batch, recompiled=["jit_train_step"], cause="batch_size", reason=REASON_PARTIAL)

S = collections.OrderedDict()
S["partial-batch"] = dict(PARTIAL, env=ENV_LOGS, description=(
    "A jitted train step fed the batches of a 120-row epoch: 32, 32, 32, then the 24-row remainder. "
    "The remainder is a new input shape, so JAX traces and compiles the step again."))
if JAX < (0, 5):
    S["partial-batch"]["description"] += (" JAX 0.4 writes its records through its own handler on the 'jax' logger: "
                                         "'WARNING:asctime:logger:lineno: message'.")
S["seq-length"] = dict(program=p_seq_length, env=ENV_LOGS, recompiled=["jit_train_step"], cause="input_shape",
    reason=["at x, now f32[4,24,8] and before f32[4,16,8]", "at x, seen f32[4,16,8], but now given f32[4,24,8]"],
    description=("A train step on [batch, seq, d] inputs that means over the sequence axis; the batch "
                 "stays 4 and the sequence length goes 16, 16, 24, so the step compiles again for the new "
                 "sequence length (a non-batch dimension)."))
S["closed-constant"] = dict(program=p_closed_constant, env=CONFIG_LOGS, recompiled=["jit_train_step"],
    cause="constant_value", reason=["maybe the function is"],
    description=("The learning rate, a Python float, is closed over by a train step that is built again for "
                 "each epoch (0.1, then 0.05). The new function is traced again and the rate is baked "
                 "into the graph as a different constant."))
S["dtype"] = dict(program=p_dtype, env=CONFIG_LOGS, recompiled=["jit_predict"], cause="dtype",
    reason=["at x, now bf16[32,8] and before f32[32,8]", "at x, seen f32[32,8], but now given bf16[32,8]"],
    description="The same jitted function called with float32 and then bfloat16 inputs (mixed precision switched on part-way).")
S["static-arg"] = dict(program=p_static_arg, env=ENV_LOGS, recompiled=["jit_run"], cause="graph_structure",
    reason=["cache miss explanation unavailable", "explanation unavailable!"],
    description=("A static argument (inner_steps, the Python loop count unrolled in the graph) goes 2, 2, 3: each "
                 "new value is a different graph."))
S["redefined"] = dict(program=p_redefined, env=ENV_LOGS, cause="identical",
    recompiled=lambda fams: sorted(f for f in fams if f.startswith("jit__lambda")),  # 0.4: jit__lambda_
    reason=["being re-defined repeatedly"],
    description=("jax.jit(lambda ...) is applied inside the loop: the graph is the same every time, but each "
                 "lambda is a new function to JAX, so it traces and compiles it three times."))
S["donation"] = dict(program=p_donation, env=ENV_LOGS, recompiled=["jit_update"], cause="module_config",
    description=("The same update function jitted twice: once plainly, then with donate_argnums=0. Both are "
                 "jit_update with the same computation; the donated one aliases its first input to its output "
                 "(input_output_alias in the HLO module header), so it is compiled again."))
S["sharding"] = dict(program=p_sharding, env=ENV_LOGS, xla_flags=FORCE8, recompiled=["jit_train_step"], cause="sharding",
    reason=["at w, now f32[8,16]({Auto: ('data', 'model')})"],  # JAX 0.12 (JAX 0.4 says nothing)
    reason_optional=True,
    description=("8 host CPU devices (--xla_force_host_platform_device_count=8). A jitted train step is fed "
                 "NamedSharding inputs on a 2x4 ('data','model') mesh, then the same arrays re-meshed 4x2: same "
                 "shapes and dtypes, different shardings, so the step is compiled again."))
S["shard-map"] = dict(program=p_shard_map, env=ENV_LOGS, xla_flags=FORCE8, recompiled=["jit_sharded_step"], cause="batch_size",
    reason=["at x, now f32[32,8] and before f32[64,8]", "at x, seen f32[64,8], but now given f32[32,8]"],
    description=("A jitted shard_map program over 8 CPU devices using psum, all_gather, ppermute, psum_scatter and "
                 "pmax, called with a global batch of 64, 64, then 32 rows: the new batch size compiles it again."))
S["constructs"] = dict(program=p_constructs, env=ENV_LOGS, recompiled=None, uses=("optax",), causes={
        "jit_scan_rnn": "input_shape", "jit_while_count": "batch_size", "jit_fori_poly": "input_shape",
        "jit_branchy": "batch_size", "jit_remat_mlp": "batch_size", "jit_linalg_ops": "input_shape",
        "jit_host_callback": "batch_size", "jit_random_ops": "batch_size", "jit_cnn_ops": "batch_size",
        "jit_donated_update": "input_shape", "jit_adam_step": "batch_size"},
    description=("One program whose jitted functions use lax.scan, lax.while_loop, lax.fori_loop, lax.cond and "
                 "lax.switch, jax.checkpoint, LAPACK custom calls (eigh, qr, svd, cholesky) and an FFT, "
                 "jax.pure_callback and an ordered io_callback, jax.random with threefry and rbg keys, a "
                 "convolution, reduce_window, sort, top_k, argmax, gather and scatter, donate_argnums and an "
                 "optax adam step. Each function is called once, then again with one dimension changed: "
                 "the batch (batch_size) or another dimension (input_shape: the scan's time axis, a "
                 "square matrix's size, a layer width), so each compiles twice."))
S["eager-init"] = dict(program=p_eager_init, env=ENV_LOGS, recompiled=[], cause=None,
    description=("A model initialised eagerly (jax.random.normal, zeros, ones, astype, concatenate and "
                 "broadcast_to on several shapes): each eager operation is a small one-op program compiled "
                 "once per shape/dtype signature, so the same names compile several times. Then a jitted "
                 "train step runs 5 times with fixed shapes and compiles once. Nothing recompiled."))
S["nested-jit"] = dict(program=p_nested_jit, env=ENV_LOGS, recompiled=["jit_train_step", "jit_layer"],
    causes={"jit_train_step": "batch_size", "jit_layer": "batch_size"}, reason=REASON_PARTIAL[:2],
    requires=("optax",),
    description=("An outer jitted train step calls an inner @jax.jit helper (layer) twice and an optax adam "
                 "update. The 24-row remainder batch recompiles the outer step; JAX also reports tracing-cache "
                 "misses for the nested layer calls, which are part of the outer step's compilation, not "
                 "compilations of their own. Right after, jnp.mean compiles (jit_mean) with no explanation. "
                 "Then layer is called directly on 10 rows and on 6 rows: jit_layer compiles twice."))
S["fixed"] = dict(program=p_fixed, env=ENV_LOGS, recompiled=[], cause=None,
    description=("The fixed training loop: 20 steps over 620 rows in batches of 32, the last 12-row batch "
                 "padded on the host to 32 with a loss mask, so the step compiles once and never again."))
S["persistent-cache"] = dict(program=p_persistent_cache, recompiled=[], cause=None, runs=2,
    env=dict(ENV_LOGS, JAX_COMPILATION_CACHE_DIR="cache", JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS="0",
             JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES="0"),
    description=("The same program run twice in two processes with a persistent compilation cache in cache/ "
                 "(min compile time and entry size 0): run 1 misses and writes the entry, run 2 is served "
                 "from the cache. Nothing recompiled."))
S["flax-nnx"] = dict(program=p_flax_nnx, env=CONFIG_LOGS, recompiled=["jit_train_step"], cause="batch_size",
    reason=["at x, now f32[16,8] and before f32[32,8]"], requires=("flax", "optax"), min_jax=(0, 5),
    description=("A flax nnx MLP trained with optax adamw through nnx.jit train and eval steps, 2 epochs of "
                 "112 rows in batches of 32: the 16-row remainder batch recompiles the train step (once; the "
                 "second epoch reuses it); the eval step compiles once."))
S["flax-nnx-fixed"] = dict(program=p_flax_nnx_fixed, env=CONFIG_LOGS, recompiled=[], cause=None,
    requires=("flax", "optax"), min_jax=(0, 5),
    description=("The flax nnx program of flax-nnx with drop_remainder-style batching: the 16-row remainder "
                 "is dropped, so the train and eval steps compile once each."))
S["logfmt-asctime"] = dict(PARTIAL, program=p_logfmt_asctime, env=ENV_LOGS, description=(
    "The partial-batch program with logging.basicConfig(format='%(asctime)s %(levelname)s %(name)s: "
    "%(message)s', level=logging.WARNING): JAX's compile logs (WARNING with jax_log_compiles) carry that prefix; "
    "continuation lines of multi-line messages do not."))
S["logfmt-json"] = dict(PARTIAL, program=p_logfmt_json, env=ENV_LOGS, description=(
    "The partial-batch program with a logging.Formatter subclass that prints one JSON object per record "
    "(ts, level, logger, message=record.getMessage()): multi-line messages become one line with \\n escapes."))
S["logfmt-rich"] = dict(PARTIAL, program=p_logfmt_rich, env=ENV_LOGS, requires=("rich",), description=(
    "The partial-batch program logging through rich.logging.RichHandler. Not a terminal, so rich renders at "
    "80 columns: time, level, message wrapped to the width, and file:line on the right."))

for _name, (_tool, _how, _) in driver.LAUNCHERS.items():
    S[_name] = dict(PARTIAL, env=ENV_LOGS, prefix=_name, description=(
        f"The partial-batch program's real output, run under no launcher; the generator then added the "
        f"prefix that `{_tool}` adds, line by line as that tool does: {_how}."))


# The scenarios of the next issues: "detail" adds compile_seconds, compiles and call_sites to the
# truth (README.md), from the program's own record of its calls (_Calls) and JAX's compile events.
CACHE_ENV = dict(ENV_LOGS, JAX_COMPILATION_CACHE_DIR="cache", JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS="0",
                 JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES="0")
S["progress-bar"] = dict(PARTIAL, program=p_progress_bar, env=ENV_LOGS, terminal=True, detail=True,
    reason=REASON_PARTIAL[:2], description=(
    "The partial-batch loop (32, 32, 32, then 24 rows, two epochs) drawing its own progress bar, run under a "
    "pseudo-terminal: each frame starts with \\r and rewrites the line ('train epoch 0 [#####     ] 1/4 loss ...'), "
    "the first frame (0/4) is drawn before the first step and only the end of epoch 0 prints a newline. JAX's "
    "records of the first compilation and of the 24-row recompilation (its TRACING CACHE MISS explanation) "
    "therefore start on the line of a bar frame, and the last frame of epoch 1 has no newline: the evaluation's "
    "compilation records follow it. The terminal's line discipline ends every line with \\r\\n."))
S["rebuilt-jit"] = dict(program=p_rebuilt_jit, env=ENV_LOGS, detail=True, recompiled=["jit_train_step"],
    cause="constant_value", reason=["seen another function defined on the same line", "maybe the function is"], description=(
    "The train step is built again every epoch (a factory closing over the learning rate, 0.1, 0.05, 0.025) and "
    "fed batches that alternate between 64 and 40 rows. Epoch 0 compiles the 64-row step and, for the 40-row "
    "batches, again (batch_size). Every later epoch has a new function object with a new constant baked in, so "
    "it compiles the 64-row and the 40-row step again: the cause of those recompilations is the constant (the "
    "new function), not the batch size, although the previous compilation in the log had the other batch size "
    "(and JAX's own explanation of a later 40-row compilation compares it with the new function's 64-row one: "
    "'different input types'). Had the step not been rebuilt, no compilation after epoch 0 would have happened. "
    "compiles names, for each compilation, the earlier one it differs from only by its cause. cause names the "
    "scenario's main cause; one recompilation (the first 40-row one) is batch_size."))
S["adamw-state"] = dict(program=p_adamw_state, env=ENV_LOGS, detail=True, requires=("optax",), uses=("optax",),
    recompiled=["jit_train_step"], cause="input_shape", reason_optional=True,
    reason=["at input path [0][1], now <class 'tuple'> and before <class 'NoneType'>"],  # JAX 0.4 names neither
    description=(
    "An optax adamw train step on [4, seq, 8] inputs whose first call gets opt_state=None and builds the "
    "optimiser state inside its graph (opt.init: zeros from constants); later calls pass the state in. The "
    "sequence length goes 16, 24, 24, 24: the second call changes the sequence length and turns the "
    "optimiser state from constants into inputs at once, so its one recompilation has two causes "
    "(compiles[].causes: input_shape and graph_structure); cause names the first. JAX 0.12's explanation names "
    "only the state's change (None -> tuple), JAX 0.4's neither."))
S["conv-image-side"] = dict(program=p_conv_image_side, env=ENV_LOGS, detail=True, recompiled=["jit_train_step"],
    cause="input_shape", reason=["at images, now f32[8,32,32,1] and before f32[8,28,28,1]",
                                 "at images, seen f32[8,28,28,1], but now given f32[8,32,32,1]"], description=(
    "A small conv net (two convolutions, the second strided, a global average pool, a dense layer, softmax "
    "cross-entropy) trained on 8 images of 28x28, twice, then of 32x32, twice: the image side changes, so the "
    "step compiles again. The pool's 1/(H*W) and the shapes derived from the side change with it: the cause is "
    "the input shape, not a constant."))
S["last-batch-both"] = dict(program=p_last_batch_both, env=ENV_LOGS, detail=True, recompiled=["jit_train_step"],
    cause="batch_size", reason=["at tokens, now f32[4,24,8] and before f32[32,32,8]",
                                "at tokens, seen f32[32,32,8], but now given f32[4,24,8]"], description=(
    "100 token sequences of 4 to 30 tokens (seeded), batches of 32 padded to the batch's longest sequence "
    "rounded up to 8, with a mask: the three full batches pad to 32, the 4-row remainder to 24. The last batch "
    "changes the batch size and the padded length at once: one recompilation with two causes "
    "(compiles[].causes: batch_size and input_shape); cause names the first."))
S["length-spread"] = dict(program=p_length_spread, env=ENV_LOGS, detail=True, recompiled=["jit_train_step"],
    cause="input_shape", description=(
    "48 steps on [4, L, 8] inputs whose sequence length L is drawn from a seeded normal distribution (mean 54.5, "
    "sd 3, rounded, clipped to 49..60): every new length compiles the step again. spread records every length "
    "and how often it came, and pad_to the one length that covers them all; compiles the cost of each."))
S["cache-constant"] = dict(program=p_cache_constant, env=CACHE_ENV, runs=2, dump_per_run=True, detail=True,
    recompiled=[], cause=None, cache_miss={"identity": "jit_train_step", "reason": "graph_differs",
                                           "changed": "the weight decay 0.0001 -> 0.001, a constant in the graph"},
    description=(
    "Two runs of one program sharing a persistent compilation cache in cache/ (min compile time and entry size "
    "0). Between them the user changed the weight decay, a Python float the train step closes over: run 2's "
    "graph differs by that constant, its cache key differs, and it misses and compiles. Each run dumps into "
    "its own folder (dump1/, dump2/). Nothing recompiled within a run."))
# What recomp run switches on to see why a persistent cache missed: JAX's log of each part of the cache
# key (the hash of each part, each XLA flag it includes). JAX >= 0.5 prints it only with a logging
# level set (its debug handler stays silent while the jax logger's level is NOTSET).
CACHE_KEY_LOGS = {"JAX_DEBUG_LOG_MODULES": "jax._src.cache_key", "JAX_LOGGING_LEVEL": "INFO"}
S["cache-xla-flag"] = dict(program=p_cache_same, env=dict(CACHE_ENV, **CACHE_KEY_LOGS), runs=2, dump_per_run=True, detail=True,
    run_env={2: {"XLA_FLAGS": "--xla_cpu_enable_fast_min_max=true --xla_dump_to=dump"}},
    recompiled=[], cause=None, cache_miss={"identity": "jit_train_step", "reason": "key_changed_outside_graph",
                                           "changed": "XLA_FLAGS: --xla_cpu_enable_fast_min_max=true added in run 2 "
                                                      "(JAX hashes XLA_FLAGS, less the dump flags, into the cache key)"},
    description=(
    "Two runs of one program sharing a persistent compilation cache in cache/ (min compile time and entry size "
    "0); run 2 adds an XLA flag (XLA_FLAGS=--xla_cpu_enable_fast_min_max=true). The graph is the same (the "
    "dumps before optimisation are alike), but the flag is part of JAX's cache key, so run 2 misses and "
    "compiles. Both runs log the parts of JAX's cache keys as recomp run has them logged (JAX_DEBUG_LOG_MODULES="
    "jax._src.cache_key, JAX_LOGGING_LEVEL=INFO): the hash of each part and each XLA flag JAX includes. Each run "
    "dumps into its own folder (dump1/, dump2/). Nothing recompiled within a run."))
S["cache-never-written"] = dict(program=p_cache_same, runs=2, dump_per_run=True, detail=True,
    env=dict(ENV_LOGS, JAX_COMPILATION_CACHE_DIR="cache", JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS="1.0"),
    recompiled=[], cause=None, cache_miss={"identity": "jit_train_step", "reason": "never_written",
                                           "quote": "Not writing persistent cache entry for 'jit_train_step'"},
    description=(
    "Two runs of one program with a persistent compilation cache in cache/ and JAX's default minimum compile "
    "time for an entry, 1 second (JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS=1.0, stated). The step compiles "
    "in a fraction of that, so run 1 never writes the entry (with JAX_EXPLAIN_CACHE_MISSES=1 JAX says so at "
    "WARNING: 'Not writing persistent cache entry for ... because it took < 1.00 seconds to compile'; without it "
    "at DEBUG) and run 2 misses and compiles again; cache/ stays empty (so it is not in the repository). Each "
    "run dumps into its own folder (dump1/, dump2/). Nothing recompiled within a run."))
S["ranks"] = dict(program=p_ranks, env=ENV_LOGS, ranks=2, detail=True, recompiled=["jit_grad_step"],
    cause="batch_size", description=(
    "Two processes (jax.distributed.initialize on localhost, CPU collectives over gloo where the version has "
    "the option) train data-parallel: each computes its gradient on its own 32-row shard (jit_grad_step) and "
    "multihost_utils.process_allgather averages them. At step 3 rank 1's shard is partial (24 rows), the other "
    "rank's is full: only rank 1 compiles the step again. Each rank writes its own log (rank0.log, rank1.log) "
    "and dump (dump-rank0/, dump-rank1/); ranks.diverged says which rank, step, program and cause."))
S["ranks-job"] = dict(program=p_ranks_job, env=ENV_LOGS, ranks=4, tagged="launcher.txt", detail=True,
    recompiled=["jit_grad_step"], cause="batch_size", description=(
    "Four processes (jax.distributed.initialize on localhost, CPU collectives over gloo) train data-parallel "
    "for 8 steps: each computes its gradient on its own 32-row shard (jit_grad_step) and "
    "multihost_utils.process_allgather averages them. At step 6 rank 2's shard ends ragged (20 rows): only "
    "rank 2 compiles the step again. At step 3 rank 0 alone runs a jitted evaluation (jit_eval_step), a "
    "program no other rank compiles. Each rank writes its own log (rank0.log ... rank3.log) and dump "
    "(dump-rank0/ ...); launcher.txt holds every rank's lines as they arrived, each tagged '[rankI]:' as "
    "torchrun --tee tags a job's console. ranks.diverged says which ranks, steps, programs and causes."))
S["warmup-uncovered"] = dict(program=p_warmup_uncovered, env=ENV_LOGS, detail=True, recompiled=["jit_train_step"],
    cause="batch_size", description=(
    "A warm-up compiles the train step for the batch sizes the loader is said to produce (32, 64, 128, on "
    "zeros) and prints 'warm-up done: ...'; the run-time loop then gets 64, 128, 32, 48 and 64 rows: 48 is a "
    "size the warm-up never compiled, so the step compiles once after warm-up. One log; the marker line ends "
    "the warm-up (uncovered.marker)."))


def skip_reason(spec):
    for dist in spec.get("requires", ()):
        if driver.installed(dist) is None:
            return f"needs {dist}, which is not installed"
    if JAX < spec.get("min_jax", (0,)):
        return f"needs JAX >= {'.'.join(map(str, spec['min_jax']))}"
    return None

S["static-step"] = dict(program=p_static_step, env=ENV_LOGS, recompiled=["jit_train_step"], cause="constant_value",
    reason=["cache miss explanation unavailable", "explanation unavailable!"],
    description=("A train step jitted once, outside the loop, with static_argnums=(2,) on the step counter (a decaying "
                 "learning rate 0.1 / (1 + 0.5 * step) reads it): each of the 24 steps is a new static value, so JAX traces and "
                 "compiles the step 24 times. The argument types never change; JAX's explanation is 'cache miss "
                 "explanation unavailable' (0.4: 'explanation unavailable!'): what differs is outside the parts it "
                 "compares (the static arguments). The graphs differ by the learning rate baked in as a constant."))
S["pytree-key"] = dict(program=p_pytree_key, env=ENV_LOGS, recompiled=["jit_train_step"], cause="graph_structure",
    reason=["{'weights'}", "never seen passing 2 positional args"],  # 0.4 names no key
    description=("A jitted train step on a batch dict {'x', 'y'}; from step 12 of 24 the loader adds a 'weights' "
                 "key (per-row loss weights). A new input pytree: JAX traces and compiles the step again and its "
                 "explanation names the key set difference {'weights'} (JAX 0.4's only says it never saw the call's "
                 "arguments: 'never seen passing 2 positional args'). The graph gains a parameter and the "
                 "weighting ops."))

S["static-anneal"] = dict(program=p_static_anneal, env=ENV_LOGS, probe=True, detail=True, recompiled=["jit_train_step"],
    cause="constant_value", description=(
    "A train step jitted once, outside the loop, with static_argnames=('dropout',), the rate annealed each epoch "
    "(0.1, 0.075, 0.05, 0.025, read as 1 - dropout in the loss); 1000 rows in batches of 128, so each epoch ends "
    "with a 104-row batch. Each new rate is a new trace and compilation of both batch sizes: 8 compilations, the "
    "first 104-row one the batch's, the other 6 the rate's. JAX's explanation names the closest earlier key, whose "
    "input types differ (x now f32[128,16], before f32[104,16]), never the rate. The program runs under recomp's "
    "probe (runner/probe; probe.jsonl), which records the static arguments of each trace. value_causes says which "
    "rates and baked constants (1 - rate) the program fed and how many compilations each cause explains."))

S["nnx-attribute"] = dict(program=p_nnx_attribute, env=ENV_LOGS, probe=True, detail=True, recompiled=["jit_train_step"],
    cause="constant_value", requires=("flax", "optax"), min_jax=(0, 5), description=(
    "A flax nnx classifier trained through nnx.jit; its softmax temperature is a plain Python float attribute "
    "of the module (not an nnx.Variable), set to 2.0, 1.0, 0.5 at the start of each of 3 epochs of 4 batches. "
    "nnx keeps a plain attribute in the module's graph definition, pytree metadata static to the jit: each new "
    "temperature traces and compiles the train step again (3 compilations), the logits divided by it as a "
    "constant. JAX's explanation: a different input pytree at [0][0]._graphdef, 'with pytree metadata' (the "
    "GraphDef, over a hundred lines). Run under recomp's probe (probe.jsonl), which sees no static argument: "
    "value_causes has no static names, the attribute and the values the program set it to (attributes; JAX's "
    "explanation names them in the GraphDef's attribute lists), and the constants the temperatures became."))

S["weak-type"] = dict(program=p_weak_type, env=ENV_LOGS, detail=True, recompiled=["jit_train_step"], cause="identical",
    reason=["weak_type=True", "weak_type"], description=(
    "A momentum train step whose coefficient beta is an argument: a Python float (0.5) in the warm-up epoch, "
    "then np.float32 values from a schedule (epochs 1-3). A Python float is a weakly typed f32[], an np.float32 a "
    "strongly typed one: JAX traces and compiles the step again once (epoch 1) and explains it by beta's weak "
    "type; the two graphs are the same after normalisation. stated says what JAX's explanation names and the "
    "remedy: the same type every call."))
S["pytree-none"] = dict(program=p_pytree_none, env=ENV_LOGS, detail=True, recompiled=["jit_train_step"],
    min_jax=(0, 5),  # JAX 0.4's explanation names no pytree ("never seen passing 2 positional args …")
    cause="graph_structure", reason=["different input pytree", "never seen"], description=(
    "A train step on a batch dict {'x', 'y', 'weight'} whose weight is None for clean batches and a per-row "
    "f32[16] for every third (noisy) batch: a different input pytree, so JAX compiles the step again once (step "
    "2); later batches of either structure are served from its cache. The graph gains a parameter and the "
    "weighting ops. stated says what JAX's explanation names: the pytree at batch['weight']."))
S["growing-cache"] = dict(program=p_growing_cache, env=ENV_LOGS, detail=True, recompiled=["jit_decode_step"],
    cause="batch_size", reason=["at cache, now f32[9,16] and before f32[8,16]", "at cache, seen f32[8,16], but now given f32[9,16]"],
    description=(
    "Greedy decoding, 12 tokens after an 8-row prompt: the jitted decode step appends each token's state to "
    "its key cache with jnp.concatenate and returns it, so the cache argument grows by one row per token "
    "(f32[8,16], f32[9,16], ...) and every token compiles the step again. The fix is a preallocated "
    "max-length cache written in place (lax.dynamic_update_slice) with a position index."))
S["stopped"] = dict(program=p_stopped, env={}, recomp_run={"flags": ["--fail-on-recompile"], "exit": 4},
    min_jax=(0, 5), recompiled=["jit_train_step"], cause="batch_size",
    reason=["at x, now f32[384,1024] and before f32[512,1024]"], description=(
    "A training loop over 1 408 rows in batches of 512 (512, 512, then the 384-row remainder: the step "
    "compiles again), for 200 epochs, run as a user runs it under `recomp run --fail-on-recompile`: recomp "
    "run makes the run folder (run.log, manifest.json, probe.jsonl, dump/) and stops the program at its "
    "compilation after warm-up (SIGINT). Python's KeyboardInterrupt traceback, printed after the stop, runs "
    "through JAX's call path (pjit's cache_miss): the program's answer to the stop, not a compile record. "
    "stopped says where the interrupt found the program, by the program's own record."))
S["logs-off"] = dict(PARTIAL, env={"JAX_LOG_COMPILES": "0", "JAX_EXPLAIN_CACHE_MISSES": "1"}, probe=True, stamped=True,
    min_jax=(0, 5),  # JAX 0.4's probe records name no program: they cannot stand in for the silent log
    silenced={"setting": "JAX_LOG_COMPILES=0", "evidence": ["probe.jsonl", "dump"]}, description=(
    "The partial-batch program (32, 32, 32, then the 24-row remainder: the step compiles again) run as recomp run "
    "runs it, under its probe (probe.jsonl), each line of run.log stamped with the time it arrived as recomp run "
    "stamps it, with the user's own JAX_LOG_COMPILES=0, which recomp run keeps: JAX "
    "logs no line for any compilation, only its tracing-cache-miss explanation (JAX_EXPLAIN_CACHE_MISSES=1, which "
    "recomp run sets). The probe's compile records (jax.monitoring) and the dump hold both compilations of the "
    "step: silenced says the log alone is no evidence and where the evidence is."))
S["logs-off-fixed"] = dict(S["logs-off"], program=p_fixed_eager, recompiled=[], cause=None, reason=None,
    description=("The fixed training loop (every batch padded to 32: the step compiles once), after some array "
                 "work outside jit that JAX compiles as eager one-op programs, run as logs-off is: under recomp "
                 "run's probe, run.log stamped, with the user's own JAX_LOG_COMPILES=0. Nothing recompiled: the "
                 "probe's records of first compilations are no recompilation."))

# --- the set-up fixture and the evidence hook's judgement ------------------------------------------

def setup(spec):
    """The env truth.json records, in order: the scenario's (JAX_* variables, or what the program sets
    with jax.config.update), then CPU, the dump folder and unbuffered output."""
    env = dict(spec["env"])
    env["JAX_PLATFORMS"] = "cpu"
    if not spec.get("recomp_run"):  # recomp run sets its own logs and its dump into the run folder
        env["XLA_FLAGS"] = " ".join(f for f in (spec.get("xla_flags", ""), "--xla_dump_to=dump") if f)
    env["PYTHONUNBUFFERED"] = "1"
    return env


def _plain(counts):
    """Module names compared without punctuation: JAX 0.12's compile events say "jit(<lambda>)" for
    the module jit__lambda."""
    out = collections.Counter()
    for k, v in counts.items():
        out[re.sub(r"[^A-Za-z0-9]", "", k)] += v
    return out


def _detail(run, recompiled):
    """compile_seconds, compiles and call_sites from the program's record of its calls and JAX's compile
    events (the k-th compilation of a process is the k-th module of its dump folder), then what the
    program recorded of itself (driver.EVIDENCE["truth"]) and, for two runs, why run 2's cache missed."""
    spec, extra = run.spec, collections.OrderedDict()
    compiles, seconds, first = [], 0.0, {}
    if len(set(run.dumps)) != len(run.dumps):
        run.problems.append("detail needs a dump folder per process")
    for log, ev, dump in zip(run.logs, run.evidence, run.dumps):
        real = [i for i, c in enumerate(ev["compiles"]) if not c["hit"]]
        seconds += sum(ev["compiles"][i]["seconds"] for i in real)
        files = run.modules(dump)
        if len(files) != len(real):
            run.problems.append(f"{log}: {len(real)} compilations but {len(files)} modules in {dump}/")
        dump_of = dict(zip(real, files))
        mine = {}
        for call in ev["calls"]:
            if call["hit"]:
                continue
            i = call["event"]
            module = ev["compiles"][i]["module"]
            f, name = dump_of.get(i, (None, None))
            for other in (module, name):
                if other not in (None, "?") and _plain({other: 1}) != _plain({call["identity"]: 1}):
                    run.problems.append(f"{log}: compilation {i} is {other}, the program called {call['identity']}")
            entry = collections.OrderedDict([
                ("identity", call["identity"]), ("log", log), ("dump", f"{dump}/{f}" if f else None),
                ("seconds", round(ev["compiles"][i]["seconds"], 6)), ("call_site", call["site"]),
                ("input", call["input"]), ("causes", call["causes"]), ("against", None), ("changed", call["changed"])])
            if call["against"]:
                earlier = mine.get(call["against"]) or first.get(call["against"])
                if earlier is None:
                    run.problems.append(f"{log}: {call['key']} is compared with {call['against']}, which never compiled")
                else:
                    entry["against"] = earlier["dump"]
            mine.setdefault(call["key"], entry)
            first.setdefault(call["key"], entry)
            compiles.append(entry)
    extra["compile_seconds"] = round(seconds, 6)
    extra["compiles"] = compiles
    sites = collections.OrderedDict()
    for c in compiles:
        if c["identity"] in recompiled and c["causes"] and c["call_site"] not in sites.get(c["identity"], []):
            sites.setdefault(c["identity"], []).append(c["call_site"])
    extra["call_sites"] = sites
    diverged = [d for ev in run.evidence for d in ev["truth"].get("diverged", [])]
    if spec.get("ranks"):
        extra["ranks"] = {"processes": spec["ranks"], "logs": run.logs, "diverged": diverged}
        if spec.get("tagged"):
            extra["ranks"]["tagged"] = spec["tagged"]
    for ev in run.evidence:
        for k, v in ev["truth"].items():
            if k != "diverged":
                extra[k] = v
    if spec.get("cache_miss"):
        extra["cache_miss"] = _cache_miss(run, spec["cache_miss"])
    return extra


def _cache_miss(run, want):
    """Why run 2 missed the persistent cache, checked against what JAX counted and logged."""
    ev1, ev2 = run.evidence[0], run.evidence[1]
    cm = collections.OrderedDict([("log", run.logs[1]), ("identity", want["identity"]), ("reason", want["reason"])])
    if ev2["cache_hits"] or not ev2["cache_requests"]:  # JAX counts a miss only when it writes the entry
        run.problems.append(f"{run.logs[1]}: {ev2['cache_requests']} requests used the cache, "
                            f"{ev2['cache_hits']} were hits: not a miss")
    cache = run.path("cache")
    entries = sorted(os.listdir(cache)) if os.path.isdir(cache) else []
    if want["reason"] == "never_written":
        took = [c["seconds"] for c in ev1["compiles"] if not c["hit"]]
        cm["changed"] = (f"nothing: run 1 compiled {want['identity']} in {took[-1]:.2f} s, under "
                         f"jax_persistent_cache_min_compile_time_secs, so JAX never wrote its entry")
        lines = [ln.strip() for ln in run.texts[0].splitlines() if want["quote"] in ln]
        if not lines:
            run.problems.append(f"{run.logs[0]}: JAX did not say {want['quote']!r}")
        cm["quote"] = lines[0] if lines else None
        cm["quote_log"] = run.logs[0]
        if entries:
            run.problems.append(f"cache/ holds {entries}: the entry was written")
    else:
        cm["changed"] = want["changed"]
        if len([e for e in entries if e.endswith("-cache")]) != 2:
            run.problems.append(f"cache/ holds {entries}, not one entry per run")
    cm["cache_entries"] = len([e for e in entries if e.endswith("-cache")])
    return cm


def judge(run):
    spec, evs = run.spec, run.evidence
    fams = collections.Counter()
    for dump in dict.fromkeys(run.dumps):
        fams.update(run.families(dump=dump))
    for e in evs:
        run.problems += e.get("problems", [])
    backend = sum(e["backend_compile_events"] for e in evs)
    hits = sum(e["cache_hits"] for e in evs)
    causes = spec.get("causes")
    recompiled = spec.get("recompiled")
    if callable(recompiled):
        recompiled = recompiled(fams)
    if causes is not None:
        causes = {k: v for k, v in causes.items() if fams.get(k, 0) > 0}
        recompiled = recompiled or sorted(causes)
    run.problems += [f"{fam} was to recompile but the dump has {fams.get(fam, 0)} module(s)"
                     for fam in recompiled if fams.get(fam, 0) < 2]
    not_recompiled = sorted(f for f, c in fams.items() if c > 1 and f not in recompiled)
    # JAX 0.12 names the module in its compile events: they must agree with the dump
    events = collections.Counter()
    for e in evs:
        events.update(e["by_module"])
    if hits == 0 and "?" not in events and _plain(events) != _plain(fams):
        run.problems.append(f"compile events {dict(events)} disagree with the dump {dict(fams)}")
    description = spec["description"]
    if JAX < (0, 5) and run.name.startswith("logfmt-"):
        description += (" JAX 0.4 also has its own handler on the 'jax' logger ('LEVEL:asctime:logger:lineno: "
                        "message' on stderr), so every JAX record appears twice: once in each format.")
    dumped = sum(fams.values())
    return {
        "description": description,
        "evidence": {"compilations": backend - hits, "cache_hits": hits, "how": HOW},
        "recompiled": recompiled,
        "not_recompiled": not_recompiled,
        "causes": causes,
        "note": "" if dumped == backend - hits else f" (dump holds {dumped} modules)",
        "extra": _extra(run, recompiled),
    }


def _extra(run, recompiled):
    """The fields after the standard ones: detail's, then silenced (a log whose stack's compile logging the
    user switched off: the evidence is elsewhere)."""
    spec = run.spec
    extra = _detail(run, recompiled) if spec.get("detail") else collections.OrderedDict()
    if spec.get("recomp_run"):
        extra["stopped"] = _stopped(run)
    if spec.get("silenced"):
        if any("Finished XLA compilation" in t or "Compiling " in t for t in run.texts):
            run.problems.append("the log holds JAX's compile records: its compile logging was not off")
        extra["silenced"] = spec["silenced"]
    return extra or None


def _stopped(run):
    """Where recomp run's stop found the program, by its own record: the call it was in (its step, what it fed,
    its line), the compilations JAX had finished before it, and the frames of the KeyboardInterrupt's traceback
    in JAX's own code. A stop that did not land in JAX's call path shows nothing and is a problem."""
    ev = run.evidence[0]
    frames = ev.get("interrupted")
    call = ev.get("last_call")
    if not frames or not call:
        run.problems.append("the program was not interrupted: recomp run did not stop it")
        return None
    jax_frames = [f"{f['file'].split('site-packages/')[-1]}:{f['line']} ({f['function']})"
                  for f in frames if "site-packages/jax/" in f["file"]]
    own = [f"{os.path.basename(f['file'])}:{f['line']}" for f in frames if os.path.basename(f["file"]) == os.path.basename(__file__)]
    if not any("pjit.py" in f for f in jax_frames):
        run.problems.append(f"the stop landed outside JAX's call path: {frames[-1]}")
    return collections.OrderedDict([
        ("by", "recomp run --fail-on-recompile"), ("identity", "jit_train_step"), ("step", call["step"]),
        ("epoch", call["epoch"]), ("input", call["input"]), ("call_site", own[-1] if own else None),
        ("compilations", ev["backend_compile_events"]), ("interrupted_in", jax_frames)])


FRAMEWORK = driver.Framework(
    file=__file__, title="JAX", scenarios=S, dists=("jax", "jaxlib", "numpy"),
    matrix=lambda: "jax-%d.%d" % JAX[:2], setup=setup, judge=judge, scrub=("JAX_", "XLA_", "TF_CPP"),
    skip=skip_reason)

if __name__ == "__main__":
    driver.main(FRAMEWORK)
