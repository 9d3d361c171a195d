#!/usr/bin/env python3
"""Make recomp's torch.compile example runs: real programs compiled by torch.compile with Inductor
on CPU (tiny models: each compilation takes seconds), each built to compile again (or not) for one
known reason, with dynamo's logging as `recomp run` sets it (TORCH_LOGS=recompiles,dynamo).

    py=$(testdata/runs/gen/venv.sh testdata/runs/gen/torch-xla-2.9.txt)   # the same venv as torch-xla-2.9
    $py testdata/runs/gen/torch_runs.py --out testdata/runs/torch-2.9          # all scenarios
    $py testdata/runs/gen/torch_runs.py --out /tmp/runs partial-batch          # some of them

This file holds the scenarios (programs and specs), the evidence hook (finish() reads
torch._dynamo.utils.get_compilation_metrics() and torch._dynamo.utils.counters at the end of each
program; judge() checks them against dynamo's lines in the log) and the set-up fixture (setup():
TORCH_LOGS, an Inductor cache folder inside the run folder, removed after the run); driver.py runs
each program in a fresh process and writes its run.log and truth.json (see README.md).

A compiled function's identity is "torch_runs.py:LINE (function)", LINE its code's first line, as
dynamo names it ("Recompiling function F in FILE:LINE"). A compilation is one entry of dynamo's
compilation metrics whose backend ran (backend_compile_time_s set: the graph went to Inductor), as
dynamo's "Step 2: calling compiler function inductor" line shows it; its seconds are the entry's
entire_frame_compile_time_s.
"""
import collections
import os
import shutil

import driver

HERE = os.path.abspath(__file__)
ME = os.path.basename(HERE)

HOW = ("torch._dynamo.utils.get_compilation_metrics() read at the end of the program: compilations = entries "
       "whose backend ran (backend_compile_time_s set); cache_hits = counters['inductor']['fxgraph_cache_hit']; "
       "summed over the logs")


def setup(spec):
    """The set-up fixture: the env truth.json records, in order: dynamo's logging as recomp run sets
    it, Inductor's cache in the run folder (so that no run is served by another's), unbuffered output."""
    env = {"TORCH_LOGS": "recompiles,dynamo", "inductor cache": "TORCHINDUCTOR_CACHE_DIR=<run folder>/inductor-cache, set by the program"}
    if spec.get("recomp_run"):  # recomp run sets dynamo's logging and the trace itself
        env = {"recomp run": "recomp run --out <run folder>: TORCH_LOGS=recompiles,dynamo and TORCH_TRACE=<run folder>/trace, "
                             "set by recomp run", "inductor cache": env["inductor cache"]}
    env.update(spec.get("env", {}))
    env["PYTHONUNBUFFERED"] = "1"
    return env


# --- inside the program ---------------------------------------------------------------------------

def _torch():
    # Inductor's cache in the run folder (an absolute path: Inductor's C++ compiler runs elsewhere)
    os.environ["TORCHINDUCTOR_CACHE_DIR"] = os.path.abspath(os.environ.get("TORCHINDUCTOR_CACHE_DIR") or "inductor-cache")
    import torch
    torch.manual_seed(0)
    torch.set_num_threads(1)
    return torch


def _model(torch):
    return torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 1))


def loss_step(model, x, y):
    return ((model(x) - y) ** 2).mean()


def scaled_step(model, x, y, lr):
    return ((model(x) - y) ** 2).mean() * lr


def predict(model, x):
    return model(x)


def tail(x):
    return (x.sin() * 2).sum(-1)


def partial_batch():
    """120 samples in batches of 32: 32, 32, 32, 24 each epoch, 2 epochs, no drop_last."""
    torch = _torch()
    model = _model(torch)
    step = torch.compile(loss_step)
    data, target = torch.randn(120, 8), torch.randn(120, 1)
    for _ in range(2):
        for i in range(0, 120, 32):
            step(model, data[i:i + 32], target[i:i + 32]).backward()
    finish(torch, fed=[32, 32, 32, 24] * 2)


