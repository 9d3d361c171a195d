#!/usr/bin/env python3
"""The TensorFlow 2.21 / Keras 3 matrix (testdata/runs/tf-2.21): real TF programs on CPU, compiled
with XLA (jit_compile=True, Keras jit_compile=True, or auto-clustering), each built to compile
again for one reason (or, for the fixed variants, not to).

    py=$(testdata/runs/gen/venv.sh testdata/runs/gen/tf-2.21.txt)
    $py testdata/runs/gen/tf_runs.py --out testdata/runs/tf-2.21              # all scenarios
    $py testdata/runs/gen/tf_runs.py --out /tmp/runs dtype structure          # some of them

This file holds the scenarios (programs and specs), the evidence hook (tf.function tracing counts
inside the program; outside it, the modules XLA dumped and the device compiler's log lines, counted
per module family) and the set-up fixture (TF's C++ logging and XLA_FLAGS); driver.py runs each
program in a fresh process and writes its run.log, dump/ and truth.json (see README.md).

What makes TF print its compile evidence (recorded per run in truth.json "env"):
  TF_CPP_MIN_LOG_LEVEL=0          keep TF's INFO lines
  TF_CPP_VMODULE=device_compiler=2,device_compilation_profiler=2
                                  per request: "DeviceCompilationClusterSignature: SIG",
                                  "Instantly compiling for signature: SIG" / "Already Compiled for
                                  signature: SIG"; per compilation: "Compiled SIG N times, compile
                                  time: ... us" (N counts the compilations of that signature)
  ...,xla_compiler=2              (some runs) tf2xla's "XlaCompiler::CompileFunction FN[attrs]" and
                                  "XLA arg I shape: f32[28,8]" lines: the argument shapes of each
                                  compilation (level 1 gives only the CompileFunction line)
  XLA_FLAGS=--xla_dump_to=DIR     the HLO modules
Some programs also turn on tf.function's own trace log, tf.get_logger().setLevel(1): every trace
prints "Creating new FuncGraph for Python function ... Input Parameters: ..." (TF's reason for the
new trace) and, at level 2, the call's arguments. TF has no environment variable for that.
"""
import collections
import re

import driver

MATRIX = "tf-2.21"

# The TF C++ logging every run gets; FULL adds tf2xla's argument shapes.
VMODULE_MIN = "device_compiler=2,device_compilation_profiler=2"
VMODULE_FULL = VMODULE_MIN + ",xla_compiler=2"

# --- the programs: each runs in a fresh process ----------------------------------------------

# The evidence hook inside the program: what it learns from TF itself (tracing counts) goes to
# driver.EVIDENCE, which the driver writes when the program ends.


def _tf(trace_log=False):
    import tensorflow as tf
    if trace_log:
        tf.get_logger().setLevel(1)  # tf.function's "Creating new FuncGraph ..." trace log
    return tf


def _traced(name, fn):
    driver.EVIDENCE.setdefault("tracing_count", {})[name] = fn.experimental_get_tracing_count()


def varying_shapes():
    import numpy as np
    tf = _tf()

    @tf.function(jit_compile=True)
    def train_step(x):
        return tf.reduce_sum(tf.tanh(tf.matmul(x, tf.ones((8, 4)))))

    for batch in (32, 32, 28, 24, 20, 16, 12):
        train_step(tf.constant(np.ones((batch, 8), np.float32)))
    _traced("train_step", train_step)


def python_scalar():
    import numpy as np
    tf = _tf(trace_log=True)

    @tf.function(jit_compile=True)
    def train_step(x, lr):
        return x - lr * tf.tanh(x)

    x = tf.constant(np.ones((4, 8), np.float32))
    for lr in (0.1, 0.1, 0.09, 0.081, 0.0729, 0.06561, 0.059049):
        x = train_step(x, lr)
    _traced("train_step", train_step)


def fixed():
    import numpy as np
    tf = _tf()

    @tf.function(jit_compile=True, reduce_retracing=True,
                 input_signature=[tf.TensorSpec([32, 8], tf.float32), tf.TensorSpec([], tf.float32)])
    def train_step(x, lr):
        return tf.reduce_sum(x - lr * tf.tanh(x))

    for batch, lr in ((32, 0.1), (32, 0.09), (24, 0.081), (32, 0.0729)):
        x = np.ones((batch, 8), np.float32)
        x = np.pad(x, ((0, 32 - batch), (0, 0)))  # pad the partial batch
        train_step(tf.constant(x), tf.constant(lr, tf.float32))
    _traced("train_step", train_step)


def _keras_model(tf, keras):
    keras.utils.set_random_seed(0)
    model = keras.Sequential([keras.Input((8,)), keras.layers.Dense(16, activation="relu"),
                              keras.layers.Dense(1)])
    model.compile(optimizer="sgd", loss="mse", jit_compile=True)
    return model


def _keras_data(np):
    rng = np.random.default_rng(0)
    x = rng.random((100, 8), np.float32)   # 100 = 3 batches of 32 + 4
    y = rng.random((100, 1), np.float32)
    xv = rng.random((40, 8), np.float32)   # 40 = 32 + 8
    yv = rng.random((40, 1), np.float32)
    return x, y, xv, yv


def keras_fit_partial_batch():
    import numpy as np
    tf = _tf()
    import keras
    model = _keras_model(tf, keras)
    x, y, xv, yv = _keras_data(np)
    model.fit(x, y, batch_size=32, epochs=2, validation_data=(xv, yv), verbose=2)


