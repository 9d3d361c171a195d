#!/usr/bin/env python3
"""The Keras 3 on JAX matrix (testdata/runs/keras-jax): Keras programs run with KERAS_BACKEND=jax on
CPU, with JAX's own compile logging on and XLA dumping every module, each built to compile a Keras
step again for one known reason (or, for the clean program, not to).

    py=$(testdata/runs/gen/venv.sh testdata/runs/gen/keras-jax.txt)
    $py testdata/runs/gen/keras_jax_runs.py --out testdata/runs/keras-jax          # all scenarios
    $py testdata/runs/gen/keras_jax_runs.py --out /tmp/runs predict-tail           # some of them

Keras on JAX jits its steps as JAX functions of its trainer (keras/src/backend/jax/trainer.py):
jit_train_step, jit_test_step (fit's validation and evaluate) and jit_predict_step, each traced
again, and compiled again, for every new batch shape. The evidence is JAX's (jax.monitoring compile
events, counted per module, as jax_runs.py counts them, and judged by its judge); the roles are
the program's own: which jitted function is which Keras step and the batches the program fed it.
No tf.data: the programs feed NumPy arrays, as a Keras-on-JAX user without TensorFlow does.
"""
import collections
import re

import driver
import jax_runs

MATRIX = "keras-jax"

# The Keras steps as Keras on JAX names their jitted functions (module names), by role.
STEP_MODULE = {"train": "jit_train_step", "validation": "jit_test_step", "evaluate": "jit_test_step",
               "predict": "jit_predict_step"}


def _keras():
    jax_runs._jax()  # JAX's compile events into driver.EVIDENCE (before Keras compiles anything)
    import keras
    if keras.backend.backend() != "jax":
        raise SystemExit(f"Keras runs on {keras.backend.backend()!r}, not jax: KERAS_BACKEND is not set")
    keras.utils.set_random_seed(0)
    return keras


def _model(keras, n_in=6, n_out=3):
    model = keras.Sequential([keras.Input((n_in,)), keras.layers.Dense(12, activation="relu"),
                              keras.layers.Dense(n_out)])
    model.compile(optimizer="adam", loss="mse", jit_compile=True)
    return model


def _roles(roles):
    """What the program knows of its steps: role -> the batches (rows) it fed that step, in the order
    of their first compilation, and the cause a new batch brings."""
    driver.EVIDENCE["truth"]["roles"] = {r: {"inputs": [f"{n} rows" for n in rows], "cause": cause}
                                         for r, rows, cause in roles}


def _setup(seed, *rows):
    """The model, a NumPy generator and, for each count of rows, samples of 6 features and 3 targets."""
    import numpy as np
    keras = _keras()
    rng = np.random.default_rng(seed)
    return (_model(keras), rng, *((rng.random((n, 6), np.float32), rng.random((n, 3), np.float32)) for n in rows))


def p_fit_partial():
    model, _, (x, y), (xv, yv) = _setup(1, 100, 40)   # 100 = 3 batches of 32 + 4; 40 = 32 + 8
    model.fit(x, y, batch_size=32, epochs=2, validation_data=(xv, yv), verbose=2)
    _roles((("train", (32, 4), "batch_size"), ("validation", (32, 8), "batch_size")))


def p_fit_validation_split():
    model, _, (x, y) = _setup(6, 100)   # validation_split=0.4: fit on the first 60 (32 + 28), validate on the last 40 (32 + 8)
    model.fit(x, y, batch_size=32, epochs=2, validation_split=0.4, verbose=2)
    _roles((("train", (32, 28), "batch_size"), ("validation", (32, 8), "batch_size")))


def _lambda_site(method):
    """Where Keras's JAX trainer defines the lambda it jits for a step with flax nnx on (method:
    make_train_function, make_test_function), as JAX's explanation names it: "trainer.py:LINE"."""
    import inspect
    from keras.src.backend.jax import trainer
    lines, first = inspect.getsourcelines(getattr(trainer.JAXTrainer, method))
    for i, line in enumerate(lines):
        if "lambda" in line and "step_fn" in line:
            return f"trainer.py:{first + i}"
    raise SystemExit(f"no step lambda in JAXTrainer.{method}: this Keras release jits its steps otherwise")