def python_scalar():
    """A learning-rate factor passed as a Python float, halved each epoch (0.1, 0.05, 0.025)."""
    torch = _torch()
    model = _model(torch)
    step = torch.compile(scaled_step)
    data, target = torch.randn(64, 8), torch.randn(64, 1)
    lr = 0.1
    for _ in range(3):
        for i in range(0, 64, 32):
            step(model, data[i:i + 32], target[i:i + 32], lr).backward()
        lr /= 2
    finish(torch, fed=[0.1, 0.1, 0.05, 0.05, 0.025, 0.025])


def mode_flip():
    """Training steps, and every third step an evaluation: model.eval() under torch.no_grad()."""
    torch = _torch()
    model = _model(torch)
    fwd = torch.compile(predict)
    x = torch.randn(16, 8)
    for s in range(1, 10):
        if s % 3 == 0:
            model.eval()
            with torch.no_grad():
                fwd(model, x)
            model.train()
        else:
            fwd(model, x).sum().backward()
    finish(torch, fed=["train", "train", "eval"] * 3)


def closure():
    """A closure rebuilt each step around a warm-up factor (min(1, step/4)) and compiled anew."""
    torch = _torch()
    model = _model(torch)
    x = torch.randn(16, 8)
    for s in range(6):
        warm = min(1.0, s / 4)
        fn = torch.compile(lambda inp: model(inp) * warm)
        fn(x)
    finish(torch, fed=[min(1.0, s / 4) for s in range(6)])


def recompile_limit():
    """Sequences of 12 lengths (5..16) through a function compiled with dynamic=False: dynamo
    compiles 8 of them (its recompile limit) and runs the rest eagerly."""
    torch = _torch()
    fn = torch.compile(tail, dynamic=False)
    lengths = list(range(5, 17))
    for n in lengths:
        fn(torch.randn(4, n))
    finish(torch, fed=lengths)


def dynamic_marked():
    """The partial-batch loop with the batch dimension marked dynamic before the first call."""
    torch = _torch()
    model = _model(torch)
    step = torch.compile(loss_step)
    data, target = torch.randn(120, 8), torch.randn(120, 1)
    for _ in range(2):
        for i in range(0, 120, 32):
            x, y = data[i:i + 32], target[i:i + 32]
            torch._dynamo.mark_dynamic(x, 0)
            torch._dynamo.mark_dynamic(y, 0)
            step(model, x, y).backward()
    finish(torch, fed=[32, 32, 32, 24] * 2)


def finish(torch, fed, caller=None):
    """The evidence hook: dynamo's compilation metrics and counters, at the end of the program.
    caller names a frame of torch's own (torch.compile of a Module compiles external_utils'
    inner) by the program's line that first called it, as recomp must."""
    from torch._dynamo.utils import counters, get_compilation_metrics
    compiles = []
    for m in get_compilation_metrics():
        if m.backend_compile_time_s is None:
            continue
        identity = f"{os.path.basename(m.co_filename)}:{m.co_firstlineno} ({m.co_name})"
        if caller and os.path.basename(m.co_filename) != ME:
            identity = caller
        compiles.append({"compile_id": m.compile_id, "identity": identity,
                         "seconds": m.entire_frame_compile_time_s, "fail_type": m.fail_type})
    driver.EVIDENCE.update(compiles=compiles, fed=fed,
                           fxgraph_cache_hit=int(counters["inductor"]["fxgraph_cache_hit"]),
                           fxgraph_cache_miss=int(counters["inductor"]["fxgraph_cache_miss"]),
                           fxgraph_cache_bypass=int(counters["inductor"]["fxgraph_cache_bypass"]),
                           autograd_cache_hit=int(counters["aot_autograd"]["autograd_cache_hit"]),
                           autograd_cache_miss=int(counters["aot_autograd"]["autograd_cache_miss"]),
                           autograd_cache_saved=int(counters["aot_autograd"]["autograd_cache_saved"]),
                           unique_graphs=int(counters["stats"]["unique_graphs"]),
                           recompile_limit=torch._dynamo.config.recompile_limit)