def keras_fit_fixed():
    import numpy as np
    tf = _tf()
    import keras
    model = _keras_model(tf, keras)
    x, y, xv, yv = _keras_data(np)
    train = tf.data.Dataset.from_tensor_slices((x, y)).batch(32, drop_remainder=True)
    val = tf.data.Dataset.from_tensor_slices((xv, yv)).batch(32, drop_remainder=True)
    model.fit(train, epochs=2, validation_data=val, verbose=2)


def keras_predict_shapes():
    import numpy as np
    tf = _tf()
    import keras
    keras.utils.set_random_seed(0)
    model = keras.Sequential([keras.Input((None, 4)), keras.layers.Dense(8, activation="relu"),
                              keras.layers.GlobalAveragePooling1D(), keras.layers.Dense(1)])
    model.compile(loss="mse", jit_compile=True)
    rng = np.random.default_rng(0)
    for steps in (10, 10, 16):  # sequences of 10 steps, then of 16: the batch stays 32
        model.predict(rng.random((32, steps, 4), np.float32), batch_size=32, verbose=0)


def _tf_functions(tf, fn, seen=None):
    """The tf.functions a Keras step function calls: found in its closure (Keras keeps its
    one_step_on_data tf.function there)."""
    seen = set() if seen is None else seen
    if id(fn) in seen:
        return []
    seen.add(id(fn))
    out = []
    if isinstance(fn, tf.types.experimental.PolymorphicFunction):
        out.append(fn)
        fn = fn.python_function
    for cell in getattr(fn, "__closure__", None) or ():
        try:
            value = cell.cell_contents
        except ValueError:
            continue
        if callable(value):
            out += _tf_functions(tf, value, seen)
    if getattr(fn, "__wrapped__", None) is not None:
        out += _tf_functions(tf, fn.__wrapped__, seen)
    return out


def keras_fit_validation():
    import numpy as np
    tf = _tf()
    import keras
    model = _keras_model(tf, keras)
    rng = np.random.default_rng(1)
    x, y = rng.random((72, 8), np.float32), rng.random((72, 1), np.float32)    # 72 = 4 batches of 16 + 8
    xv, yv = rng.random((36, 8), np.float32), rng.random((36, 1), np.float32)  # 36 = 2 batches of 16 + 4
    model.fit(x, y, batch_size=16, epochs=2, validation_data=(xv, yv), verbose=2)
    # which traced function is the train step and which the validation (test) step, from TF itself
    roles = {}
    for role, fn, rows in (("train", model.train_function, 72), ("validation", model.test_function, 36)):
        steps = [f for f in _tf_functions(tf, fn) if f.__name__ == "one_step_on_data"]
        roles[role] = {"functions": sorted(c.name.decode() for f in steps for c in f._list_all_concrete_functions()),
                       "tracing_count": sum(f.experimental_get_tracing_count() for f in steps),
                       "batches": [16] + ([rows % 16] if rows % 16 else [])}
    driver.EVIDENCE["roles"] = roles


def dtype():
    import numpy as np
    tf = _tf(trace_log=True)

    @tf.function(jit_compile=True)
    def forward(w, x):
        return tf.reduce_sum(tf.tanh(tf.matmul(x, w)))

    w = np.ones((8, 4), np.float32)
    x = np.ones((4, 8), np.float32)
    forward(tf.constant(w), tf.constant(x))
    forward(tf.constant(w), tf.constant(x))
    # mixed precision switched on part-way
    forward(tf.constant(w, tf.float16), tf.constant(x, tf.float16))
    _traced("forward", forward)


def structure():
    import numpy as np
    tf = _tf(trace_log=True)
    w = tf.constant(np.ones((8, 4), np.float32))

    @tf.function(jit_compile=True)
    def forward(x, training):
        h = tf.tanh(tf.matmul(x, w))
        if training:  # a Python bool: each value is its own graph; True adds dropout
            h = tf.nn.dropout(h, rate=0.5, seed=1)
        return tf.reduce_sum(h)

    x = tf.constant(np.ones((4, 8), np.float32))
    for training in (True, True, False, False):
        forward(x, training)
    _traced("forward", forward)


LOG_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


def logfmt():
    import logging
    logging.basicConfig(format=LOG_FORMAT, level=logging.INFO)  # before TF: TF adds no handler
    log = logging.getLogger("train")
    import numpy as np
    tf = _tf(trace_log=True)
    for h in tf.get_logger().handlers:  # TF's own handler, where it added one, gets the format too
        h.setFormatter(logging.Formatter(LOG_FORMAT))

    @tf.function(jit_compile=True)
    def train_step(x):
        return tf.reduce_sum(tf.tanh(tf.matmul(x, tf.ones((8, 4)))))

    for step, batch in enumerate((32, 32, 28, 24, 20, 16, 12)):
        log.info("step %d: batch of %d", step, batch)
        train_step(tf.constant(np.ones((batch, 8), np.float32)))
    _traced("train_step", train_step)


def autoclustering():
    import numpy as np
    tf = _tf()
    w = tf.constant(np.ones((8, 4), np.float32))

    # A plain graph function (no jit_compile); TF_XLA_FLAGS=--tf_xla_auto_jit=2 clusters it. The
    # input_signature keeps it to one trace, so one cluster, which XLA compiles per batch size.
    @tf.function(input_signature=[tf.TensorSpec([None, 8], tf.float32)])
    def step(x):
        h = tf.tanh(tf.matmul(x, w))
        return tf.reduce_sum(h * h + 1.0)

    # After its first compilation the cluster compiles a new shape lazily: the first call of a new
    # shape runs without XLA ("Not compiling cluster ... has not reached compile threshold"); the
    # second compiles it.
    for batch in (32, 32, 24, 24, 24, 16, 16, 16):
        step(tf.constant(np.ones((batch, 8), np.float32)))
    _traced("step", step)