def p_nnx_steps():
    keras = _keras()
    if not keras.config.is_nnx_enabled():
        raise SystemExit("flax nnx is not on: KERAS_NNX_ENABLED is not set")
    import numpy as np
    rng = np.random.default_rng(7)
    x, y = rng.random((100, 6), np.float32), rng.random((100, 3), np.float32)   # 100 = 3 batches of 32 + 4
    xv, yv = rng.random((40, 6), np.float32), rng.random((40, 3), np.float32)   # 40 = 32 + 8
    _model(keras).fit(x, y, batch_size=32, epochs=2, validation_data=(xv, yv), verbose=2)
    _roles((("train", (32, 4), "batch_size"), ("validation", (32, 8), "batch_size")))
    driver.EVIDENCE["truth"]["lambdas"] = {"train": _lambda_site("make_train_function"),
                                           "validation": _lambda_site("make_test_function")}


def p_tf_data():
    model, _, (x, y) = _setup(8, 100)   # 100 = 3 batches of 32 + 4
    import tensorflow as tf
    ds = tf.data.Dataset.from_tensor_slices((x, y)).batch(32)   # no drop_remainder: a last batch of 4
    model.fit(ds, epochs=2, verbose=2)
    _roles((("train", (32, 4), "batch_size"),))
    driver.EVIDENCE["truth"]["data"] = "tf.data"


def p_predict_tail():
    model, rng, (x, y) = _setup(2, 256)                 # 256 = 4 batches of 64
    model.fit(x, y, batch_size=64, epochs=1, verbose=2)
    model.predict(rng.random((488, 6), "float32"), batch_size=256, verbose=0)   # 488 = 256 + 232
    _roles((("train", (64,), "batch_size"), ("predict", (256, 232), "batch_size")))


def p_evaluate_batch():
    model, _, (x, y), (xv, yv) = _setup(4, 256, 128)   # 128 = 2 batches of 64
    model.fit(x, y, batch_size=64, epochs=1, validation_data=(xv, yv), verbose=2)
    model.evaluate(xv, yv, batch_size=32, verbose=0)  # another batch size than fit's: 4 batches of 32
    _roles((("train", (64,), "batch_size"), ("evaluate", (64, 32), "batch_size")))


def p_clean():
    model, rng, (x, y), (xv, yv) = _setup(5, 256, 128)
    model.fit(x, y, batch_size=64, epochs=2, validation_data=(xv, yv), verbose=2)
    model.evaluate(xv, yv, batch_size=64, verbose=0)  # fit's validation batch size: the test step is reused
    model.predict(rng.random((192, 6), "float32"), batch_size=64, verbose=0)  # 192 = 3 batches of 64
    _roles((("train", (64,), "batch_size"), ("evaluate", (64,), "batch_size"), ("predict", (64,), "batch_size")))


S = collections.OrderedDict()
S["fit-partial"] = dict(program=p_fit_partial, recompiled=["jit_train_step", "jit_test_step"],
    causes={"jit_train_step": "batch_size", "jit_test_step": "batch_size"},
    reason=["at data[0], now f32[4,6] and before f32[32,6]"], description=(
    "Keras 3 on JAX, model.compile(jit_compile=True), fit on 100 samples with batch_size=32 for 2 epochs "
    "(32, 32, 32, then 4 rows) and validation_data of 40 samples (32, then 8 rows): JAX traces and compiles "
    "Keras's train step (jit_train_step) again for the 4-row batch and its test step (jit_test_step) again for "
    "the 8-row validation batch, once each (epoch 2 reuses them). The training loop may drop its remainder; "
    "the validation set must not lose samples."))