# --- the scenarios ----------------------------------------------------------------------------------

S = collections.OrderedDict()
S["partial-batch"] = dict(program=partial_batch, recompiled=["loss_step"], cause="batch_size",
                          reason="size mismatch at index 0. expected 32, actual 24",
                          description="torch.compile(loss_step) over 120 samples in batches of 32 (32, 32, 32, 24), 2 epochs, "
                                      "no drop_last: the 24-row batch fails dynamo's guard on the batch size and compiles the step "
                                      "again, with the batch dimension dynamic (automatic dynamic shapes), which the next epoch reuses.")
S["python-scalar"] = dict(program=python_scalar, recompiled=["scaled_step"], cause="python_scalar", reason="lr == 0.1",
                          description="torch.compile(scaled_step) given a learning-rate factor as a Python float, halved each epoch: "
                                      "dynamo specialises the float on 0.1, its guard fails at 0.05, and it compiles again with the float "
                                      "as a symbol, which 0.025 reuses.")
S["mode-flip"] = dict(program=mode_flip, recompiled=[], cause=None, reason="GLOBAL_STATE changed: grad_mode", per_mode=True,
                      description="torch.compile(predict) called in training steps and, every third step, after model.eval() under "
                                  "torch.no_grad(): grad mode is global state dynamo guards on, so the evaluation compiles once more; "
                                  "later flips reuse the two compiled entries (one compilation per mode, no recompilation).")
S["closure"] = dict(program=closure, recompiled=["<lambda>"], cause="python_scalar", reason="warm == 0.0",
                    description="A closure around a warm-up factor min(1, step/4), rebuilt and compiled anew each step: dynamo caches "
                                "by code object, so the new closure reuses the entry until the closed-over float changes (0.0 → 0.25), "
                                "which compiles again with the float as a symbol.")
S["recompile-limit"] = dict(program=recompile_limit, recompiled=["tail"], cause="input_shape", reason="size mismatch at index 1. expected 11, actual 12",
                            description="torch.compile(tail, dynamic=False) fed sequences of 12 lengths (5..16): each length compiles "
                                        "until dynamo's recompile limit (8); the last 4 lengths run eagerly, uncompiled.")
S["dynamic-marked"] = dict(program=dynamic_marked, recompiled=[], cause=None,
                           description="The partial-batch loop with torch._dynamo.mark_dynamic(x, 0) on each batch before the call: "
                                       "one compilation with a symbolic batch size serves 32 and 24; the guard passes.")

S["traced"] = dict(program=partial_batch, recompiled=["loss_step"], cause="batch_size",
                   reason="size mismatch at index 0. expected 32, actual 24", env={"TORCH_TRACE": "trace"},
                   description="The partial-batch program with torch's structured trace on (TORCH_TRACE=trace, what tlparse reads; "
                               "kept gzipped): the trace alone gives every compilation with its entire_frame_compile_time_s.")

S["under-run"] = dict(program=partial_batch, recompiled=["loss_step"], cause="batch_size",
                      reason="size mismatch at index 0. expected 32, actual 24",
                      recomp_run={"flags": [], "exit": 0, "paths": "root"},
                      description="The partial-batch program run under recomp run (recomp's binary from this repository, "
                                  "`recomp run --out <run folder> -- python …`), which turns on dynamo's logging (run.log) and "
                                  "torch's structured trace (trace/, kept gzipped): the run folder read gives each compilation "
                                  "once, with the trace's entire_frame_compile_time_s.")


# --- Inductor's caches over runs (after the scenarios above: their programs' lines stay) ---------------