def autoclustering_retrace():
    import numpy as np
    tf = _tf()
    w = tf.constant(np.ones((8, 4), np.float32))

    # The same graph function without an input_signature: every new batch size retraces, and each
    # trace is clustered anew, so the one program gets a new cluster number each time.
    @tf.function
    def step(x):
        h = tf.tanh(tf.matmul(x, w))
        return tf.reduce_sum(h * h + 1.0)

    for batch in (32, 32, 24, 16):
        step(tf.constant(np.ones((batch, 8), np.float32)))
    _traced("step", step)



# --- Keras's steps by loop (issue 30): predict's and evaluate's last batch, evaluate at another batch
# size than fit's, and tf.data padded_batch sequence lengths ----------------------------------------

def _keras_roles(tf, model, roles):
    """Which traced one_step_on_data functions are which Keras step, found by the program in
    model.train_function / test_function / predict_function (TF itself), with the inputs it fed
    each (in order) and the cause each new input brings."""
    out = {}
    for role, attr, inputs, cause in roles:
        steps = [f for f in _tf_functions(tf, getattr(model, attr)) if f.__name__ == "one_step_on_data"]
        out[role] = {"functions": sorted({c.name.decode() for f in steps for c in f._list_all_concrete_functions()}),
                     "tracing_count": sum(f.experimental_get_tracing_count() for f in steps),
                     "inputs": inputs, "cause": cause}
    driver.EVIDENCE["roles"] = out


def _keras_dense(keras, n_in=6, n_out=3):
    keras.utils.set_random_seed(0)
    model = keras.Sequential([keras.Input((n_in,)), keras.layers.Dense(12, activation="relu"),
                              keras.layers.Dense(n_out)])
    model.compile(optimizer="adam", loss="mse", jit_compile=True)
    return model


def keras_predict_tail():
    import numpy as np
    tf = _tf()
    import keras
    model = _keras_dense(keras)
    rng = np.random.default_rng(2)
    x, y = rng.random((256, 6), np.float32), rng.random((256, 3), np.float32)   # 256 = 4 batches of 64
    model.fit(x, y, batch_size=64, epochs=1, verbose=0)
    model.predict(rng.random((488, 6), np.float32), batch_size=256, verbose=0)  # 488 = 256 + 232
    _keras_roles(tf, model, (("train", "train_function", ["64 rows"], "batch_size"),
                             ("predict", "predict_function", ["256 rows", "232 rows"], "batch_size")))


def keras_evaluate_tail():
    import numpy as np
    tf = _tf()
    import keras
    model = _keras_dense(keras)
    rng = np.random.default_rng(3)
    x, y = rng.random((256, 6), np.float32), rng.random((256, 3), np.float32)   # 256 = 4 batches of 64
    model.fit(x, y, batch_size=64, epochs=1, verbose=0)
    xe, ye = rng.random((100, 6), np.float32), rng.random((100, 3), np.float32)  # 100 = 64 + 36
    model.evaluate(xe, ye, batch_size=64, verbose=0)
    _keras_roles(tf, model, (("train", "train_function", ["64 rows"], "batch_size"),
                             ("evaluate", "test_function", ["64 rows", "36 rows"], "batch_size")))


def keras_bars():
    import numpy as np
    tf = _tf()
    import keras
    model = _keras_dense(keras)
    rng = np.random.default_rng(6)
    x, y = rng.random((150, 6), np.float32), rng.random((150, 3), np.float32)   # 150 = 4 batches of 32 + 22
    xv, yv = rng.random((50, 6), np.float32), rng.random((50, 3), np.float32)   # 50 = 32 + 18
    # Keras's own progress output (verbose left at its default): its bars, redrawn with \b and \r
    model.fit(x, y, batch_size=32, epochs=3, validation_data=(xv, yv))
    model.evaluate(xv, yv, batch_size=20)                                       # 50 = 2 batches of 20 + 10
    model.predict(rng.random((70, 6), np.float32), batch_size=32)               # 70 = 2 batches of 32 + 6
    _keras_roles(tf, model, (("train", "train_function", ["32 rows", "22 rows"], "batch_size"),
                             ("validation", "test_function", ["32 rows", "18 rows", "20 rows", "10 rows"], "batch_size"),
                             ("predict", "predict_function", ["32 rows", "6 rows"], "batch_size")))


def keras_evaluate_batch():
    import numpy as np
    tf = _tf()
    import keras
    model = _keras_dense(keras)
    rng = np.random.default_rng(4)
    x, y = rng.random((256, 6), np.float32), rng.random((256, 3), np.float32)   # 256 = 4 batches of 64
    xv, yv = rng.random((128, 6), np.float32), rng.random((128, 3), np.float32)  # 128 = 2 batches of 64
    model.fit(x, y, batch_size=64, epochs=1, validation_data=(xv, yv), verbose=0)
    model.evaluate(xv, yv, batch_size=32, verbose=0)  # another batch size than fit's: 4 batches of 32
    _keras_roles(tf, model, (("train", "train_function", ["64 rows"], "batch_size"),
                             ("evaluate", "test_function", ["64 rows", "32 rows"], "batch_size")))


# The sequence lengths of keras-padded-batch's six batches of 16 (each padded to its longest).
PADDED_MAX = (24, 31, 27, 40, 24, 33)