S["fit-validation-split"] = dict(program=p_fit_validation_split, probe=True, recompiled=["jit_train_step", "jit_test_step"],
    causes={"jit_train_step": "batch_size", "jit_test_step": "batch_size"},
    reason=["at data[0], now f32[28,6] and before f32[32,6]"], description=(
    "Keras 3 on JAX, fit on 100 samples with batch_size=32, validation_split=0.4 for 2 epochs, run under recomp "
    "run's probe (probe.jsonl): fit trains on the first 60 samples (32, then 28 rows) and validates on the last 40 "
    "(32, then 8 rows) with an evaluate call of its own inside fit. JAX compiles the train step again for 28 rows "
    "and the test step again for 8: the test step is fit's validation (no evaluate call), and the probe's nested "
    "call says so."))
S["nnx-steps"] = dict(program=p_nnx_steps, probe=True, requires=("flax",), recompiled=["jit__lambda"],
    causes={"jit__lambda": "batch_size"},
    reason=["at data[0], now f32[4,6] and before f32[32,6]"], description=(
    "Keras 3 on JAX with flax nnx on (KERAS_NNX_ENABLED=true), fit on 100 samples with batch_size=32 for 2 epochs "
    "(32, 32, 32, then 4 rows) and validation_data of 40 samples (32, then 8 rows), under recomp run's probe: with "
    "nnx Keras jits its train and test steps as lambdas of its JAX trainer, both compiled as jit__lambda. JAX's "
    "explanation names where each lambda is defined (lambdas: the trainer's lines), the dump's stack frames the "
    "trainer's make_train_function or make_test_function. The train step compiles again for 4 rows, the test step "
    "(fit's validation) for 8. The steps compile in that order, so the program's compile events are assigned to "
    "its roles in order."), env=dict(KERAS_NNX_ENABLED="true"))
S["tf-data"] = dict(program=p_tf_data, probe=True, requires=("tensorflow-cpu",), recompiled=["jit_train_step"],
    cause="batch_size", reason=["at data[0], now f32[4,6] and before f32[32,6]"], description=(
    "Keras 3 on JAX fed by tf.data: fit on a tf.data dataset of 100 samples batched at 32 without drop_remainder "
    "(32, 32, 32, then 4 rows) for 2 epochs, under recomp run's probe (which records that fit was given a tf.data "
    "dataset: data). JAX compiles the train step again for the 4-row batch; the remedy is tf.data's "
    "(batch(..., drop_remainder=True)), not the arrays'. The matrix has no TensorFlow: the run is made with "
    "TensorFlow 2.21 (the tf-2.21 matrix's) on the path, and the scenario is skipped where it is not installed."))
S["predict-tail"] = dict(program=p_predict_tail, recompiled=["jit_predict_step"], cause="batch_size",
    reason=["at data, now f32[232,6] and before f32[256,6]"], description=(
    "Keras 3 on JAX, fit on 256 samples with batch_size=64 (no partial batch), then model.predict on 488 samples "
    "with batch_size=256: 256 rows, then a last batch of 232. Keras's predict step (jit_predict_step) compiles "
    "for 256 rows and again for 232."))
S["evaluate-batch"] = dict(program=p_evaluate_batch, recompiled=["jit_test_step"], cause="batch_size",
    reason=["at data[0], now f32[32,6] and before f32[64,6]"], description=(
    "Keras 3 on JAX, fit on 256 samples with batch_size=64 and validation_data of 128 samples (two batches of "
    "64), then model.evaluate on the same 128 samples with batch_size=32: the test step (jit_test_step, which "
    "fit's validation and evaluate share) compiled for 64 rows in fit compiles again for 32 rows: another batch "
    "size than fit's, not a partial batch."))
S["clean"] = dict(program=p_clean, recompiled=[], cause=None, description=(
    "Keras 3 on JAX, fit on 256 samples with batch_size=64 for 2 epochs with validation_data of 128 samples, "
    "evaluate on them at 64 and predict on 192 samples at 64: every batch is full, so the train, test and "
    "predict steps compile once each. The eager one-op programs of the model's set-up compile several times "
    "under shared names (not recompilations)."))