def inductor_cache():
    """One forward pass of the model under torch.no_grad(), compiled once; Inductor's cache
    (inductor-cache/) is the run folder's, shared by the scenario's runs."""
    torch = _torch()
    model = _model(torch)
    fwd = torch.compile(predict)
    with torch.no_grad():
        fwd(model, torch.randn(16, 8))
    finish(torch, fed=[16])
    cache = os.environ["TORCHINDUCTOR_CACHE_DIR"]  # the keys in the cache after this run, as Inductor named them
    driver.EVIDENCE["keys"] = {sub: sorted(os.path.basename(r) for r, _, files in os.walk(os.path.join(cache, sub)) if files)
                               for sub in ("fxgraph", "aotautograd")}


CACHE_RUNS = {1: {"TORCH_TRACE": "trace1"}, 2: {"TORCH_TRACE": "trace2"},
              3: {"TORCH_TRACE": "trace3", "TORCHINDUCTOR_MAX_AUTOTUNE_POINTWISE": "1"}}
S["inductor-cache"] = dict(
    program=inductor_cache, recompiled=[], cause=None, runs=3, run_env=CACHE_RUNS, per_log=True,
    cache={"served": [2], "missed": {3: {"part": "inductor_config[max_autotune_pointwise]", "a": "False", "b": "True",
                                         "setting": "TORCHINDUCTOR_MAX_AUTOTUNE_POINTWISE=1"}}},
    description="torch.compile(predict) run once under torch.no_grad() in three processes that share one Inductor cache "
                "(TORCHINDUCTOR_CACHE_DIR, kept as cache/: its fxgraph/ and aotautograd/ entries), each with its own "
                "TORCH_TRACE: run 1 fills the empty cache (FX-graph and AOTAutograd misses, entries written), run 2 is served "
                "from it (fxgraph_cache_hit, autograd_cache_hit), run 3 sets TORCHINDUCTOR_MAX_AUTOTUNE_POINTWISE=1: one "
                "Inductor config value in the FX-graph cache key changed, so it misses both caches and writes new entries.")


def predict_relu(model, x):
    return model(x).relu()


def inductor_cache_keys():
    """Run 1: predict on 16 rows; run 2: predict on 24 rows (the inputs' metadata in the key
    changes); run 3: predict_relu on 16 rows (the graph changes, the inputs do not)."""
    torch = _torch()
    model = _model(torch)
    run = int(os.environ["RECOMP_RUN"])
    fwd = torch.compile(predict_relu if run == 3 else predict)
    with torch.no_grad():
        fwd(model, torch.randn(24 if run == 2 else 16, 8))
    finish(torch, fed=[24 if run == 2 else 16])
    cache = os.environ["TORCHINDUCTOR_CACHE_DIR"]
    driver.EVIDENCE["keys"] = {sub: sorted(os.path.basename(r) for r, _, files in os.walk(os.path.join(cache, sub)) if files)
                               for sub in ("fxgraph", "aotautograd")}


KEYS_RUNS = {1: {"TORCH_TRACE": "trace1"}, 2: {"TORCH_TRACE": "trace2"}, 3: {"TORCH_TRACE": "trace3"}}
S["inductor-cache-keys"] = dict(
    program=inductor_cache_keys, recompiled=[], cause=None, runs=3, run_env=KEYS_RUNS, per_log=True,
    cache={"served": [], "missed": {2: {"part": "example_inputs", "a": "float32[16, 8]", "b": "float32[24, 8]",
                                        "changed": "x has 24 rows, not 16"},
                                    3: {"part": "gm", "changed": "predict_relu: model(x).relu(), one op more than predict"}}},
    description="Three processes sharing one Inductor cache (cache/), each with its own TORCH_TRACE: run 1 compiles "
                "predict on 16 rows; run 2 on 24 rows, so the inputs' metadata in the FX-graph key differs and it misses; "
                "run 3 compiles predict_relu (model(x).relu()) on 16 rows: the same inputs, another graph, another miss.")