def _sequences(np, maxima, per_batch=16):
    rng = np.random.default_rng(5)
    seqs = []
    for top in maxima:
        lengths = rng.integers(8, top, per_batch)
        lengths[rng.integers(0, per_batch)] = top  # one sequence of the batch is the longest
        seqs += [rng.random((int(n), 4), np.float32) for n in lengths]
    return seqs


def keras_padded_batch():
    import numpy as np
    tf = _tf()
    import keras
    keras.utils.set_random_seed(0)
    model = keras.Sequential([keras.Input((None, 4)), keras.layers.Dense(8, activation="relu"),
                              keras.layers.GlobalAveragePooling1D(), keras.layers.Dense(1)])
    model.compile(optimizer="sgd", loss="mse", jit_compile=True)
    seqs = _sequences(np, PADDED_MAX)
    ds = tf.data.Dataset.from_generator(
        lambda: ((s, np.ones((1,), np.float32)) for s in seqs),
        output_signature=(tf.TensorSpec((None, 4), tf.float32), tf.TensorSpec((1,), tf.float32)))
    model.fit(ds.padded_batch(16), epochs=1, verbose=0)  # each batch padded to its own longest sequence
    driver.EVIDENCE["lengths"] = [int(x.shape[1]) for x, _ in ds.padded_batch(16)]  # what TF fed, batch by batch
    seen = []
    for n in PADDED_MAX:
        if n not in seen:
            seen.append(n)
    _keras_roles(tf, model, (("train", "train_function", [f"16x{n}x4" for n in seen], "input_shape"),))


def padded_batch_loop():
    import numpy as np
    tf = _tf()
    seqs = _sequences(np, PADDED_MAX)
    ds = tf.data.Dataset.from_generator(
        lambda: iter(seqs), output_signature=tf.TensorSpec((None, 4), tf.float32)).padded_batch(16)
    w = tf.Variable(tf.ones((4, 4)))

    # The input_signature leaves the batch and the length None: one trace, and still one XLA
    # compilation per shape under jit_compile.
    @tf.function(jit_compile=True, input_signature=[tf.TensorSpec([None, None, 4], tf.float32)])
    def train_step(x):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.tanh(tf.matmul(x, w)) ** 2)
        w.assign_sub(0.1 * tape.gradient(loss, w))
        return loss

    lengths = []
    for x in ds:  # each batch padded to its own longest sequence: 24, 31, 27, 40, 24, 33 steps
        train_step(x)
        lengths.append(int(x.shape[1]))
    driver.EVIDENCE["lengths"] = lengths
    _traced("train_step", train_step)

def python_arg():
    """A softmax temperature annealed each epoch, passed to a tf.function(jit_compile=True) as a
    Python float: each new value is a new trace (the value is part of the trace key) and a new XLA
    compilation, with the value baked in as a constant. Run under recomp run's probe, which records
    the Python arguments of each trace."""
    tf = _tf()
    w = tf.Variable(tf.ones([8, 4]) * 0.1)

    @tf.function(jit_compile=True)
    def train_step(x, temperature):
        with tf.GradientTape() as tape:
            loss = -tf.reduce_mean(tf.nn.log_softmax(tf.matmul(x, w) / temperature))
        w.assign_sub(0.1 * tape.gradient(loss, w))
        return loss

    x = tf.ones([16, 8])
    temps = [2.0, 1.0, 0.5]
    for t in temps:  # an epoch of 3 steps at each temperature
        for _ in range(3):
            train_step(x, t)
    _traced("train_step", train_step)
    driver.EVIDENCE["value_causes"] = [{
        "identity": "__inference_train_step_N", "static": {"temperature": [repr(t) for t in temps]},
        "baked": [repr(t) for t in temps], "compilations": len(temps) - 1, "then": {},
        # without the probe, neither the log nor the dump names the argument: the dump shows the
        # constant the value became
        "without_probe": "constant_value"}]


def python_list():
    """A scoring job: each request's candidate ids reach a tf.function(jit_compile=True) scorer as a Python
    list, 2, 3, then 4 ids. A list of Python ints is part of the trace key as a whole (each list a new trace,
    its ids baked in as a constant); passing it as tf.constant(ids) would still compile once per length.
    Run under recomp run's probe, which records each trace's Python arguments."""
    tf = _tf()
    table = tf.Variable(tf.reshape(tf.range(64, dtype=tf.float32), [16, 4]) * 0.01)
    query = tf.ones([4])

    @tf.function(jit_compile=True)
    def score(ids):
        return tf.linalg.matvec(tf.gather(table, ids), query)

    requests = [[3, 1], [4, 1, 5], [9, 2, 6, 5]]
    for ids in requests:  # each request scored twice (a retry): the second call reuses the trace
        for _ in range(2):
            score(ids)
    _traced("score", score)
    driver.EVIDENCE["value_causes"] = [{
        "identity": "__inference_score_N", "static": {"ids": [repr(ids) for ids in requests]},
        # without the probe, the dump holds the ids as an array constant whose length changes
        "baked": [repr(ids) for ids in requests], "compilations": len(requests) - 1, "then": {},
        "sequence": True, "without_probe": "constant_value"}]


# --- what each scenario is, and what it must show ----------------------------------------------

def _s(program, description, *, vmodule=VMODULE_FULL, env=None, recompiled=(), not_recompiled=(),
       cause=None, reason=None, compilations, cluster_numbers_are_traces=False, detail=False, probe=False):
    """A scenario's spec: its description's whitespace folded, "compilations" the XLA compilations it
    is built for, "vmodule" its TF_CPP_VMODULE."""
    return dict(program=program, description=" ".join(description.split()), vmodule=vmodule, env=env or {},
                recompiled=list(recompiled), not_recompiled=list(not_recompiled), cause=cause, reason=reason,
                compilations=compilations, cluster_numbers_are_traces=cluster_numbers_are_traces, detail=detail, probe=probe)