for _spec in S.values():
    _spec["env"] = dict(jax_runs.ENV_LOGS, **_spec.get("env", {}))


def setup(spec):
    """jax_runs' fixture (JAX's compile logs, CPU, the dump folder, unbuffered output), with Keras on JAX."""
    env = collections.OrderedDict(KERAS_BACKEND="jax")
    env.update(jax_runs.setup(spec))
    return env


def judge(run):
    """jax_runs' judgement (compile events against the dump, per module), then the Keras steps: each
    step's compilations in order, with the batch the program fed it and its dump."""
    v = jax_runs.judge(run)
    ev = run.evidence[0]
    roles = ev["truth"].get("roles", {})
    real = [i for i, c in enumerate(ev["compiles"]) if not c["hit"]]
    dump_of = dict(zip(real, run.modules()))
    by_module = collections.defaultdict(list)  # each module's compilations (JAX 0.12 names jit(train_step) jit_train_step's)
    for i in real:
        by_module[re.sub(r"[^A-Za-z0-9]", "", ev["compiles"][i]["module"])].append(i)
    extra = collections.OrderedDict()
    compiles, out_roles = [], collections.OrderedDict()
    seconds = sum(ev["compiles"][i]["seconds"] for i in real)
    lambdas = ev["truth"].get("lambdas", {})
    taken = collections.Counter()  # a shared module's events taken by the roles before (ordered scenarios)
    for role, r in roles.items():
        module, n = STEP_MODULE[role], len(r["inputs"])
        function = module
        if role in lambdas:  # with nnx, Keras's steps are lambdas: one module, told apart by where each is defined
            module, function = "jit__lambda", f"jit__lambda [{lambdas[role]}]"
        if any(v["functions"] == [function] for v in out_roles.values()):
            run.problems.append(f"{role}: {function} is another role's step too: its compilations are not told apart")
        key = re.sub(r"[^A-Za-z0-9]", "", module)
        events = by_module[key]
        if lambdas:
            events = events[taken[key]:taken[key] + n]
            taken[key] += n
        if len(events) != n:
            run.problems.append(f"{role}: {module} compiled {len(events)} time(s), the program fed it {r['inputs']}")
        dumps = []
        for j, i in enumerate(events[:n]):
            f, name = dump_of.get(i, (None, None))
            if name != module:
                run.problems.append(f"{role}: compilation {i} dumped as {name}, not {module}")
            dumps.append(f"dump/{f}")
            compiles.append(collections.OrderedDict([
                ("identity", function), ("role", role), ("log", run.logs[0]), ("dump", f"dump/{f}"),
                ("seconds", round(ev["compiles"][i]["seconds"], 6)), ("input", r["inputs"][j]),
                ("causes", [r["cause"]] if j else []), ("against", dumps[0] if j else None)]))
        out_roles[role] = collections.OrderedDict([("functions", [function]), ("inputs", r["inputs"]), ("dumps", dumps)])
    for key, n in taken.items():
        if n != len(by_module[key]):
            run.problems.append(f"{key}: compiled {len(by_module[key])} time(s), the roles account for {n}")
    compiles.sort(key=lambda c: c["dump"])
    extra["compile_seconds"] = round(seconds, 6)
    extra["compiles"] = compiles
    extra["roles"] = out_roles
    v["extra"] = extra
    return v


FRAMEWORK = driver.Framework(
    file=__file__, title="Keras on JAX", scenarios=S, dists=("keras", "jax", "jaxlib", "numpy"),
    matrix=MATRIX, setup=setup, judge=judge, scrub=("JAX_", "XLA_", "TF_CPP", "KERAS_"), skip=jax_runs.skip_reason)

if __name__ == "__main__":
    driver.main(FRAMEWORK)