# The inductor-cache runs under recomp run: three run folders (run1/, run2/, run3/, each recomp run's
# own: run.log, manifest.json, probe.jsonl, trace/), the program run in the scenario's folder with
# TORCHINDUCTOR_CACHE_DIR set before recomp run starts, so that each manifest names the cache.
RUN_RUNS = {1: {}, 2: {}, 3: {"TORCHINDUCTOR_MAX_AUTOTUNE_POINTWISE": "1"}}
S["inductor-cache-run"] = dict(
    program=inductor_cache, recompiled=[], cause=None, runs=3, run_env=RUN_RUNS, per_log=True,
    recomp_run={"flags": [], "exit": 0, "paths": "root"}, env={"TORCHINDUCTOR_CACHE_DIR": "inductor-cache"},
    cache={"served": [2], "missed": {3: {"part": "inductor_config[max_autotune_pointwise]", "a": "False", "b": "True",
                                         "setting": "TORCHINDUCTOR_MAX_AUTOTUNE_POINTWISE=1"}}},
    description="The inductor-cache program run three times under recomp run (`recomp run --out runN -- python …`, "
                "each run folder with its run.log, manifest.json, probe.jsonl and trace/), sharing one Inductor cache "
                "(TORCHINDUCTOR_CACHE_DIR=inductor-cache, set before recomp run, kept as cache/): run 1 fills it, run 2 "
                "is served from it (FX-graph and AOTAutograd hits), run 3 sets TORCHINDUCTOR_MAX_AUTOTUNE_POINTWISE=1: "
                "one Inductor config value in the FX-graph key changed, so it misses and writes new entries.")


def _cache_truth(run, problems):
    """What each run did with Inductor's caches (torch's own counters) and the entries left behind."""
    spec = run.spec["cache"]
    runs = []
    for i, (log, ev) in enumerate(zip(run.logs, run.evidence), 1):
        r = collections.OrderedDict([("run", i), ("log", log), ("env", run.spec["run_env"][i])])
        for k in ("fxgraph_cache_hit", "fxgraph_cache_miss", "fxgraph_cache_bypass", "autograd_cache_hit",
                  "autograd_cache_miss", "autograd_cache_saved"):
            r[k] = ev[k]
        served = ev["fxgraph_cache_hit"] > 0 and ev["fxgraph_cache_miss"] == 0
        if served != (i in spec["served"]):
            problems.append(f"{log}: fxgraph_cache_hit {ev['fxgraph_cache_hit']}, miss {ev['fxgraph_cache_miss']}: "
                            f"{'not ' if i in spec['served'] else ''}served from the cache")
        before = run.evidence[i - 2]["keys"] if i > 1 else {"fxgraph": [], "aotautograd": []}
        r["written"] = {sub: sorted(set(ev["keys"][sub]) - set(before[sub])) for sub in ("fxgraph", "aotautograd")}
        if i in spec["missed"]:
            r["missed"] = spec["missed"][i]
        runs.append(r)
    cache = run.path("cache")
    entries = collections.OrderedDict()
    for sub in ("fxgraph", "aotautograd"):
        keys = []
        for root, dirs, files in os.walk(os.path.join(cache, sub)):
            if files:
                keys.append(os.path.basename(root))
        entries[sub] = sorted(keys)
    return collections.OrderedDict([("runs", runs), ("entries", entries)])


# --- the judge ----------------------------------------------------------------------------------------