# recompiled / not_recompiled name the Python-side identity; the generator finds its module family
# in the dump: a tf.function name F is the family containing "inference_F_N", anything else a family
# prefix (auto-clustering's cluster_0).
SCENARIOS = {
    "varying-shapes": _s(varying_shapes, """
        tf.function(jit_compile=True) fed batches of a different size each call (32, 32, 28, 24, 20,
        16, 12): every new shape retraces (a new __inference_train_step_N) and XLA compiles it
        again; from the fifth trace on, TF warns about frequent retracing.""",
        vmodule=VMODULE_MIN, recompiled=["train_step"], cause="batch_size", compilations=6),
    "python-scalar": _s(python_scalar, """
        A Python float (the learning rate, decayed every step) passed to a tf.function(jit_compile=True):
        each new value is part of the trace signature, retraces, and is baked into the graph as a
        constant, so XLA compiles again for every value. The program turns on tf.function's trace log
        (tf.get_logger().setLevel(1)), which prints the Input Parameters of each new trace
        (lr ... Literal[0.09]).""",
        recompiled=["train_step"], cause="constant_value",
        reason="lr (POSITIONAL_OR_KEYWORD): Literal[0.09]", compilations=6),
    "fixed": _s(fixed, """
        The fixed variant of varying-shapes and python-scalar: an input_signature with the batch size
        fixed at 32 (the partial batch padded) and the learning rate passed as a tensor. One trace,
        one compilation; the later calls are served by the device compiler's in-memory cache
        ("Already Compiled for signature").""",
        vmodule=VMODULE_MIN, compilations=1),
    "keras-fit-partial-batch": _s(keras_fit_partial_batch, """
        Keras 3 (TF backend) model.compile(jit_compile=True) and model.fit on 100 samples with
        batch_size=32 and validation_data of 40 samples, 2 epochs, verbose=2. Keras wraps both its
        train step and its test step in a tf.function named one_step_on_data (reduce_retracing=True,
        jit_compile=True): each is traced once with a None batch dimension, and XLA compiles each
        signature once per concrete batch size: train 32 then 4 (the last batch of the epoch), test
        32 then 8. Epoch 2 compiles nothing. The train and the test function share one module family
        (a_inference_one_step_on_data_N__, distinct function numbers), and their modules carry no
        XlaMustCompile attribute.""",
        recompiled=["one_step_on_data"], cause="batch_size", compilations=4),
    "keras-fit-fixed": _s(keras_fit_fixed, """
        keras-fit-partial-batch fixed: the same model and data as tf.data datasets batched with
        drop_remainder=True (3 train batches of 32, 1 validation batch of 32), 2 epochs. The train
        function and the test function are compiled once each and never again; they share the module
        family a_inference_one_step_on_data_N__ (Keras names both one_step_on_data), so the family
        has two dumps without any recompilation.""",
        not_recompiled=["one_step_on_data"], compilations=2),
    "keras-predict-shapes": _s(keras_predict_shapes, """
        Keras 3 model.compile(jit_compile=True) and model.predict, batch 32 each time, on sequences
        of 10 steps (twice) and then of 16 steps: the predict function (Keras names it
        one_step_on_data) is traced again for the new sequence length and XLA compiles it again;
        the batch dimension does not change.""",
        recompiled=["one_step_on_data"], cause="input_shape", compilations=2),
    "keras-fit-validation": _s(keras_fit_validation, """
        Keras 3 model.compile(jit_compile=True) and model.fit on 72 samples with batch_size=16 and
        validation_data of 36 samples, 2 epochs: the train step compiles for 16 rows and for the 8-row
        last batch, the validation step for 16 and for its 4-row last batch. Both are one_step_on_data
        (one module family); roles says which traced function, and so which dumps, are the train step
        and which the validation step, as the program found them in model.train_function and
        model.test_function.""",
        recompiled=["one_step_on_data"], cause="batch_size", compilations=4, detail=True),
    "dtype": _s(dtype, """
        A tf.function(jit_compile=True) called with float32 tensors (twice) and then with float16
        tensors (mixed precision switched on part-way): a new trace and a new XLA compilation for the
        new dtype. The program turns on tf.function's trace log (tf.get_logger().setLevel(1)).""",
        recompiled=["forward"], cause="dtype", reason="dtype=tf.float16", compilations=2),
    "structure": _s(structure, """
        A tf.function(jit_compile=True) with a Python bool argument training: True adds dropout to the
        graph, False does not. Called with True, True, False, False: two traces, two different graphs,
        two XLA compilations. The program turns on tf.function's trace log
        (tf.get_logger().setLevel(1)).""",
        recompiled=["forward"], cause="graph_structure",
        reason="training (POSITIONAL_OR_KEYWORD): Literal[False]", compilations=2),
    "logfmt": _s(logfmt, """
        The varying-shapes program in an application that configures Python logging itself:
        logging.basicConfig(format='%(asctime)s %(levelname)s %(name)s: %(message)s', level=INFO)
        before TF is imported (so TF's Python-side lines, the retracing warning and the trace log
        turned on with tf.get_logger().setLevel(1), come out in that format, with the app's own
        'train' logger lines between them). TF's C++ lines keep their absl format.""",
        vmodule=VMODULE_MIN, recompiled=["train_step"], cause="batch_size", compilations=6),
    "autoclustering": _s(autoclustering, """
        No jit_compile: a plain tf.function graph with input_signature [None, 8], auto-clustered by
        TF_XLA_FLAGS='--tf_xla_auto_jit=2 --tf_xla_cpu_global_jit'. One trace, one cluster
        (cluster_0), which the device compiler compiles once per batch size: 32, 24, 16, each new
        size on its second call (the first runs without XLA: lazy compilation's threshold).""",
        env={"TF_XLA_FLAGS": "--tf_xla_auto_jit=2 --tf_xla_cpu_global_jit"},
        recompiled=["cluster_0"], cause="batch_size", compilations=3),
    "autoclustering-retrace": _s(autoclustering_retrace, """
        The autoclustering program without an input_signature, fed batches of 32, 32, 24 and 16 under
        TF_XLA_FLAGS='--tf_xla_auto_jit=2 --tf_xla_cpu_global_jit': every new batch size retraces the
        function, auto-clustering runs on each new graph, and the one program is compiled as
        cluster_0, cluster_1 and cluster_2 (the cluster number is a per-process counter, like TF's
        function number). recompiled names it with the cluster number replaced by N, the way TF's
        function numbers are; hlo.Family keeps cluster numbers, so its families here are three
        families of one dump each.""",
        env={"TF_XLA_FLAGS": "--tf_xla_auto_jit=2 --tf_xla_cpu_global_jit"},
        recompiled=["cluster_N"], cause="batch_size", compilations=3, cluster_numbers_are_traces=True),
    "keras-predict-tail": _s(keras_predict_tail, """
        Keras 3 model.compile(jit_compile=True), fit on 256 samples with batch_size=64 (no partial batch),
        then model.predict on 488 samples with batch_size=256: 256 rows, then a last batch of 232. Keras
        traces its predict step (one_step_on_data inside a reduce_retracing tf.function) for 256 rows and,
        for the 232-row batch, again with a None batch dimension: two traced functions of one step, each
        compiled once; the predict step compiled twice, for 256 and 232 rows. roles says which traced
        functions are the train and the predict step (from model.train_function and
        model.predict_function).""",
        recompiled=["one_step_on_data"], cause="batch_size", compilations=3, detail=True),
    "keras-bars": _s(keras_bars, """
        Keras 3 model.compile(jit_compile=True) with Keras's own progress output left on (verbose at its
        default: bars redrawn with backspaces and carriage returns, into the pipe too): fit on 150
        samples with batch_size=32 and validation_data of 50, 3 epochs (train 32 and 22 rows,
        validation 32 and 18, in epoch 1); then evaluate on the 50 with batch_size=20 (20 and 10 rows,
        the test step again) and predict on 70 with batch_size=32 (32 and 6 rows), each with its bar.
        The log alone tells the steps by those lines: roles says which traced functions are the train,
        the test (validation, then evaluate) and the predict step.""",
        recompiled=["one_step_on_data"], cause="batch_size", compilations=8, detail=True),
    "keras-evaluate-tail": _s(keras_evaluate_tail, """
        Keras 3 model.compile(jit_compile=True), fit on 256 samples with batch_size=64 (no partial batch, no
        validation), then model.evaluate on a 100-sample evaluation set with batch_size=64: the test step
        compiles for 64 rows and for the 36-row last batch. The evaluation set must not be cut (dropping
        its remainder changes the metric): a batch size that divides 100, or padding with zero sample
        weights.""",
        recompiled=["one_step_on_data"], cause="batch_size", compilations=3, detail=True),
    "keras-evaluate-batch": _s(keras_evaluate_batch, """
        Keras 3 model.compile(jit_compile=True), fit on 256 samples with batch_size=64 and validation_data of
        128 samples (two batches of 64), then model.evaluate on the same 128 samples with batch_size=32:
        the test step (fit's validation and evaluate share it) compiled for 64 rows in fit compiles again
        for 32 rows: another batch size than fit's, not a partial batch.""",
        recompiled=["one_step_on_data"], cause="batch_size", compilations=3, detail=True),
    "keras-padded-batch": _s(keras_padded_batch, """
        Keras 3 model.compile(jit_compile=True) and fit on a tf.data dataset of 96 sequences of 4 features
        and 8 to 40 steps, padded_batch(16) with no padded_shapes: each batch is padded to its own longest
        sequence (24, 31, 27, 40, 24, 33 steps). Keras traces its train step once with None dimensions,
        and XLA compiles it for each new length: 5 compilations for 6 batches. Fixed lengths
        (padded_shapes) or bucket_by_sequence_length with fixed boundaries (pad_to_bucket_boundary=True)
        compile once per length.""",
        recompiled=["one_step_on_data"], cause="input_shape", compilations=5, detail=True),
    "padded-batch-loop": _s(padded_batch_loop, """
        A custom training loop: tf.function(jit_compile=True) with an input_signature of [None, None, 4]
        fed a tf.data dataset of sequences of 8 to 40 steps through padded_batch(16) with no padded_shapes:
        each batch is padded to its own longest sequence (24, 31, 27, 40, 24, 33 steps). One trace, and XLA
        compiles it for each new length (under jit_compile the None in the signature does not spare a
        compilation per shape): 5 compilations for 6 batches.""",
        recompiled=["train_step"], cause="input_shape", compilations=5),
    "python-arg": _s(python_arg, """
        A softmax temperature (2.0, 1.0, 0.5, annealed each epoch) passed to a
        tf.function(jit_compile=True) as a Python float: each value is part of the trace key, so it
        traces again and XLA compiles again, the value baked in as a constant. Run under recomp run's
        probe (probe.jsonl), which records each trace's Python arguments: recomp names the argument
        and its values.""",
        vmodule=VMODULE_MIN, recompiled=["train_step"], cause="constant_value", compilations=3, probe=True),
    "python-list": _s(python_list, """
        A scoring job passes each request's candidate ids (2, 3, then 4 of them) to a
        tf.function(jit_compile=True) scorer as a Python list: the list is part of the trace key, so
        each request traces and XLA compiles again, its ids baked in as a constant. tf.constant(ids)
        would still compile once per length under jit_compile; the fix is padding the ids to a few
        fixed lengths with a mask (a tf.TensorSpec([None]) input_signature, or buckets). Run under
        recomp run's probe (probe.jsonl), which records each trace's Python arguments.""",
        vmodule=VMODULE_MIN, recompiled=["score"], cause="constant_value", compilations=3, probe=True),
}

# --- module families, as recomp's hlo.Family names them ---------------------------------------

_COUNTER = re.compile(r"(\.\d+)+$")
_TF_FUNCTION_ID = re.compile(r"(inference_[A-Za-z0-9_]*?)_\d+(__|$)")


def family(module):
    """XLA's '.N' uniquifiers stripped, and TF's function number after 'inference_<name>_'
    replaced by N (testdata: hlo/family.go)."""
    f = _COUNTER.sub("", module)
    if "inference_" in f:
        f = _TF_FUNCTION_ID.sub(r"\1_N\2", f)
    return f or module


# The device compiler's lines (TF_CPP_VMODULE=device_compiler=2,device_compilation_profiler=2).
_INSTANTLY = re.compile(r"device_compiler\.h:\d+\] Instantly compiling for signature: (\S+)")
_ALREADY = re.compile(r"device_compiler\.h:\d+\] Already Compiled for signature: (\S+)")
_PROFILED = re.compile(r"device_compilation_profiler\.cc:\d+\] Compiled (\S+) (\d+) times, compile time")
_PROFILED_TIME = re.compile(r"device_compilation_profiler\.cc:\d+\] Compiled (\S+) (\d+) times, compile time: (\d+) us")
_RETRACE = re.compile(r"(\d+) out of the last (\d+) calls to (.+?) triggered tf\.function retracing")
_NEW_FUNCGRAPH = re.compile(r"Creating new FuncGraph for Python function")