def judge(run):
    """Check the evidence against dynamo's own lines in the log, and say what recomp must find."""
    spec, evs, texts = run.spec, run.evidence, run.texts
    problems = run.problems
    per_identity = collections.Counter()
    most = collections.Counter()  # an identity's most compilations in one process (spec per_log)
    compiles = []
    for log, ev, text in zip(run.logs, evs, texts):
        most |= collections.Counter(c["identity"] for c in ev["compiles"])
        steps = text.count("Step 2: calling compiler function inductor")
        if steps != len(ev["compiles"]):
            problems.append(f"{log}: {steps} 'calling compiler function inductor' lines but {len(ev['compiles'])} compilations in dynamo's metrics")
        for c in ev["compiles"]:
            per_identity[c["identity"]] += 1
            compiles.append(dict(c, log=log))
    counts = most if spec.get("per_log") else per_identity  # per_log: each process on its own
    compiled_again = sorted(i for i, n in counts.items() if n > 1)
    # spec per_mode: the program ran in len(set(fed)) modes; an identity compiled no more often than
    # that compiled once per mode (each then served from dynamo's cache), which is no recompilation
    modes = len(set(evs[0]["fed"])) if spec.get("per_mode") else 0
    not_recompiled = [i for i in compiled_again if counts[i] <= modes]
    recompiled = [i for i in compiled_again if i not in not_recompiled]
    got = sorted(i.rsplit(" (", 1)[1].rstrip(")") for i in recompiled)
    if got != sorted(spec["recompiled"]):
        problems.append(f"recompiled identities {recompiled}, want those of {spec['recompiled']}")
    if spec.get("cache"):  # the cache's entries are kept (pickles, left as written); its compiled code is not
        for sub in ("fxgraph", "aotautograd"):
            if os.path.isdir(run.path("inductor-cache", sub)):
                shutil.copytree(run.path("inductor-cache", sub), run.path("cache", sub))
    shutil.rmtree(run.path("inductor-cache"), ignore_errors=True)  # compiled code: not committed
    traces = []
    trace_dirs = [d for d in ("trace", "trace1", "trace2", "trace3", "run1/trace", "run2/trace", "run3/trace")
                  if os.path.isdir(run.path(d))]
    for d in trace_dirs:  # the structured trace, gzipped (recomp reads .gz as it is)
        import gzip
        for fn in sorted(os.listdir(run.path(d))):
            src = run.path(d, fn)
            driver.relative_paths(run.path(d), root=bool(spec.get("recomp_run")))
            with open(src, encoding="utf-8", errors="surrogateescape") as f:  # the run folder's own paths, relative
                text = f.read()
            with open(src, "w", encoding="utf-8", errors="surrogateescape") as f:
                f.write(text.replace(os.path.abspath(run.target) + os.sep, ""))
            with open(src, "rb") as f, gzip.GzipFile(src + ".gz", "wb", mtime=0) as g:
                shutil.copyfileobj(f, g)
            os.remove(src)
            traces.append(d + "/" + fn + ".gz")
    trace_of = dict(zip(run.logs, traces)) if len(traces) == len(run.logs) else {}
    evidence = collections.OrderedDict()
    evidence["compilations"] = len(compiles)
    evidence["cache_hits"] = sum(e["fxgraph_cache_hit"] for e in evs)
    evidence["how"] = HOW
    evidence["fxgraph_cache_misses"] = sum(e["fxgraph_cache_miss"] for e in evs)
    evidence["by_identity"] = dict(sorted(per_identity.items()))
    extra = collections.OrderedDict()
    # dynamo's own seconds: what recomp must give from the trace, which carries them (a text log's
    # timestamps bracket less of each compilation); a traced run is checked on its trace alone
    seconds_key, compiles_key = ("compile_seconds", "compiles") if traces else ("dynamo_seconds", "dynamo_compiles")
    if traces and spec.get("recomp_run") and spec.get("runs", 1) == 1:
        extra["run_folder"] = True  # read as recomp run left it: run.log and trace/ at once, each compilation once
    elif traces:
        extra["logs"] = traces
    extra[seconds_key] = round(sum(c["seconds"] for c in compiles), 6)
    extra[compiles_key] = [{"identity": c["identity"], "log": trace_of.get(c["log"], traces[0]) if traces else c["log"],
                            "compile_id": c["compile_id"], "seconds": c["seconds"]} for c in compiles]
    extra["fed"] = evs[0]["fed"]
    if spec.get("cache"):
        evidence["autograd_cache_hits"] = sum(e["autograd_cache_hit"] for e in evs)
        extra["inductor_cache"] = _cache_truth(run, problems)
    if run.name == "recompile-limit":
        limit = evs[0]["recompile_limit"]
        distinct = len(set(evs[0]["fed"]))
        extra["recompile_limit"] = {"identity": recompiled[0] if recompiled else None, "limit": limit,
                                    "compiled": len(compiles), "eager_calls": distinct - limit}
    if modes:
        extra["per_mode"] = {"modes": sorted(set(evs[0]["fed"])), "compiled": {i: per_identity[i] for i in not_recompiled}}
    return {"evidence": evidence, "recompiled": recompiled, "not_recompiled": not_recompiled, "extra": extra}