def count_evidence(text, modules):
    instantly = collections.Counter(_INSTANTLY.findall(text))
    profiled = {}
    for sig, n in _PROFILED.findall(text):
        profiled[sig] = max(profiled.get(sig, 0), int(n))
    return {
        "dumped": len(modules),
        "per_family": collections.Counter(family(m) for _, m in modules),
        "instantly": instantly,
        "already": len(_ALREADY.findall(text)),
        "profiled": profiled,
        "retrace_warnings": len(_RETRACE.findall(text)),
        "new_funcgraphs": len(_NEW_FUNCGRAPH.findall(text)),
    }


def resolve(identity, families):
    """The module family of a Python-side identity (see SCENARIOS)."""
    hits = [f for f in families if re.search(rf"inference_{re.escape(identity)}_N(__|$)", f)]
    if not hits:
        hits = [f for f in families if f == identity or f.startswith(identity + "__")]
    if len(hits) != 1:
        raise SystemExit(f"cannot find the one module family of {identity!r} among {sorted(families)}")
    return hits[0]


# --- the set-up fixture and the evidence hook's judgement ------------------------------------------

def setup(spec):
    """The env truth.json records, in order: TF's C++ logging, the dump folder, unbuffered output, no
    GPU, then the scenario's own (TF_XLA_FLAGS)."""
    env = {
        "TF_CPP_MIN_LOG_LEVEL": "0",
        "TF_CPP_VMODULE": spec["vmodule"],
        "XLA_FLAGS": "--xla_dump_to=dump",
        "PYTHONUNBUFFERED": "1",  # keep print/progress output in order with TF's C++ lines
        "CUDA_VISIBLE_DEVICES": "",
    }
    env.update(spec["env"])
    return env


def judge(run):
    s = run.spec
    facts = run.evidence[0]
    modules = run.modules()
    ev = count_evidence(run.texts[0], modules)
    per_family = ev["per_family"]
    if s["cluster_numbers_are_traces"]:  # one program under several cluster numbers (see its description)
        per_family = collections.Counter(re.sub(r"^cluster_\d+__", "cluster_N__", f) for f in
                                         (family(m) for _, m in modules))
    n_instantly = sum(ev["instantly"].values())
    n_profiled = sum(ev["profiled"].values())
    problems = run.problems
    if ev["dumped"] != s["compilations"]:
        problems.append(f"XLA dumped {ev['dumped']} modules, the scenario is built for {s['compilations']}")
    recompiled = [resolve(i, per_family) for i in s["recompiled"]]
    not_recompiled = [resolve(i, per_family) for i in s["not_recompiled"]]
    for fam in recompiled + not_recompiled:
        if per_family[fam] < 2:
            problems.append(f"{fam} was dumped {per_family[fam]} time(s), not more than once")
    for fam, n in per_family.items():
        if n > 1 and fam not in recompiled + not_recompiled:
            problems.append(f"{fam} was dumped {n} times but the scenario does not say why")

    fams = ", ".join(f"{f}: {n}" for f, n in sorted(ev["per_family"].items()))
    if s["cluster_numbers_are_traces"]:
        fams += " (one program: " + ", ".join(f"{f}: {n}" for f, n in sorted(per_family.items())) + ")"
    agree = n_instantly == ev["dumped"] == n_profiled
    sigs = ", ".join(f"{sig}: {n}" for sig, n in sorted(ev["instantly"].items()))
    how = (f"the before_optimizations modules XLA dumped (XLA_FLAGS=--xla_dump_to), per family: {fams}; "
           f"the device compiler's 'Instantly compiling for signature' lines: {n_instantly} ({sigs}), "
           f"'Already Compiled for signature' (in-memory cache) lines: {ev['already']}, and the "
           f"highest 'Compiled SIG N times' count per signature adds up to {n_profiled}: "
           + ("all agree" if agree else "THEY DISAGREE"))
    if s["recompiled"] and any(ev["profiled"].get(sig, 0) > 1 for sig in ev["profiled"]):
        how += ("; " + ", ".join(f"{sig} was compiled {n} times" for sig, n in sorted(ev["profiled"].items()) if n > 1)
                + " (one device-compiler signature, one traced function or cluster, compiled again for "
                "new argument shapes: those modules share their name up to the '.N' suffix)")
    if facts.get("tracing_count"):
        how += "; tf.function tracing counts: " + ", ".join(
            f"{k}: {v}" for k, v in sorted(facts["tracing_count"].items()))
    if ev["retrace_warnings"]:
        how += f"; TF printed {ev['retrace_warnings']} retracing warning(s)"
    if ev["new_funcgraphs"]:
        how += f"; {ev['new_funcgraphs']} 'Creating new FuncGraph' trace-log line(s)"
    return {
        "evidence": {"compilations": ev["dumped"], "cache_hits": 0, "how": how},
        "recompiled": recompiled,
        "not_recompiled": not_recompiled,
        "note": "" if agree else " (dump and device-compiler lines disagree)",
        "extra": _extra(run, modules, facts, recompiled),
    }