# --- a Module compiled, in two modes (after the scenarios above: their programs' lines stay) ---------

def module_modes():
    """torch.compile(model), a Sequential with dropout: training steps on 96 rows in batches of 32,
    and after each epoch an evaluation under model.eval() and torch.no_grad() of 100 rows in
    batches of 32 (32, 32, 32, 4)."""
    import inspect
    torch = _torch()
    model = torch.compile(torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Dropout(0.1), torch.nn.Linear(16, 1)))
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    data, target = torch.randn(100, 8), torch.randn(100, 1)
    first = f"{ME}:{inspect.currentframe().f_lineno + 4} (module_modes)"  # the training line below
    fed = []
    for _ in range(2):
        for i in range(0, 96, 32):
            loss = ((model(data[i:i + 32]) - target[i:i + 32]) ** 2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            fed.append("train")
        model.eval()
        with torch.no_grad():
            for i in range(0, 100, 32):
                model(data[i:i + 32])
                fed.append("eval")
        model.train()
    finish(torch, fed=fed, caller=first)


S["module-modes"] = dict(program=module_modes, recompiled=["module_modes"], cause="batch_size",
                         reason="size mismatch at index 0. expected 32, actual 4", per_mode=True,
                         recomp_run={"flags": [], "exit": 0, "paths": "root"},
                         description="torch.compile(model) of a Sequential, trained in batches of 32 and evaluated after each "
                                     "epoch under model.eval() and torch.no_grad() on 100 rows (32, 32, 32, 4), run under recomp "
                                     "run: dynamo compiles torch's wrapper frame (external_utils' inner) once for training, once "
                                     "more for evaluation's grad mode (one compilation per mode), and once more for the "
                                     "evaluation's last 4-row batch: a recompilation of the evaluation, whose remedy keeps "
                                     "every row (no drop_last).")

def generate():
    """A greedy decode loop under torch.no_grad(): torch.compile(next_token) given the ids so far,
    grown by one token a step (5 to 12 long), for 3 prompts."""
    torch = _torch()
    emb, head = torch.nn.Embedding(100, 16), torch.nn.Linear(16, 100)

    def next_token(ids):
        return head(emb(ids).mean(dim=1)).argmax(-1)

    step = torch.compile(next_token)
    fed = []
    with torch.no_grad():
        for _ in range(3):
            ids = torch.randint(0, 100, (2, 5))
            for _ in range(8):
                fed.append(ids.shape[1])
                ids = torch.cat([ids, step(ids)[:, None]], dim=1)
    finish(torch, fed=fed)


S["generate"] = dict(program=generate, recompiled=["next_token"], cause="input_shape",
                     reason="size mismatch at index 1. expected 5, actual 6",
                     recomp_run={"flags": [], "exit": 0, "paths": "root"},
                     description="A greedy decode loop under torch.no_grad(), run under recomp run: torch.compile(next_token) "
                                 "given the ids so far, one token longer each step (5 to 12), for 3 prompts. Dynamo compiles "
                                 "for length 5, then once more at 6 with the length dynamic (automatic dynamic shapes: "
                                 "create_symbol for L['ids'].size()[1]), which serves every later length: one recompilation, "
                                 "whose remedy is mark_dynamic before the first call, not padding.")

FRAMEWORK = driver.Framework(
    file=__file__, title="torch.compile", scenarios=S, dists=("torch",),
    matrix=lambda: "torch-%s" % ".".join(driver.installed("torch").split(".")[:2]), setup=setup, judge=judge,
    scrub=("TORCH_LOGS", "TORCH_TRACE", "TORCHINDUCTOR_", "TORCH_COMPILE", "PYTHONWARNINGS"))

if __name__ == "__main__":
    driver.main(FRAMEWORK)