def _extra(run, modules, facts, recompiled):
    """The fields after the standard ones: _detail's, and spread (the sequence lengths TF fed a
    program through padded_batch, batch by batch)."""
    extra = _detail(run, modules, facts, recompiled) if run.spec["detail"] else collections.OrderedDict()
    if facts.get("value_causes"):  # the Python values the program changed (cmd/recomp checkValueCauses)
        extra["value_causes"] = facts["value_causes"]
    lengths = facts.get("lengths")
    if lengths and recompiled:
        counts = collections.Counter(lengths)
        extra["spread"] = collections.OrderedDict([
            ("identity", recompiled[0]), ("input", "x [B,L,4]: L, the sequence length padded_batch padded each batch to"),
            ("steps", len(lengths)), ("sizes", {str(n): counts[n] for n in sorted(counts)}),
            ("compiled", sorted(counts)), ("pad_to", max(lengths))])
    return extra or None


def _detail(run, modules, facts, recompiled):
    """compile_seconds (the device compiler's 'compile time: N us' per compilation), compiles (each
    dumped module with its signature's time, in order) and roles (which traced function, so which
    dumps, is Keras's train step and which its validation step)."""
    times = collections.defaultdict(list)
    for sig, _, us in _PROFILED_TIME.findall(run.texts[0]):
        times[sig].append(int(us) / 1e6)
    role_of = {f: role for role, r in facts.get("roles", {}).items() for f in r["functions"]}
    compiles, seen, by_role = [], collections.defaultdict(list), collections.defaultdict(list)
    for f, m in modules:
        sig = next((s for s in times if re.search(rf"(^|_){re.escape(s.lstrip('_'))}__", m)), None)
        if sig is None:
            run.problems.append(f"{f}: no device-compiler signature")
            continue
        k = len(seen[sig])
        role = role_of.get(sig)
        r = facts["roles"][role] if role else {}
        t = times[sig][k] if k < len(times[sig]) else None
        if "inputs" in r:  # the role's compilations in order, over all its traced functions (one step)
            j = len(by_role[role])
            inputs, cause = r["inputs"], r["cause"]
            entry = collections.OrderedDict([
                ("identity", family(m)), ("function", sig), ("role", role), ("log", run.logs[0]), ("dump", f"dump/{f}"),
                ("seconds", t), ("input", inputs[j] if j < len(inputs) else None),
                ("causes", [cause] if j else []), ("against", f"dump/{by_role[role][0]}" if j else None)])
            by_role[role].append(f)
        else:
            batches = r.get("batches", [])
            entry = collections.OrderedDict([
                ("identity", family(m)), ("function", sig), ("role", role), ("log", run.logs[0]), ("dump", f"dump/{f}"),
                ("seconds", t), ("input", f"{batches[k]} rows" if k < len(batches) else None),
                ("causes", ["batch_size"] if k else []), ("against", f"dump/{seen[sig][0]}" if k else None)])
        seen[sig].append(f)
        compiles.append(entry)
    extra = collections.OrderedDict()
    extra["compile_seconds"] = round(sum(t for ts in times.values() for t in ts), 6)
    extra["compiles"] = compiles
    roles = collections.OrderedDict()
    for role, r in facts.get("roles", {}).items():
        fed = ("inputs", r["inputs"]) if "inputs" in r else ("batches", r["batches"])
        # the traced functions XLA compiled (Keras also traces concrete functions it never runs)
        fns = [f for f in r["functions"] if f in times]
        roles[role] = collections.OrderedDict([("functions", fns), fed,
                                               ("dumps", sorted(f"dump/{f}" for sig in r["functions"] for f in seen[sig]))])
    extra["roles"] = roles
    return extra


FRAMEWORK = driver.Framework(
    file=__file__, title="TensorFlow", scenarios=SCENARIOS, dists=("tensorflow-cpu", "keras", "numpy"),
    matrix=MATRIX, setup=setup, judge=judge, scrub=("TF_", "XLA_"))

if __name__ == "__main__":
    driver.main(FRAMEWORK)
