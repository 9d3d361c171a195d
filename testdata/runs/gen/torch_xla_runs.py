#!/usr/bin/env python3
"""Make recomp's PyTorch/XLA example runs: real torch_xla programs (a tiny transformer-ish block
trained with SGD), run on CPU (PJRT_DEVICE=CPU) with torch_xla's own debug analysis on
(PT_XLA_DEBUG_LEVEL=2, XLA_HLO_DEBUG=1) and XLA dumping every module it compiles, each built to
recompile (or not) for one known reason.

    py=$(testdata/runs/gen/venv.sh testdata/runs/gen/torch-xla-2.9.txt)
    $py testdata/runs/gen/torch_xla_runs.py --out testdata/runs/torch-xla-2.9          # all scenarios
    $py testdata/runs/gen/torch_xla_runs.py --out /tmp/runs seq-length dtype           # some of them
    $py testdata/runs/gen/torch_xla_runs.py --list

This file holds the scenarios (programs and specs), the evidence hook (finish() reads
torch_xla.debug.metrics at the end of each program; judge() reads torch_xla's Compilation Analysis
blocks in the log) and the set-up fixture (setup(): PJRT_DEVICE, PT_XLA_DEBUG_LEVEL, XLA_HLO_DEBUG,
XLA_FLAGS); driver.py runs each program in a fresh process and writes its run.log, dump/ and
truth.json (see README.md).

Graphs cut by torch_xla.sync() / xm.mark_step() have no name of their own (the dump calls every one
SyncTensorsGraph.N). Their identity in truth.json is the first frame of this file in the
"Python Frame Triggered Execution" list of torch_xla's Compilation Analysis block, written
"torch_xla_runs.py:LINE (function)" (torch_xla prints it as "function (/path/torch_xla_runs.py:LINE)").
Graphs of torch_xla.compile(..., name=N) are called N. The compilation count comes from
torch_xla.debug.metrics inside the program (CompileTime samples, UncachedCompile, CachedCompile and
the persistent-cache counters), put in driver.EVIDENCE, which the driver writes to a side file when
the program returns; judge() checks that the log holds one Compilation Analysis block per
CompileTime sample.

What makes torch_xla print its compile evidence (recorded per run in truth.json "env"):
  PJRT_DEVICE=CPU               run on the host CPU
  PT_XLA_DEBUG_LEVEL=2          a Compilation Analysis block per compilation (its cause, graph name
                                and hash, the Python frames that triggered it) and an Execution
                                Analysis block per execution
  XLA_HLO_DEBUG=1               op metadata (the Python source line of each op) in the dumped HLO
  PT_XLA_DEBUG=1                (some runs) the pt-xla-profiler's warnings and its exit summary
  XLA_FLAGS=--xla_dump_to=dump  the HLO modules

persistent-cache runs its program twice with one cache folder (OUT/persistent-cache/cache, kept)
and writes run1.log and run2.log.
"""
import collections
import copy
import os
import re

import driver

HERE = os.path.abspath(__file__)
ME = os.path.basename(HERE)

HOW = ("torch_xla.debug.metrics read at the end of the program: compilations = "
       "metric_data('CompileTime') sample count (equal to counter_value('UncachedCompile')); cache_hits = "
       "counter_value('PersistentCacheHit'); in_memory_cache_hits = counter_value('CachedCompile') (graphs "
       "found in the in-memory graph cache, executed without compiling); summed over the logs")


def setup(spec):
    """The set-up fixture: the env truth.json records, in order: the scenario's (PJRT_DEVICE,
    torch_xla's debug settings), then the dump folder and unbuffered output."""
    env = dict(spec["env"])
    env["XLA_FLAGS"] = "--xla_dump_to=dump"
    env["PYTHONUNBUFFERED"] = "1"
    return env


# --- inside the program (lines 67-309 keep their numbers: truth.json names graphs by them) -------

def _torch():
    import torch
    import torch_xla
    torch.manual_seed(0)
    return torch, torch_xla


def _model(torch, d=16, hidden=32, out=4):
    class TinyBlock(torch.nn.Module):
        """Transformer-ish: a pre-norm MLP with a residual, mean-pooled over the sequence, a head."""

        def __init__(self):
            super().__init__()
            self.norm = torch.nn.LayerNorm(d)
            self.up = torch.nn.Linear(d, hidden)
            self.down = torch.nn.Linear(hidden, d)
            self.head = torch.nn.Linear(d, out)

        def block(self, x):
            return x + self.down(torch.nn.functional.gelu(self.up(self.norm(x))))

        def forward(self, x, depth=1):
            for _ in range(depth):  # a Python int: the loop is unrolled into the graph
                x = self.block(x)
            if x.dim() == 3:
                x = x.mean(dim=1)
            return self.head(x)

    return TinyBlock()


def _data(torch, *shape, seed=0):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(*shape, generator=g)


def train_step(model, opt, x, y, torch, torch_xla, depth=1, loss_scale=None):
    opt.zero_grad()
    loss = torch.nn.functional.mse_loss(model(x, depth=depth), y)
    if loss_scale is not None:
        loss = loss * loss_scale  # a Python float
    loss.backward()
    opt.step()
    torch_xla.sync()
    return loss


def finish(report="full"):
    """Print the metrics report, as a user debugging compilations would, and write the counts."""
    import torch_xla.debug.metrics as met
    print(met.metrics_report() if report == "full" else met.short_metrics_report() if report == "short" else "", end="")
    ct = met.metric_data("CompileTime")
    # the evidence hook's counts; the driver writes driver.EVIDENCE to RECOMP_EVIDENCE at the end
    driver.EVIDENCE.update({
        "compile_time_samples": ct[0] if ct else 0,
        "compile_time_ns": ct[1] if ct else 0,  # the metric's accumulator: the compilations' total
        "uncached_compile": met.counter_value("UncachedCompile") or 0,
        "cached_compile": met.counter_value("CachedCompile") or 0,
        "persistent_cache_hit": met.counter_value("PersistentCacheHit") or 0,
        "persistent_cache_miss": met.counter_value("PersistentCacheMiss") or 0,
        "persistent_cache_deserialize_failure": met.counter_value("PersistentCacheDeserializeFailure") or 0,
        "execute_time_samples": (met.metric_data("ExecuteTime") or (0,))[0],
        "mark_step": met.counter_value("MarkStep") or 0,
    })


SEQ_LENGTHS = (8, 12, 16, 20, 24, 28)


def train_seq_length():
    """Two epochs over 6 sequence-length buckets, batch 4: every length is new in epoch 1."""
    torch, torch_xla = _torch()
    dev = torch_xla.device()
    model = _model(torch).to(dev)
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    for epoch in range(2):
        for i, seq in enumerate(SEQ_LENGTHS):
            x = _data(torch, 4, seq, 16, seed=i).to(dev)
            y = _data(torch, 4, 4, seed=100 + i).to(dev)
            loss = train_step(model, opt, x, y, torch, torch_xla)
        print(f"epoch {epoch}: loss {loss.item():.4f}")
    finish("full")


def train_partial_batches():
    """Two epochs over 120 rows in batches of 32: 32, 32, 32, then the 24-row remainder."""
    torch, torch_xla = _torch()
    import torch_xla.core.xla_model as xm
    dev = torch_xla.device()
    model = _model(torch).to(dev)
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    X, Y = _data(torch, 120, 16), _data(torch, 120, 4, seed=1)
    for epoch in range(2):
        for start in range(0, 120, 32):
            x, y = X[start:start + 32].to(dev), Y[start:start + 32].to(dev)
            opt.zero_grad()
            loss = torch.nn.functional.mse_loss(model(x), y)
            loss.backward()
            opt.step()
            xm.mark_step()
        print(f"epoch {epoch}: loss {loss.item():.4f}")
    finish("full")


def train_padded():
    """The partial-batch loop fixed: the remainder is padded to 32 rows and masked out of the loss."""
    torch, torch_xla = _torch()
    dev = torch_xla.device()
    model = _model(torch).to(dev)
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    X, Y = _data(torch, 120, 16), _data(torch, 120, 4, seed=1)
    for epoch in range(2):
        for start in range(0, 120, 32):
            x, y = X[start:start + 32], Y[start:start + 32]
            mask = torch.ones(32, 1)
            if len(x) < 32:  # pad on the host; padded rows get weight 0
                mask[len(x):] = 0
                x = torch.cat([x, torch.zeros(32 - len(x), 16)])
                y = torch.cat([y, torch.zeros(32 - len(y), 4)])
            x, y, mask = x.to(dev), y.to(dev), mask.to(dev)
            opt.zero_grad()
            loss = (((model(x) - y) ** 2) * mask).sum() / (mask.sum() * 4)
            loss.backward()
            opt.step()
            torch_xla.sync()
        print(f"epoch {epoch}: loss {loss.item():.4f}")
    finish("full")


def train_compiled():
    """torch_xla.compile(step, full_graph=True, name='train_step') over 32, 32, 32, 24 rows, twice."""
    torch, torch_xla = _torch()
    dev = torch_xla.device()
    model = _model(torch).to(dev)
    opt = torch.optim.SGD(model.parameters(), lr=0.05)

    def step(x, y):
        opt.zero_grad()
        loss = torch.nn.functional.mse_loss(model(x), y)
        loss.backward()
        opt.step()
        return loss

    compiled_step = torch_xla.compile(step, full_graph=True, name="train_step")
    X, Y = _data(torch, 120, 16), _data(torch, 120, 4, seed=1)
    for epoch in range(2):
        for start in range(0, 120, 32):
            loss = compiled_step(X[start:start + 32].to(dev), Y[start:start + 32].to(dev))
        print(f"epoch {epoch}: loss {loss.item():.4f}")
    finish("short")


def train_dtype():
    """Two steps in float32, then the model and data cast to bfloat16 on the host and two more steps."""
    torch, torch_xla = _torch()
    dev = torch_xla.device()
    base = _model(torch)
    X, Y = _data(torch, 8, 16), _data(torch, 8, 4, seed=1)
    for dtype in (torch.float32, torch.bfloat16):  # mixed precision switched on part-way
        model = copy.deepcopy(base).to(dtype).to(dev)
        opt = torch.optim.SGD(model.parameters(), lr=0.05)
        for _ in range(2):
            loss = train_step(model, opt, X.to(dtype).to(dev), Y.to(dtype).to(dev), torch, torch_xla)
        print(f"{dtype}: loss {loss.item():.4f}")
    finish("short")


def train_python_scalar():
    """The learning rate (decayed every step) and a loss-scale factor are Python floats that change
    every step; neither is ever 0 or 1."""
    torch, torch_xla = _torch()
    dev = torch_xla.device()
    model = _model(torch).to(dev)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    x, y = _data(torch, 8, 16).to(dev), _data(torch, 8, 4, seed=1).to(dev)
    for i in range(6):
        lr = 0.1 * 0.9 ** i
        for group in opt.param_groups:
            group["lr"] = lr
        loss = train_step(model, opt, x, y, torch, torch_xla, loss_scale=2.0 ** -(i % 3 + 1))
        print(f"step {i}: lr {lr:.4f} loss {loss.item():.4f}")
    finish("short")


def train_python_scalar_one():
    """A warm-up factor min(1.0, (i + 1) / 4) scales the loss: 0.25, 0.5, 0.75, then 1.0 for good."""
    torch, torch_xla = _torch()
    dev = torch_xla.device()
    model = _model(torch).to(dev)
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    x, y = _data(torch, 8, 16).to(dev), _data(torch, 8, 4, seed=1).to(dev)
    for i in range(6):
        warmup = min(1.0, (i + 1) / 4)
        loss = train_step(model, opt, x, y, torch, torch_xla, loss_scale=warmup)
        print(f"step {i}: warmup {warmup} loss {loss.item():.4f}")
    finish("short")


def train_python_int():
    """A curriculum grows the number of times the (weight-tied) block is applied, a Python int: 1, 1, 2, 2, 3, 3."""
    torch, torch_xla = _torch()
    dev = torch_xla.device()
    model = _model(torch).to(dev)
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    x, y = _data(torch, 8, 16).to(dev), _data(torch, 8, 4, seed=1).to(dev)
    for i, depth in enumerate((1, 1, 2, 2, 3, 3)):
        loss = train_step(model, opt, x, y, torch, torch_xla, depth=depth)
        print(f"step {i}: depth {depth} loss {loss.item():.4f}")
    finish("short")


def train_item_sync():
    """The loss is printed with .item() between forward and backward, every step: a graph break."""
    torch, torch_xla = _torch()
    dev = torch_xla.device()
    model = _model(torch).to(dev)
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    x, y = _data(torch, 8, 16).to(dev), _data(torch, 8, 4, seed=1).to(dev)
    for i in range(5):
        opt.zero_grad()
        loss = torch.nn.functional.mse_loss(model(x), y)
        print(f"step {i}: loss {loss.item():.4f}")  # runs the forward graph now
        loss.backward()
        opt.step()
        torch_xla.sync()
    finish("full")


def train_persistent_cache(cache="cache"):
    """A fixed-shape training loop with torch_xla's persistent compilation cache in cache/."""
    import torch_xla.runtime as xr
    xr.initialize_cache(cache, readonly=False)  # before any computation
    torch, torch_xla = _torch()
    dev = torch_xla.device()
    model = _model(torch).to(dev)
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    x, y = _data(torch, 8, 16).to(dev), _data(torch, 8, 4, seed=1).to(dev)
    for i in range(3):
        loss = train_step(model, opt, x, y, torch, torch_xla)
    print(f"loss {loss.item():.4f}")
    finish("full")


# --- programs of the next issues (after line 309: the lines above keep their numbers) ----------------

def record_compiles(expect):
    """The per-compilation durations torch_xla keeps (metric_data('CompileTime') samples, in ns) and
    what the program knows of each compilation, in order (expect: input, causes, against, changed)."""
    import torch_xla.debug.metrics as met
    ct = met.metric_data("CompileTime")
    driver.EVIDENCE["compile_time_samples_ns"] = [v for _, v in ct[2]] if ct else []
    driver.EVIDENCE["expect"] = expect


def eval_dynamo():
    """torch.compile(model, backend='openxla') evaluated on sequences of 16, 16, 24, 24 and 32 tokens."""
    torch, torch_xla = _torch()
    dev = torch_xla.device()
    model = _model(torch).to(dev)
    compiled = torch.compile(model, backend="openxla")
    expect, seen = [], []
    with torch.no_grad():
        for i, seq in enumerate((16, 16, 24, 24, 32)):
            x = _data(torch, 4, seq, 16, seed=i).to(dev)
            out, site = compiled(x), driver.here()
            torch_xla.sync()
            if seq not in seen:
                expect.append({"input": f"x f32[4,{seq},16]", "call_site": site,
                               "causes": ["input_shape"] if seen else [],
                               "against": len(seen) - 1 if seen else None,
                               "changed": f"the sequence length {seen[-1]} -> {seq} (dynamo's guard on x's size "
                                          f"at index 1)" if seen else None})
                seen.append(seq)
            print(f"seq {seq}: out {tuple(out.shape)}")
    from torch._dynamo.utils import counters
    forward = model.forward.__code__
    driver.EVIDENCE["dynamo_identity"] = f"{ME}:{forward.co_firstlineno} ({forward.co_name})"
    driver.EVIDENCE["dynamo"] = {"frames": dict(counters["frames"]), "unique_graphs": counters["stats"]["unique_graphs"]}
    finish("short")
    record_compiles(expect)


def train_item_metric():
    """A classification step, then the batch accuracy read with .item() after torch_xla.sync()."""
    torch, torch_xla = _torch()
    dev = torch_xla.device()
    model = _model(torch).to(dev)
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    x = _data(torch, 8, 16).to(dev)
    labels = torch.tensor([0, 1, 2, 3, 0, 1, 2, 3]).to(dev)
    expect = []
    for i in range(5):
        opt.zero_grad()
        logits = model(x)
        loss = torch.nn.functional.cross_entropy(logits, labels)
        loss.backward()
        opt.step()
        _, step_site = torch_xla.sync(), driver.here()
        acc, acc_site = (logits.argmax(-1) == labels).float().mean().item(), driver.here()  # a small graph
        if i == 0:
            expect += [{"input": "the step: x f32[8,16], labels s64[8]", "call_site": step_site, "causes": [],
                        "against": None, "changed": None},
                       {"input": "the accuracy: logits f32[8,4], labels s64[8]", "call_site": acc_site,
                        "causes": [], "against": None, "changed": None}]
        print(f"step {i}: loss {loss.item():.4f} accuracy {acc:.2f}")
    finish("short")
    record_compiles(expect)


def train_adamw_clean():
    """A clean loop: AdamW (its state created inside step 1), 3 epochs of 4 fixed 32-row batches, and
    at each epoch's end a validation accuracy read with .item() (a graph of its own)."""
    torch, torch_xla = _torch()
    dev = torch_xla.device()
    model = _model(torch).to(dev)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)  # exp_avg, exp_avg_sq: created by step 1
    X, Y = _data(torch, 128, 16), _data(torch, 128, 4, seed=1)
    VX, VL = _data(torch, 64, 16, seed=2).to(dev), torch.arange(64).remainder(4).to(dev)
    expect = []
    import inspect
    src, first = inspect.getsourcelines(train_step)  # torch_xla's frame: train_step's torch_xla.sync()
    site = f"{ME}:{first + next(k for k, line in enumerate(src) if 'torch_xla.sync()' in line)}"
    for epoch in range(3):
        for start in range(0, 128, 32):
            x, y = X[start:start + 32].to(dev), Y[start:start + 32].to(dev)
            loss = train_step(model, opt, x, y, torch, torch_xla)
            if epoch == 0 and start == 0:
                expect.append({"input": "x f32[32,16], y f32[32,4]; AdamW's state created inside this step",
                               "call_site": site, "causes": [], "against": None, "changed": None})
            elif epoch == 0 and start == 32:
                expect.append({"input": "x f32[32,16], y f32[32,4]; AdamW's state an input from now on",
                               "call_site": site, "causes": ["graph_structure"], "against": 0, "once": True,
                               "changed": "AdamW's state (exp_avg, exp_avg_sq, step of each parameter), built from "
                                          "zeros inside step 1's graph, is device data the step takes as input from "
                                          "step 2 on: set-up, compiled once"})
        with torch.no_grad():
            acc = (model(VX).argmax(-1) == VL).float().mean()
            acc, acc_site = acc.item(), driver.here()  # the epoch-end metric: a graph of its own
        if epoch == 0:
            expect.append({"input": "the validation accuracy: VX f32[64,16], labels s64[64]", "call_site": acc_site,
                           "causes": [], "against": None, "changed": None})
        print(f"epoch {epoch}: loss {loss.item():.4f} val accuracy {acc:.2f}")
    finish("short")
    record_compiles(expect)


def train_host_reads():
    """A step that reads tensors on the host before torch_xla.sync(): print(tensor) of the first
    row's logits, then a loss check with loss.item(), every step, 6 steps."""
    torch, torch_xla = _torch()
    dev = torch_xla.device()
    model = _model(torch).to(dev)
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    x, y = _data(torch, 8, 16).to(dev), _data(torch, 8, 4, seed=1).to(dev)
    for i in range(6):
        opt.zero_grad()
        out = model(x)
        _, print_site = print("logits[0]:", out[0]), driver.here()  # a host read: runs the forward graph
        loss = torch.nn.functional.mse_loss(out, y)
        big, item_site = loss.item() > 100.0, driver.here()  # a host read: the loss graph
        if big:
            print("loss diverged")
        loss.backward()
        opt.step()
        torch_xla.sync()
    driver.EVIDENCE["host_reads"] = {"steps": 6, "sites": [print_site, item_site]}
    finish("full")


def eval_dynamo_float():
    """torch.compile(backend='openxla') of a sampling head called with a Python float temperature
    that changes: 1.0, 1.0, 1.5, 1.5."""
    torch, torch_xla = _torch()
    dev = torch_xla.device()
    model = _model(torch).to(dev)

    def sample_logits(x, temperature):
        return torch.softmax(model(x) / temperature, dim=-1)

    compiled = torch.compile(sample_logits, backend="openxla")
    x = _data(torch, 4, 16).to(dev)
    with torch.no_grad():
        for t in (1.0, 1.0, 1.5, 1.5):
            out = compiled(x, t)
            torch_xla.sync()
            print(f"temperature {t}: {tuple(out.shape)}")
    from torch._dynamo.utils import counters
    driver.EVIDENCE["dynamo_identity"] = f"{ME}:{sample_logits.__code__.co_firstlineno} (sample_logits)"
    driver.EVIDENCE["dynamo"] = {"frames": dict(counters["frames"]), "unique_graphs": counters["stats"]["unique_graphs"]}
    finish("short")



def windowed_step(model, opt, x, y, torch, torch_xla, window):
    """A step whose input mixes each token with the `window` tokens before it (a look-back mask): the
    window is a Python int, and torch_xla bakes triu's diagonal into the graph as a constant."""
    opt.zero_grad()
    seq = x.shape[1]
    keep = torch.ones(seq, seq, device=x.device).tril().triu(-window)  # the mask length: a Python int
    scores = (x @ x.transpose(1, 2)).masked_fill(keep == 0, -1e9)
    loss = torch.nn.functional.mse_loss(model(scores.softmax(-1) @ x), y)
    loss.backward()
    opt.step()
    _, site = torch_xla.sync(), driver.here()
    return loss, site


def train_epoch_window():
    """A curriculum widens the look-back window each epoch, window = 3 + 2 * epoch (3, 5, 7), a Python
    int from the epoch counter; 3 epochs of 4 fixed batches."""
    torch, torch_xla = _torch()
    dev = torch_xla.device()
    model = _model(torch).to(dev)
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    X, Y = _data(torch, 16, 12, 16), _data(torch, 16, 4, seed=1)
    import inspect
    src, first = inspect.getsourcelines(windowed_step)
    mask_site = f"{ME}:{first + next(k for k, line in enumerate(src) if '.triu(-window)' in line)}"
    expect, windows, steps = [], [], 0
    for epoch in range(3):
        window = 3 + 2 * epoch
        for start in range(0, 16, 4):
            x, y = X[start:start + 4].to(dev), Y[start:start + 4].to(dev)
            loss, site = windowed_step(model, opt, x, y, torch, torch_xla, window)
            steps += 1
            if start == 0:
                expect.append({"input": f"x f32[4,12,16], y f32[4,4]; window {window}", "call_site": site,
                               "causes": ["constant_value"] if epoch else [], "against": epoch - 1 if epoch else None,
                               "changed": f"the look-back window {windows[-1]} -> {window}: triu's diagonal, a constant "
                                          f"in the graph" if epoch else None})
                windows.append(window)
        print(f"epoch {epoch}: window {window} loss {loss.item():.4f}")
    driver.EVIDENCE["python_number"] = {"values": windows, "site": mask_site, "steps": steps, "every_steps": 4}
    finish("short")
    record_compiles(expect)



MINI_TRAINER = '''"""A stand-in for a trainer library installed in site-packages (an HF-style Trainer): it owns the loop,
and torch_xla's MpDeviceLoader syncs at each batch, inside torch_xla."""
import torch
import torch_xla.distributed.parallel_loader as pl


class Trainer:
    def __init__(self, model, opt, device):
        self.model, self.opt, self.device = model, opt, device

    def fit(self, loader, epochs):
        device_loader = pl.MpDeviceLoader(loader, self.device)
        for epoch in range(epochs):
            for x, y in device_loader:
                self.opt.zero_grad()
                loss = torch.nn.functional.mse_loss(self.model(x), y)
                loss.backward()
                self.opt.step()
            print(f"epoch {epoch}: loss {loss.item():.4f}")
        return loss
'''


def train_library_loop():
    """A trainer from a library in site-packages runs the loop over torch_xla's MpDeviceLoader (which syncs
    inside torch_xla); the program's own code is one call. 120 rows in batches of 32: the remainder of 24."""
    torch, torch_xla = _torch()
    import sys
    import tempfile
    lib = os.path.join(tempfile.mkdtemp(prefix="recomp-lib-"), "lib", "python3.11", "site-packages")
    os.makedirs(os.path.join(lib, "minitrainer"))
    with open(os.path.join(lib, "minitrainer", "__init__.py"), "w") as f:
        f.write(MINI_TRAINER)
    sys.path.insert(0, lib)
    import minitrainer
    dev = torch_xla.device()
    model = _model(torch).to(dev)
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    X, Y = _data(torch, 120, 16), _data(torch, 120, 4, seed=1)
    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(X, Y), batch_size=32)  # 32, 32, 32, 24
    _, site = minitrainer.Trainer(model, opt, dev).fit(loader, epochs=2), driver.here()
    driver.EVIDENCE["own_lines"] = {"sites": [site], "library": "site-packages/minitrainer/"}
    finish("short")



def focal_step(model, opt, x, labels, torch, torch_xla, gamma):
    """A classification step with a focal loss, (1 - p)**gamma weighting: gamma is a Python float, and
    torch_xla bakes pow's exponent into the graph as a constant."""
    opt.zero_grad()
    logp = model(x).log_softmax(-1).gather(1, labels[:, None]).squeeze(1)
    loss = (-(1 - logp.exp()).pow(gamma) * logp).mean()  # the focusing parameter: a Python float
    loss.backward()
    opt.step()
    _, site = torch_xla.sync(), driver.here()
    return loss, site


def train_focal_gamma():
    """A focal-loss schedule raises gamma each epoch, gamma = 1.5 + epoch (1.5, 2.5, 3.5), a Python float
    from the epoch counter; 3 epochs of 4 fixed batches."""
    torch, torch_xla = _torch()
    dev = torch_xla.device()
    model = _model(torch).to(dev)
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    X, L = _data(torch, 32, 16), torch.arange(32).remainder(4)
    import inspect
    src, first = inspect.getsourcelines(focal_step)
    pow_site = f"{ME}:{first + next(k for k, line in enumerate(src) if '.pow(gamma)' in line)}"
    expect, gammas, steps = [], [], 0
    for epoch in range(3):
        gamma = 1.5 + epoch
        for start in range(0, 32, 8):
            loss, site = focal_step(model, opt, X[start:start + 8].to(dev), L[start:start + 8].to(dev), torch, torch_xla, gamma)
            steps += 1
            if start == 0:
                expect.append({"input": f"x f32[8,16], labels s64[8]; gamma {gamma}", "call_site": site,
                               "causes": ["constant_value"] if epoch else [], "against": epoch - 1 if epoch else None,
                               "changed": f"the focal loss's gamma {gammas[-1]} -> {gamma}: pow's exponent, a constant "
                                          f"in the graph" if epoch else None})
                gammas.append(gamma)
        print(f"epoch {epoch}: gamma {gamma} loss {loss.item():.4f}")
    driver.EVIDENCE["python_number"] = {"values": gammas, "site": pow_site, "steps": steps, "every_steps": 4}
    finish("short")
    record_compiles(expect)


def _loader_run():
    """The set-up of the loader scenarios: the model and SGD on the device, a DataLoader of 48 rows in batches
    of 16, and the count of compilations so far (CompileTime's samples)."""
    torch, torch_xla = _torch()
    import torch_xla.debug.metrics as met
    dev = torch_xla.device()
    model = _model(torch).to(dev)
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    X, Y = _data(torch, 48, 16), _data(torch, 48, 4, seed=1)
    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(X, Y), batch_size=16)
    return torch, torch_xla, dev, model, opt, loader, lambda: (met.metric_data("CompileTime") or (0,))[0]


def deep_step(model, opt, x, y, torch, torch_xla, depth):
    """A train step that applies the weight-tied block `depth` times: a Python int loop count, unrolled
    into the graph (model.forward's `for _ in range(depth)`)."""
    opt.zero_grad()
    loss = torch.nn.functional.mse_loss(model(x, depth=depth), y)
    loss.backward()
    opt.step()
    _, site = torch_xla.sync(), driver.here()
    return loss, site


def train_depth_epochs():
    """A curriculum deepens the weight-tied block each epoch, depth = 1 + epoch (1, 2, 3), a Python int; 3
    epochs over a DataLoader of 48 rows in batches of 16, with no metrics report printed (as a user's
    program under recomp run): the steps, epochs and compile times come from what the program counts."""
    torch, torch_xla, dev, model, opt, loader, compiled = _loader_run()
    expect, at, starts, steps, depths = [], [], [], 0, []
    for epoch in range(3):
        depth = 1 + epoch
        starts.append(steps)
        for x, y in loader:
            before = compiled()
            loss, site = deep_step(model, opt, x.to(dev), y.to(dev), torch, torch_xla, depth)
            steps += 1
            if compiled() > before:
                at.append(steps)
                expect.append({"input": f"x f32[16,16], y f32[16,4]; depth {depth}", "call_site": site,
                               "causes": ["graph_structure"] if epoch else [], "against": epoch - 1 if epoch else None,
                               "changed": f"the block applied {depths[-1]} -> {depth} times: a Python int loop count "
                                          f"unrolled into the graph" if epoch else None})
                depths.append(depth)
        print(f"epoch {epoch}: depth {depth} loss {loss.item():.4f}")
    driver.EVIDENCE["cadence"] = {"steps": steps, "compiled_at_steps": at, "epoch_starts": starts, "every_epoch": 1,
                                  "values": depths}
    finish("none")
    record_compiles(expect)


def train_loader_shift():
    """Torch_xla's MpDeviceLoader over a DataLoader of 48 rows in batches of 16 (3 steps an epoch), 3 epochs;
    an augmentation rolls the features by shift = 1 + epoch (1, 2, 3), a Python int torch_xla bakes into the
    graph (roll's shifts). MpDeviceLoader syncs before each batch after the first and at the end of each
    pass (a sync with nothing to run besides): the program counts its batches as its steps."""
    import inspect
    import torch_xla.distributed.parallel_loader as pl
    torch, torch_xla, dev, model, opt, loader, compiled = _loader_run()
    device_loader = pl.MpDeviceLoader(loader, dev)
    src, first = inspect.getsourcelines(train_loader_shift)
    loop_site = f"{ME}:{first + next(k for k, line in enumerate(src) if line.strip().startswith('for x, y in device_loader'))}"
    expect, at, starts, steps, shifts, last = [], [], [], 0, [], 0

    def note(shift, epoch):  # the step that ended at the loader's last sync: did it compile?
        nonlocal last
        n = compiled()
        if n > last:
            at.append(steps)
            expect.append({"input": f"x f32[16,16], y f32[16,4]; shift {shift}", "call_site": loop_site,
                           "causes": ["constant_value"] if epoch else [], "against": epoch - 1 if epoch else None,
                           "changed": f"the roll's shift {shifts[-1]} -> {shift}: a constant in the graph" if epoch else None})
            shifts.append(shift)
        last = n

    for epoch in range(3):
        shift = 1 + epoch
        starts.append(steps)
        for x, y in device_loader:
            if steps > starts[-1]:
                note(shift, epoch)
            opt.zero_grad()
            loss = torch.nn.functional.mse_loss(model(torch.roll(x, shifts=shift, dims=1)), y)
            loss.backward()
            opt.step()
            steps += 1
        note(shift, epoch)
        print(f"epoch {epoch}: shift {shift} loss {loss.item():.4f}")
    driver.EVIDENCE["cadence"] = {"steps": steps, "compiled_at_steps": at, "epoch_starts": starts, "every_epoch": 1,
                                  "values": []}
    finish("none")
    record_compiles(expect)


def train_metric_merged():
    """The adamw-clean loop (AdamW, 3 epochs of 4 fixed 32-row batches) with an epoch-end accuracy over the
    training set kept as a tensor and read with .item() in the epoch's print: the .item() runs it as a graph of
    its own, but the tensor stays pending, so the next epoch's first torch_xla.sync() merges its ops into the
    step's graph."""
    import inspect
    torch, torch_xla = _torch()
    dev = torch_xla.device()
    model = _model(torch).to(dev)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    X, Y, L = _data(torch, 128, 16), _data(torch, 128, 4, seed=1), torch.arange(128).remainder(4)
    src, first = inspect.getsourcelines(train_step)
    site = f"{ME}:{first + next(k for k, line in enumerate(src) if 'torch_xla.sync()' in line)}"
    expect = []
    for epoch in range(3):
        for start in range(0, 128, 32):
            loss = train_step(model, opt, X[start:start + 32].to(dev), Y[start:start + 32].to(dev), torch, torch_xla)
            step = {"call_site": site, "input": "x f32[32,16], y f32[32,4]"}
            if epoch == 0 and start == 0:
                expect.append(dict(step, causes=[], against=None, changed=None))
            elif epoch == 0 and start == 32:
                expect.append(dict(step, causes=["graph_structure"], against=0, once=True,
                                   changed="AdamW's state, built inside step 1's graph, is an input from step 2 on"))
            elif epoch == 1 and start == 0:
                expect.append(dict(step, input="x f32[32,16], y f32[32,4]; the accuracy's X f32[128,16], labels s64[128]",
                                   causes=["graph_structure"], against=1, merged=True,
                                   changed="step 2's graph with the last epoch's accuracy merged in: the tensor read with "
                                           ".item() stayed pending, so this sync computed it again with the step"))
        with torch.no_grad():
            acc = (model(X.to(dev)).argmax(-1) == L.to(dev)).float().mean()
        _, acc_site = print(f"epoch {epoch}: loss {loss.item():.4f} accuracy {acc.item():.2f}"), driver.here()
        if epoch == 0:
            expect.append({"call_site": acc_site, "input": "the accuracy: X f32[128,16], labels s64[128]",
                           "causes": [], "against": None, "changed": None})
    finish("short")
    record_compiles(expect)


def evaluate(model, val, dev, torch):
    """The validation loss over a DataLoader, each batch's loss read with .item() (no sync: no step)."""
    total, site = 0.0, None
    with torch.no_grad():
        for x, y in val:
            total, site = total + torch.nn.functional.mse_loss(model(x.to(dev)), y.to(dev)).item(), driver.here()
    return total, site


def train_eval_loader():
    """depth-epochs' curriculum (depth = 1 + epoch, 3 epochs of 3 steps over a DataLoader of 48 rows) with a
    validation DataLoader (16 rows, one batch) evaluated after each epoch's second step and at its end: the
    validation loader is iterated twice as often as the training loader, each time after a step more."""
    torch, torch_xla, dev, model, opt, loader, compiled = _loader_run()
    val = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(_data(torch, 16, 16, seed=2),
                                                                     _data(torch, 16, 4, seed=3)), batch_size=16)
    expect, at, starts, steps, depths, last = [], [], [], 0, [], None

    def evaluated(epoch):
        before = compiled()
        loss, site = evaluate(model, val, dev, torch)
        if compiled() > before:
            expect.append({"input": "the validation batch: x f32[16,16], y f32[16,4]", "call_site": site,
                           "causes": [], "against": None, "changed": None})
        return loss

    for epoch in range(3):
        depth = 1 + epoch
        starts.append(steps)
        for i, (x, y) in enumerate(loader):
            before = compiled()
            loss, site = deep_step(model, opt, x.to(dev), y.to(dev), torch, torch_xla, depth)
            steps += 1
            if compiled() > before:
                at.append(steps)
                expect.append({"input": f"x f32[16,16], y f32[16,4]; depth {depth}", "call_site": site,
                               "causes": ["graph_structure"] if epoch else [],
                               "against": last,
                               "changed": f"the block applied {depths[-1]} -> {depth} times: a Python int loop count "
                                          f"unrolled into the graph" if epoch else None})
                depths.append(depth)
                last = len(expect) - 1
            if i == 1:
                evaluated(epoch)
        print(f"epoch {epoch}: depth {depth} loss {loss.item():.4f} validation {evaluated(epoch):.4f}")
    driver.EVIDENCE["cadence"] = {"steps": steps, "compiled_at_steps": at, "epoch_starts": starts, "every_epoch": 1,
                                  "values": depths}
    finish("none")
    record_compiles(expect)


def meta_step(w, x, y, inner, opt, torch, torch_xla):
    """A meta-learning step: `inner` unrolled SGD steps on a fast copy of the weights (the first pass
    differentiates w, the later ones the fast copy), then the outer loss's gradient."""
    opt.zero_grad()
    fast = w
    for _ in range(inner):
        loss = ((x @ fast - y) ** 2).mean()
        (g,) = torch.autograd.grad(loss, fast, create_graph=True)
        fast = fast - 0.1 * g
    outer = ((x @ fast - y) ** 2).mean()
    outer.backward()
    opt.step()
    _, site = torch_xla.sync(), driver.here()
    return outer, site


def train_inner_steps():
    """A meta-learning loop whose inner step count grows with the epoch, inner = 1 + epoch (1, 2, 3), over a
    DataLoader of 60 rows in batches of 20 (3 steps an epoch), SGD on the outer loss."""
    torch, torch_xla = _torch()
    import torch_xla.debug.metrics as met
    dev = torch_xla.device()
    X, Y = _data(torch, 60, 12), _data(torch, 60, 1, seed=1)
    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(X, Y), batch_size=20)
    w = torch.zeros(12, 1).to(dev).requires_grad_()
    opt = torch.optim.SGD([w], lr=0.01)
    expect, at, starts, steps, last = [], [], [], 0, None
    for epoch in range(3):
        inner = 1 + epoch
        starts.append(steps)
        for x, y in loader:
            before = (met.metric_data("CompileTime") or (0,))[0]
            loss, site = meta_step(w, x.to(dev), y.to(dev), inner, opt, torch, torch_xla)
            steps += 1
            if (met.metric_data("CompileTime") or (0,))[0] > before:
                at.append(steps)
                expect.append({"input": f"x f32[20,12], y f32[20,1]; inner {inner}", "call_site": site,
                               "causes": ["graph_structure"] if epoch else [], "against": last,
                               "changed": f"{inner - 1} -> {inner} unrolled inner steps" if epoch else None})
                last = len(expect) - 1
        print(f"epoch {epoch}: inner {inner} loss {loss.item():.4f}")
    driver.EVIDENCE["cadence"] = {"steps": steps, "compiled_at_steps": at, "epoch_starts": starts, "every_epoch": 1,
                                  "values": []}
    driver.EVIDENCE["op_growth"] = True
    finish("none")
    record_compiles(expect)


def box_step(model, opt, x, objects, torch, torch_xla):
    """A detection-style step: the loss loops over the objects of the batch (a list of (row, class) pairs of
    Python ints, as many as the batch holds), a cross-entropy per object: the loop is unrolled into the graph."""
    opt.zero_grad()
    logp = model(x).log_softmax(-1)
    terms = []
    for row, cls in objects:  # as many objects as this batch has: a Python loop count
        terms.append(-logp[row, cls])
    loss = torch.stack(terms).mean()  # the mean over the batch's objects
    loss.backward()
    opt.step()
    _, site = torch_xla.sync(), driver.here()
    return loss, site


OBJECT_COUNTS = (2, 3, 2, 4, 3, 4)


def train_object_loop():
    """Six batches of 8 rows whose object counts are 2, 3, 2, 4, 3, 4: a loss summed over each batch's objects
    in a Python loop; counts 2, 3 and 4 each compile the step once."""
    torch, torch_xla = _torch()
    import torch_xla.debug.metrics as met
    dev = torch_xla.device()
    model = _model(torch).to(dev)
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    X = _data(torch, 48, 16)
    expect, seen, last = [], {}, None
    for i, n in enumerate(OBJECT_COUNTS):
        objects = [(k, k % 4) for k in range(n)]
        before = (met.metric_data("CompileTime") or (0,))[0]
        loss, site = box_step(model, opt, X[i * 8:(i + 1) * 8].to(dev), objects, torch, torch_xla)
        if (met.metric_data("CompileTime") or (0,))[0] > before:
            expect.append({"input": f"x f32[8,16]; {n} objects", "call_site": site,
                           "causes": ["graph_structure"] if expect else [], "against": last,
                           "changed": f"the loss's loop over the batch's objects ran {OBJECT_COUNTS[i - 1]} -> {n} times"
                                      if expect else None})
            last = len(expect) - 1
            seen[n] = True
    print(f"loss {loss.item():.4f}")
    import inspect
    src, first = inspect.getsourcelines(box_step)
    loop_site = f"{ME}:{first + next(k for k, line in enumerate(src) if line.strip().startswith('terms.append'))}"
    driver.EVIDENCE["loop_count"] = {"counts": list(seen), "site": loop_site, "fed": list(OBJECT_COUNTS)}
    finish("short")
    record_compiles(expect)


def power_step(model, opt, x, y, torch, torch_xla, p):
    """A regression step with a power loss |err|**p: p is a Python float, pow's exponent, baked into the graph;
    its backward bakes p and p - 1 as well."""
    opt.zero_grad()
    loss = (model(x) - y).abs().pow(p).mean()  # the loss's exponent: a Python float
    loss.backward()
    opt.step()
    _, site = torch_xla.sync(), driver.here()
    return loss, site


def train_power_schedule():
    """A robust-loss schedule raises the loss's exponent each epoch, p = 2.5 + 0.5 * epoch (2.5, 3.0, 3.5), a
    Python float; 3 epochs of 3 fixed batches."""
    torch, torch_xla = _torch()
    dev = torch_xla.device()
    model = _model(torch).to(dev)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    X, Y = _data(torch, 24, 16), _data(torch, 24, 4, seed=1)
    import inspect
    src, first = inspect.getsourcelines(power_step)
    pow_site = f"{ME}:{first + next(k for k, line in enumerate(src) if '.pow(p)' in line)}"
    expect, values, steps = [], [], 0
    for epoch in range(3):
        p = 2.5 + 0.5 * epoch
        for start in range(0, 24, 8):
            loss, site = power_step(model, opt, X[start:start + 8].to(dev), Y[start:start + 8].to(dev), torch, torch_xla, p)
            steps += 1
            if start == 0:
                expect.append({"input": f"x f32[8,16], y f32[8,4]; p {p}", "call_site": site,
                               "causes": ["constant_value"] if epoch else [], "against": epoch - 1 if epoch else None,
                               "changed": f"the loss's exponent p {values[-1]} -> {p}: pow's exponent, a constant in "
                                          f"the graph (and p - 1 in its backward)" if epoch else None})
                values.append(p)
        print(f"epoch {epoch}: p {p} loss {loss.item():.4f}")
    driver.EVIDENCE["python_number"] = {"values": values, "site": pow_site, "steps": steps, "every_steps": 3}
    finish("short")
    record_compiles(expect)


def decode_step(head, cache, tok, torch, torch_xla):
    """One token of greedy decoding with a key cache that grows by concatenation: the cache is [1, T, 16] and
    T grows by one each token, so every token is a new input shape."""
    k = head(tok)  # the new token's key, [1, 1, 16]
    cache = torch.cat([cache, k], dim=1)  # the growing cache
    att = torch.softmax((cache @ k.transpose(1, 2)).squeeze(-1), dim=-1)  # [1, T]
    out = (att[:, :, None] * cache).sum(dim=1, keepdim=True)
    _, site = torch_xla.sync(), driver.here()
    return cache, out, site


def eval_kv_cache():
    """A prompt of 6 tokens, then 6 generated tokens, each appended to the cache with torch.cat."""
    torch, torch_xla = _torch()
    import torch_xla.debug.metrics as met
    dev = torch_xla.device()
    head = torch.nn.Linear(16, 16).to(dev)
    expect, sizes, last = [], [], None
    with torch.no_grad():
        cache = _data(torch, 1, 6, 16).to(dev)  # the prompt's keys, made on the host: no graph of its own
        tok = _data(torch, 1, 1, 16, seed=1).to(dev)
        for t in range(6):
            before = (met.metric_data("CompileTime") or (0,))[0]
            n = cache.shape[1]
            cache, tok, site = decode_step(head, cache, tok, torch, torch_xla)
            if (met.metric_data("CompileTime") or (0,))[0] > before:
                expect.append({"input": f"cache f32[1,{n},16]", "call_site": site,
                               "causes": ["input_shape"] if expect else [], "against": last,
                               "changed": f"the key cache grew {sizes[-1]} -> {n} tokens (torch.cat)" if expect else None})
                last = len(expect) - 1
                sizes.append(n)
    print(f"cache {tuple(cache.shape)}")
    driver.EVIDENCE["growing_cache"] = {"sizes": sizes, "step": 1, "dimension": 1}
    finish("short")
    record_compiles(expect)


# --- the scenarios -------------------------------------------------------------------------------

def score_candidates():
    """A scoring job: 100 candidates scored in batches of 32 under torch.no_grad() (32, 32, 32, then
    the 4-row remainder), each batch's scores read back to the host. Every candidate's score is
    wanted: dropping the last batch would lose 4 of them."""
    torch, torch_xla = _torch()
    dev = torch_xla.device()
    model = _model(torch).to(dev)
    model.eval()
    X = _data(torch, 100, 16, seed=4)
    scores = []
    with torch.no_grad():
        for start in range(0, 100, 32):
            s = model(X[start:start + 32].to(dev)).sum(dim=1)
            torch_xla.sync()
            scores.append(s.cpu())
    print(f"scored {sum(len(s) for s in scores)} candidates")
    finish("full")


ENV = {"PJRT_DEVICE": "CPU", "PT_XLA_DEBUG_LEVEL": "2", "XLA_HLO_DEBUG": "1"}
ENV_PROFILER = dict(ENV, PT_XLA_DEBUG="1")

S = collections.OrderedDict()
S["seq-length"] = dict(program=train_seq_length, env=ENV, recompiled=["train_step"], cause="input_shape",
    reason="user torch_xla.sync",
    description=("A train step (forward, MSE loss, backward, SGD step, torch_xla.sync) on [4, seq, 16] inputs, "
                 "two epochs over sequence-length buckets 8, 12, 16, 20, 24, 28. Each new length is a new graph "
                 "(a non-batch dimension changed), compiled once in epoch 1; epoch 2 finds all six in the "
                 "in-memory graph cache."))
S["batch-size"] = dict(program=train_partial_batches, env=ENV, recompiled=["train_partial_batches"],
    cause="batch_size", reason="user torch_xla.sync",
    description=("Two epochs over 120 rows in batches of 32, 32, 32 and the 24-row remainder, the step ending "
                 "in xm.mark_step() (deprecated in 2.9, a wrapper of torch_xla.sync). The remainder compiles "
                 "the step again; epoch 2 reuses both graphs from the in-memory cache (Execution Analysis "
                 "only, CachedCompile)."))
S["scoring-tail"] = dict(program=score_candidates, env=ENV, recompiled=["score_candidates"], cause="batch_size",
    reason="user torch_xla.sync", inference=True,
    description=("A scoring job, forward only under torch.no_grad(): 100 candidates in batches of 32, 32, 32 and "
                 "the 4-row remainder, each batch's scores read back. The remainder compiles the graph again; "
                 "the graph computes no gradient, so the fix must keep every candidate (pad the last batch and "
                 "drop the padded rows' scores), never DataLoader(drop_last=True)."))
S["fixed"] = dict(program=train_padded, env=ENV, recompiled=[], cause=None,
    description=("The batch-size loop fixed: the 24-row remainder is padded on the host to 32 rows with a "
                 "loss mask, so the step compiles once and every other step is a cached execution."))
S["compile-named"] = dict(program=train_compiled, env=ENV, recompiled=["train_step"], cause="batch_size",
    reason="torch_xla.compile",
    description=("The step wrapped in torch_xla.compile(step, full_graph=True, name='train_step') and called "
                 "on 32, 32, 32 and 24 rows, two epochs. The graph has a name ('Graph Name: train_step' in the "
                 "analysis, train_step.N in the dump); the 24-row batch compiles it again."))
S["dtype"] = dict(program=train_dtype, env=ENV, recompiled=["train_step"], cause="dtype",
    reason="user torch_xla.sync",
    description=("Two train steps in float32, then the model and the data cast to bfloat16 on the host "
                 "(mixed precision switched on part-way) and two more: the same step compiles again with "
                 "bf16 parameters and inputs."))
S["python-scalar"] = dict(program=train_python_scalar, env=ENV, recompiled=[], cause=None,
    description=("The SGD learning rate (0.1 * 0.9**step) and a loss-scale factor (0.5, 0.25, 0.125, ...) are "
                 "Python floats that change every step. torch_xla does not bake them into the graph: each "
                 "is uploaded as device data (an f32[] parameter), so the step compiles once."))
S["python-scalar-one"] = dict(program=train_python_scalar_one, env=ENV, recompiled=["train_step"],
    cause="constant_value", reason="user torch_xla.sync",
    description=("A warm-up factor min(1.0, (step + 1) / 4), a Python float, scales the loss: 0.25, 0.5, 0.75 "
                 "are device data (an f32[] parameter, one graph), but torch_xla treats 0 and 1 as special "
                 "scalars and bakes 1.0 into the graph as a constant, so the step compiles again when the "
                 "warm-up ends (a parameter became constant(1))."))
S["python-int"] = dict(program=train_python_int, env=ENV, recompiled=["train_step"], cause="graph_structure",
    reason="user torch_xla.sync",
    description=("A curriculum applies the weight-tied block depth = 1, 1, 2, 2, 3, 3 times, a Python int "
                 "loop count unrolled into the graph: each new depth is a different graph."))
S["item-sync"] = dict(program=train_item_sync, env=ENV_PROFILER, recompiled=[], cause=None,
    reason="most likely user code trying to access tensor value before torch_xla.sync",
    description=("The loss is printed with loss.item() between forward and backward in every step, with "
                 "PT_XLA_DEBUG=1 too. The .item() cuts the step in two: the forward graph is compiled and run "
                 "at the .item() (cause: 'most likely user code trying to access tensor value before "
                 "torch_xla.sync'), the rest at torch_xla.sync(). Two different graphs, each compiled once "
                 "and then cached; both are SyncTensorsGraph.N in the dump. PT_XLA_DEBUG=1 adds the "
                 "'pt-xla-profiler: TransferFromDeviceTime too frequent' warning and, at exit, the unlowered-op "
                 "(_local_scalar_dense) summary."))
S["persistent-cache"] = dict(program=train_persistent_cache, env=ENV, recompiled=[], cause=None, runs=2,
    description=("The same fixed-shape program run twice in two processes with "
                 "torch_xla.runtime.initialize_cache('cache', readonly=False). Run 1 misses and writes the "
                 "entry (PersistentCacheMiss). Run 2 finds it but the CPU PJRT client cannot deserialize "
                 "executables ('Failed to deserialize executable: UNIMPLEMENTED', "
                 "PersistentCacheDeserializeFailure), so it compiles the same graph again: no cache hit on "
                 "CPU. Nothing recompiled within a run."))
S["dynamo-openxla"] = dict(program=eval_dynamo, env=dict(ENV, TORCH_LOGS="recompiles", PT_XLA_DEBUG_MAX_FRAME="32"), recompiled=["forward"],
    cause="input_shape", reason="size mismatch at index 1. expected 16, actual 24", reason_in_block=False, detail=True,
    description=("The model compiled with torch.compile(model, backend='openxla') and evaluated (no_grad) on "
                 "[4, seq, 16] inputs with seq 16, 16, 24, 24, 32. Dynamo guards on the input's size, so each new "
                 "length recompiles forward: with TORCH_LOGS=recompiles dynamo says 'Recompiling function forward "
                 "in FILE:LINE' and 'triggered by the following guard failure(s): tensor 'x' size mismatch at index 1. "
                 "expected 16, actual 24'. torch_xla's Compilation Analysis says 'dynamo is compiling a FX graph to "
                 "HLO' and its frames stop in torch's own code, so the identity is dynamo's: the function and the "
                 "line of its def, 'torch_xla_runs.py:LINE (forward)'. All three graphs are SyncTensorsGraph in the "
                 "dump."))
S["item-metric"] = dict(program=train_item_metric, env=ENV, recompiled=[], cause=None, detail=True,
    description=("A classification step ending in torch_xla.sync(), then the batch accuracy read with "
                 "(logits.argmax(-1) == labels).float().mean().item() after the sync, 5 steps: the .item() "
                 "compiles a small graph of its own (argmax, compare, mean) once, the step's graph is compiled "
                 "once; both are SyncTensorsGraph in the dump, two different graphs, no recompilation."))
S["debug-profiler"] = dict(program=train_seq_length, env=ENV_PROFILER, recompiled=["train_step"],
    cause="input_shape", reason="user torch_xla.sync", profiler="CompileTime too frequent",
    description=("The seq-length program with PT_XLA_DEBUG=1 as well. After the 11th step (more than 10 steps, "
                 "and 6 compilations are more than half of 11) torch_xla prints 'pt-xla-profiler: CompileTime "
                 "too frequent: 6 counts during 11 steps'; at exit the unlowered-op summary of the .item() "
                 "calls."))

S["adamw-clean"] = dict(program=train_adamw_clean, env=ENV, recompiled=[], cause=None, detail=True,
    state_once=["train_step"],
    description=("A clean training loop: torch.optim.AdamW over 3 epochs of 4 fixed 32-row batches (the step ends "
                 "in torch_xla.sync()), and at each epoch's end a validation accuracy under no_grad read with "
                 ".item(). AdamW creates its state (exp_avg, exp_avg_sq, step) inside the first step, so step 1's "
                 "graph (state built from zeros) differs from step 2's (state an input): the step compiles twice, "
                 "once each, then every step is a cached execution. The accuracy is a third graph, compiled at "
                 "the end of epoch 1 and cached after. Nothing recompiles: state created once and a one-shot "
                 "program are not recompilations, and guard must pass with its defaults."))
S["host-reads"] = dict(program=train_host_reads, env=ENV, recompiled=[], cause=None,
    reason="most likely user code trying to access tensor value before torch_xla.sync",
    description=("Every step reads tensors on the host before torch_xla.sync(): print(tensor) of the first row's "
                 "logits, then loss.item() > 100 as a divergence check, 6 steps. Each read makes torch_xla cut the "
                 "step and run what it has so far (cause: 'most likely user code trying to access tensor value "
                 "before torch_xla.sync'), waiting for the device: three graphs a step (the forward at the print, "
                 "the loss at .item(), the rest at sync), each compiled once and then cached; no recompilation, "
                 "but two device round trips a step at the program's two lines."))
S["dynamo-float"] = dict(program=eval_dynamo_float, env=dict(ENV, TORCH_LOGS="recompiles", PT_XLA_DEBUG_MAX_FRAME="32"),
    recompiled=["sample_logits"], cause="graph_structure", reason="temperature == 1.0", reason_in_block=False,
    description=("torch.compile(sample_logits, backend='openxla') of a sampling head called with a Python float "
                 "temperature 1.0, 1.0, 1.5, 1.5. Dynamo specialises the float on its first value (the XLA graph holds "
                 "the constant 1.0); at 1.5 its guard fails ('triggered by the following guard failure(s): - 0/0: "
                 "temperature == 1.0') and it compiles the function again with the temperature as an input (the second "
                 "XLA graph takes a parameter where the first had the constant), which 1.5 then reuses."))
S["epoch-window"] = dict(program=train_epoch_window, env=ENV, recompiled=["windowed_step"], cause="constant_value",
    reason="user torch_xla.sync", detail=True,
    description=("A curriculum widens a look-back mask each epoch: window = 3 + 2 * epoch (3, 5, 7), a Python int "
                 "taken from the epoch counter and used as torch.triu's diagonal (-window). torch_xla uploads most "
                 "Python numbers as device data, but an op's integer argument like triu's diagonal is baked into "
                 "the graph as a constant: every epoch the step is a new graph that differs from the last only by "
                 "that constant, compiled at the epoch's first step (steps 1, 5 and 9 of 12) and reused for the "
                 "epoch's other three."))
ENV_LEVEL1 = dict(ENV, PT_XLA_DEBUG_LEVEL="1")
S["adamw-clean-level1"] = dict(program=train_adamw_clean, env=ENV_LEVEL1, recompiled=[], cause=None, detail=True,
    state_once=["train_step"], guard_inconclusive="PT_XLA_DEBUG_LEVEL=2",
    description=("The adamw-clean program with PT_XLA_DEBUG_LEVEL=1, as `recomp run` and most users set it: a Compilation "
                 "Analysis block per compilation (cause, graph hash, number of graph inputs and outputs, frames) and no "
                 "Execution Analysis. The step's second graph (AdamW's state an input: 17 -> 33 graph inputs, the same 41 "
                 "outputs) looks like set-up, but the log cannot show that the first graph never ran again and the second "
                 "ran every step after: guard on the log alone must be inconclusive and say how to decide (level 2 or the "
                 "dump), never pass; with the dump (explain) the step is set-up."))
S["batch-size-level1"] = dict(program=train_partial_batches, env=ENV_LEVEL1, recompiled=["train_partial_batches"],
    cause="batch_size", reason="user torch_xla.sync",
    description=("The batch-size program with PT_XLA_DEBUG_LEVEL=1: the 24-row remainder compiles the step a second "
                 "time, with as many graph inputs and outputs as the first (11 and 25). A real recompilation: guard on the "
                 "log alone must fail, not call it set-up nor inconclusive."))
S["library-loop"] = dict(program=train_library_loop, env=ENV, recompiled=["train_library_loop"], cause="batch_size",
    reason="in parallel loader at step end",
    description=("A trainer library installed in site-packages (an HF-style Trainer, written for the run into a "
                 "site-packages folder) owns the loop: it wraps a DataLoader of 120 rows in batches of 32 in torch_xla's "
                 "MpDeviceLoader, which syncs at each batch inside torch_xla. Every compilation's frames begin in "
                 "torch_xla and the trainer; the program's own line is its one call to Trainer.fit. The 24-row "
                 "remainder compiles the step again. recomp's lines must be the program's own, never the library's."))
S["focal-gamma"] = dict(program=train_focal_gamma, env=ENV, recompiled=["focal_step"], cause="constant_value",
    reason="user torch_xla.sync", detail=True,
    description=("A focal loss whose focusing parameter rises each epoch: gamma = 1.5 + epoch (1.5, 2.5, 3.5), a Python "
                 "float used as pow's exponent. torch_xla uploads a float in arithmetic as device data, but pow's "
                 "exponent is baked into the graph as a constant: every epoch the step is a new graph that differs "
                 "from the last only by it, compiled at steps 1, 5 and 9 of 12."))

S["depth-epochs"] = dict(program=train_depth_epochs, env=ENV_LEVEL1, recompiled=["deep_step"], cause="graph_structure",
    reason="user torch_xla.sync", detail=True, probe=True,
    description=("A curriculum deepens the model each epoch: the weight-tied block is applied depth = 1 + epoch (1, 2, 3) "
                 "times, a Python int loop count unrolled into the graph, over a DataLoader of 48 rows in batches of 16 "
                 "(3 steps an epoch, 3 epochs). Run as recomp run runs it: PT_XLA_DEBUG_LEVEL=1 (no step in the log), "
                 "recomp run's probe (it counts the steps at torch_xla.sync and the DataLoader's epochs), and no metrics "
                 "report. The step compiles again at the first step of every epoch (steps 1, 4 and 7 of 9): it recurs "
                 "every epoch."))

S["loader-shift"] = dict(program=train_loader_shift, env=ENV_LEVEL1, recompiled=["train_loader_shift"],
    cause="constant_value", reason="in parallel loader at step end", detail=True, probe=True,
    description=("torch_xla's MpDeviceLoader over a DataLoader of 48 rows in batches of 16 (3 steps an epoch, 3 epochs), "
                 "with an augmentation that rolls the features by shift = 1 + epoch (1, 2, 3): a Python int torch_xla "
                 "bakes into the graph (roll's shifts), so the step compiles again at the first step of every epoch "
                 "(steps 1, 4 and 7 of 9). MpDeviceLoader syncs before each batch after the first and once more at the "
                 "end of each pass, with nothing to run: those are no steps. Run as recomp run runs it (PT_XLA_DEBUG_LEVEL=1, "
                 "the probe, no metrics report)."))

S["metric-merged"] = dict(program=train_metric_merged, env=ENV, recompiled=["train_step"], cause="graph_structure",
    reason="user torch_xla.sync", detail=True,
    description=("The adamw-clean loop with a user's epoch-end metric: the accuracy over the 128 training rows, kept as a "
                 "tensor and read with .item() in the epoch's print. The .item() compiles and runs the accuracy as a "
                 "graph of its own, but the tensor stays pending: the next epoch's first torch_xla.sync() computes it "
                 "again inside the step's graph, a third step graph (step 2's graph plus the accuracy's ops, inputs and "
                 "output), compiled at epoch 2's first step and reused at epoch 3's. It must be compared with step 2's "
                 "graph and named as ops merged in, not as a change of the step."))

S["eval-loader"] = dict(program=train_eval_loader, env=ENV_LEVEL1, recompiled=["deep_step"], cause="graph_structure",
    reason="user torch_xla.sync", detail=True, probe=True,
    description=("depth-epochs' curriculum (the weight-tied block applied depth = 1 + epoch times, 3 epochs of 3 steps "
                 "over a DataLoader of 48 rows) with a validation DataLoader of one 16-row batch evaluated after each "
                 "epoch's second step and at its end, each loss read with .item() (no sync). The validation loader is "
                 "iterated 6 times, the training loader 3: the epochs are the training loader's (they begin at steps "
                 "0, 3 and 6), and the step compiles again at the first step of every epoch (1, 4 and 7 of 9). Run as "
                 "recomp run runs it (PT_XLA_DEBUG_LEVEL=1, the probe, no metrics report)."))

ENV_PLAIN = {k: v for k, v in ENV_LEVEL1.items() if k != "XLA_HLO_DEBUG"}
S["depth-plain"] = dict(program=train_depth_epochs, env=ENV_PLAIN, recompiled=["deep_step"], cause="graph_structure",
    reason="user torch_xla.sync", detail=True, probe=True, count_unnamed="XLA_HLO_DEBUG=1",
    description=("The depth-epochs program (depth = 1 + epoch, a Python int loop count) with the settings recomp run "
                 "uses: PT_XLA_DEBUG_LEVEL=1 and no XLA_HLO_DEBUG, so the dumped ops carry no source lines. The step "
                 "recompiles at every epoch's first step (1, 4, 7 of 9), but which line's loop changed its count cannot "
                 "be told from the dump: recomp must say it recurs every epoch, name no loop count, and say that "
                 "XLA_HLO_DEBUG=1 would name it."))

S["scoring-plain"] = dict(program=score_candidates, env=ENV_PLAIN, recompiled=["score_candidates"], cause="batch_size",
    reason="user torch_xla.sync", probe=True, inference=True,
    description=("The scoring-tail program with the settings recomp run uses: PT_XLA_DEBUG_LEVEL=1, no XLA_HLO_DEBUG (the "
                 "dumped ops carry no metadata, so the graph cannot tell it computes no gradient) and the probe, whose sync "
                 "records say autograd was off in each step that compiled (grad false): the fix must keep every "
                 "candidate, never DataLoader(drop_last=True)."))

S["inner-steps"] = dict(program=train_inner_steps, env=ENV_LEVEL1, recompiled=["meta_step"], cause="graph_structure",
    reason="user torch_xla.sync", detail=True, probe=True,
    description=("A meta-learning loop: each step runs inner = 1 + epoch (1, 2, 3) unrolled SGD steps on a fast copy of "
                 "the weights, then SGD on the outer loss; 3 epochs of 3 steps. Each epoch's first step compiles a new "
                 "graph. The inner loop's first pass differentiates the weights and the others the fast copy, so the "
                 "ops of its lines grow by the same number each epoch without being whole copies of one block: recomp "
                 "must name the line and its op counts (the dump's op metadata, counted by this judge as op_growth), "
                 "not a loop count."))

S["object-loop"] = dict(program=train_object_loop, env=ENV, recompiled=["box_step"], cause="graph_structure",
    reason="user torch_xla.sync", detail=True,
    description=("A detection-style loss that loops over the objects of each batch in Python (a cross-entropy per "
                 "object's log-probability, indexed with Python ints, stacked and averaged): six batches of 8 rows with "
                 "2, 3, 2, 4, 3 and 4 objects. The loop is unrolled into the graph, so each new object count (2, 3, 4) is a "
                 "new graph with more ops, and the mean over the objects bakes the count in as its divisor (a constant "
                 "2 -> 3 that follows the new ops): the cause is the loop count, the graph's structure, compiled at the "
                 "batches of 2, 3 and 4 objects and reused for the repeats."))
S["power-schedule"] = dict(program=train_power_schedule, env=ENV, recompiled=["power_step"], cause="constant_value",
    reason="user torch_xla.sync", detail=True,
    description=("A robust-loss schedule raises the loss's exponent each epoch: p = 2.5 + 0.5 * epoch (2.5, 3.0, 3.5), a "
                 "Python float used as pow's exponent in |err|**p. torch_xla bakes pow's exponent into the graph, and its "
                 "backward bakes p - 1 (1.5, 2.0, 2.5) too: one Python value, two constants of the graph (2.5 is the "
                 "forward's exponent at epoch 0 and the backward's at epoch 2). Compiled at steps 1, 4 and 7 of 9."))
S["kv-cache"] = dict(program=eval_kv_cache, env=ENV, recompiled=["decode_step"], cause="input_shape",
    reason="user torch_xla.sync", detail=True,
    description=("Greedy decoding with a key cache that grows by torch.cat each token: a 6-token prompt, then 6 tokens, "
                 "the cache [1, T, 16] with T = 6, 7, ..., 11. Every token is a new input shape, so every token compiles "
                 "the step again (6 compilations); the fix is a cache allocated at its maximum length and written in place "
                 "(index_copy_ at the token's position, with a mask over the positions not yet written)."))

# --- the evidence hook's judgement: torch_xla's analysis blocks and metrics ----------------------------

BLOCK_LINE = re.compile(r"^(Compilation|Execution|Unexpected Execution) Analysis: (.*)$")
FRAME = re.compile(r"^  (\S.*) \((.+):(\d+)\)$")


def parse_analysis(text):
    """torch_xla's Compilation/Execution Analysis blocks: kind, cause, name, hash, identity."""
    blocks, cur = [], None
    for line in text.splitlines():
        m = BLOCK_LINE.match(line)
        if not m:
            continue
        kind, body = m.groups()
        if body.startswith("====") and (cur is None or cur.get("closed")):
            cur = {"kind": kind, "frames": [], "closed": False, "section": None}
            blocks.append(cur)
            continue
        if cur is None:
            continue
        if body.startswith("===="):
            cur["closed"] = True
        elif body in ("Compilation Cause", "Execution Cause"):
            cur["section"] = "cause"
        elif body.startswith("Graph Info:"):
            cur["section"] = "info"
        elif body.startswith("Python Frame Triggered Execution:"):
            cur["section"] = "frames"
        elif body.startswith("  Graph Name: "):
            cur["name"] = body[len("  Graph Name: "):]
        elif body.startswith("  Graph Hash: "):
            cur["hash"] = body[len("  Graph Hash: "):]
        elif cur["section"] == "cause" and body.startswith("  "):
            cur["cause"] = body.strip()
        elif cur["section"] == "frames":
            f = FRAME.match(body)
            if f:
                cur["frames"].append((f.group(1), f.group(2), int(f.group(3))))
    for b in blocks:
        user = [(fn, os.path.basename(path), line) for fn, path, line in b["frames"]
                if os.path.basename(path) == ME]
        b["frame"] = f"{user[0][1]}:{user[0][2]} ({user[0][0]})" if user else None
        b["identity"] = b.get("name") or b["frame"]
    return blocks


def judge(run):
    spec, logs, evs, texts = run.spec, run.logs, run.evidence, run.texts
    fams = run.families()
    problems = run.problems

    # what torch_xla said, log by log: one Compilation Analysis block per compilation
    per_identity = collections.Counter()
    recomp_blocks = collections.defaultdict(list)
    blocks = []  # each log's Compilation Analysis blocks
    for log, ev, text in zip(logs, evs, texts):
        comp = [b for b in parse_analysis(text) if b["kind"] == "Compilation"]
        for b in comp:  # dynamo's graphs: torch_xla's frames stop in torch; the program names the function
            if b["identity"] is None and "dynamo" in b.get("cause", "") and ev.get("dynamo_identity"):
                b["identity"] = ev["dynamo_identity"]
        blocks.append(comp)
        if len(comp) != ev["compile_time_samples"]:
            problems.append(f"{log}: {len(comp)} Compilation Analysis blocks but "
                            f"{ev['compile_time_samples']} CompileTime samples")
        if ev["compile_time_samples"] != ev["uncached_compile"]:
            problems.append(f"{log}: CompileTime {ev['compile_time_samples']} != UncachedCompile {ev['uncached_compile']}")
        seen = collections.Counter()
        for b in comp:
            if b["identity"] is None:
                problems.append(f"{log}: a compilation with no name and no frame of {ME}")
                continue
            seen[b["identity"]] += 1
            if seen[b["identity"]] > 1:
                recomp_blocks[b["identity"]].append(b)
        for ident, n in seen.items():
            per_identity[ident] = max(per_identity[ident], n)  # recompiled within one process
    recompiled = sorted(i for i, n in per_identity.items() if n > 1)
    # state created once (spec state_once: functions whose second compilation is step 2 after the
    # optimiser built its state in step 1): compiled twice, not a recompilation
    once = [i for i in recompiled if i.endswith(")") and re.sub(r"^.* \((.+)\)$", r"\1", i)
            in spec.get("state_once", ()) and per_identity[i] == 2]
    recompiled = [i for i in recompiled if i not in once]
    # spec["recompiled"] names the function (or graph name) of each identity that must recompile
    want = sorted(spec["recompiled"])
    got = sorted(re.sub(r"^.* \((.+)\)$", r"\1", i) if i.endswith(")") else i for i in recompiled)
    if got != want:
        problems.append(f"recompiled identities {recompiled}, want those of {want}")
    # a dump name compiled more than once that is not one recompiled program: SyncTensorsGraph shared
    # by different graphs (different frames), each compiled once
    not_recompiled = []
    for fam, n in sorted(fams.items()):
        if n < 2:
            continue
        if fam == "SyncTensorsGraph":  # recompiled when one of its graphs' identities recompiled
            if not any(i.endswith(")") for i in recompiled):
                not_recompiled.append(fam)
        elif fam not in recompiled:
            not_recompiled.append(fam)

    comp_total = sum(e["compile_time_samples"] for e in evs)
    evidence = collections.OrderedDict()
    evidence["compilations"] = comp_total
    evidence["cache_hits"] = sum(e["persistent_cache_hit"] for e in evs)
    evidence["how"] = HOW
    evidence["in_memory_cache_hits"] = sum(e["cached_compile"] for e in evs)
    if len(logs) > 1 or any(e["persistent_cache_miss"] or e["persistent_cache_deserialize_failure"] for e in evs):
        evidence["per_log"] = {log: {"compilations": e["compile_time_samples"],
                                     "persistent_cache_hit": e["persistent_cache_hit"],
                                     "persistent_cache_miss": e["persistent_cache_miss"],
                                     "persistent_cache_deserialize_failure": e["persistent_cache_deserialize_failure"]}
                               for log, e in zip(logs, evs)}
    evidence["by_identity"] = dict(sorted(per_identity.items()))
    reason = spec.get("reason")
    if reason and recompiled and spec.get("reason_in_block", True):
        again = [b for bs in recomp_blocks.values() for b in bs]  # not `blocks`: _detail reads those
        if not all(b.get("cause", "").find(reason) >= 0 for b in again):
            problems.append(f"reason {reason!r} is not the cause of every recompilation: "
                            f"{[b.get('cause') for b in again]}")
    if spec.get("profiler") and not any("pt-xla-profiler: " + spec["profiler"] in t for t in texts):
        problems.append(f"no 'pt-xla-profiler: {spec['profiler']}' line")
    if run.name != "debug-profiler" and "PT_XLA_DEBUG" not in spec["env"] and any("too frequent" in t for t in texts):
        problems.append("a profiler warning without PT_XLA_DEBUG")
    dumped = sum(fams.values())
    extra = _detail(run, blocks, recompiled) if spec.get("detail") else None
    if evs[0].get("host_reads"):  # the program's own reads: each site's executions with torch_xla's cause
        hr = evs[0]["host_reads"]
        runs = collections.Counter(b["frame"].split(" ")[0] for b in parse_analysis(texts[0])
                                   if b["kind"] == "Execution" and "access tensor value" in b.get("cause", ""))
        if sorted(runs) != sorted(hr["sites"]) or any(n != hr["steps"] for n in runs.values()):
            problems.append(f"host reads {dict(runs)}, the program read at {hr['sites']} every one of {hr['steps']} steps")
        extra = collections.OrderedDict(extra or {})
        extra["host_reads"] = {"steps": hr["steps"], "sites": {site: runs[site] for site in hr["sites"]}}
    if evs[0].get("python_number"):  # the program's Python number: its values, and the steps that compiled
        pn = evs[0]["python_number"]
        done, at = 0, []
        for b in parse_analysis(texts[0]):
            if b["kind"] == "Compilation":
                at.append(done + 1)
            elif b["kind"] == "Execution" and b.get("cause") == "user torch_xla.sync":
                done += 1
        want = list(range(1, pn["steps"] + 1, pn["every_steps"]))
        if at != want or done != pn["steps"]:
            problems.append(f"compiled at steps {at} of {done}, the program changed its number at steps {want} of {pn['steps']}")
        extra = collections.OrderedDict(extra or {})
        extra["python_number"] = collections.OrderedDict([
            ("identity", recompiled[0] if recompiled else None), ("values", pn["values"]),
            ("site", pn["site"]), ("steps", done), ("compiled_at_steps", at), ("every_steps", pn["every_steps"])])
    if evs[0].get("cadence"):  # when the program compiled, by its own count of steps and epochs (torch_xla's CompileTime)
        cd = evs[0]["cadence"]
        own = per_identity[recompiled[0]] if recompiled else evs[0]["compile_time_samples"]  # (other programs' aside)
        if len(cd["compiled_at_steps"]) != own:
            problems.append(f"compiled at steps {cd['compiled_at_steps']}, but {own} compilations of it")
        firsts = [start + 1 for start in cd["epoch_starts"]]
        if cd["every_epoch"] == 1 and cd["compiled_at_steps"] != firsts:
            problems.append(f"compiled at steps {cd['compiled_at_steps']}, not at each epoch's first step {firsts}")
        extra = collections.OrderedDict(extra or {})
        extra["cadence"] = collections.OrderedDict([("identity", recompiled[0] if recompiled else None)] + list(cd.items()))
        if spec.get("count_unnamed"):  # the dump cannot show the count: the setting that would
            extra["cadence"]["values"] = []
            extra["count_unnamed"] = spec["count_unnamed"]
    for key in ("loop_count", "growing_cache"):  # what the program fed, counted by itself: one value per compilation
        if evs[0].get(key):
            got = evs[0][key]
            n = len(got.get("counts", got.get("sizes", [])))
            if recompiled and n != per_identity[recompiled[0]]:
                problems.append(f"{key}: {n} values, {per_identity[recompiled[0]]} compilations of {recompiled[0]}")
            extra = collections.OrderedDict(extra or {})
            extra[key] = collections.OrderedDict([("identity", recompiled[0] if recompiled else None)] + list(got.items()))
    if evs[0].get("op_growth"):  # the recompiled program's dumps: the op counts of this file's lines, in order
        extra = collections.OrderedDict(extra or {})
        extra["op_growth"] = _op_growth(run, blocks[0], recompiled[0] if recompiled else None)
    if evs[0].get("own_lines"):  # the program's own lines, and a library's frames before them in every block
        ol = evs[0]["own_lines"]
        for b in parse_analysis(texts[0]):
            paths = [p for _, p, _ in b["frames"]]
            lib = next((k for k, p in enumerate(paths) if ol["library"] in p), None)
            me = next((k for k, p in enumerate(paths) if os.path.basename(p) == ME), None)
            if b["kind"] == "Compilation" and (lib is None or me is None or lib > me):
                problems.append(f"a compilation whose frames do not show the library's before the program's: {paths}")
        extra = collections.OrderedDict(extra or {})
        extra["own_lines"] = ol
    if spec.get("guard_inconclusive"):  # what guard on the log alone must ask for: it cannot decide
        if any("Execution Analysis" in t for t in texts):
            problems.append("guard_inconclusive, but the log lists executions")
        extra = collections.OrderedDict(extra or {})
        extra["guard_inconclusive"] = spec["guard_inconclusive"]
    if spec.get("cache_miss"):  # why run 2 missed run 1's persistent cache, as torch_xla counted it
        extra = collections.OrderedDict(extra or {})
        extra["cache_miss"] = _cache_miss(run, spec["cache_miss"], problems)
    return {
        "evidence": evidence,
        "recompiled": recompiled,
        "not_recompiled": not_recompiled,
        "note": (f", {evidence['in_memory_cache_hits']} in-memory cache hits"
                 + ("" if dumped == comp_total else f" (dump holds {dumped} modules)")),
        "extra": extra,
    }


def _op_growth(run, comp, identity):
    """The line of this file whose op count (op metadata) changed by the same nonzero number from each
    compilation of identity to the next, the largest change; its counts. None when no line does."""
    counts = []
    for b, (f, _) in zip(comp, run.modules()):
        if b["identity"] == identity:
            with open(os.path.join(run.target, "dump", f)) as fh:
                counts.append(collections.Counter(re.findall(r'source_file="[^"]*/' + re.escape(ME) + r'" source_line=(\d+)', fh.read())))
    best = None
    for line in counts[0] if len(counts) > 2 else ():
        seq = [c[line] for c in counts]
        deltas = {b - a for a, b in zip(seq, seq[1:])}
        if len(deltas) == 1 and 0 not in deltas and (best is None or abs(seq[1] - seq[0]) > abs(best[1][1] - best[1][0])):
            best = (line, seq)
    return {"site": f"{ME}:{best[0]}", "counts": best[1]} if best else None


def _detail(run, blocks, recompiled):
    """compile_seconds (the CompileTime metric's total), compiles (each Compilation Analysis block with
    its dump, its CompileTime sample and what the program knows of it) and call_sites."""
    extra = collections.OrderedDict()
    compiles = []
    for log, ev, comp in zip(run.logs, run.evidence, blocks):
        files = run.modules()
        samples, expect = ev.get("compile_time_samples_ns", []), ev.get("expect", [])
        if not (len(files) == len(comp) == len(samples) == len(expect)):
            run.problems.append(f"{log}: {len(comp)} compilations, {len(files)} dumps, {len(samples)} CompileTime "
                                f"samples, {len(expect)} expected by the program")
        for k, (b, (f, _), ns, e) in enumerate(zip(comp, files, samples, expect)):
            site = e["call_site"] if b["identity"] and b["identity"].endswith(")") and "dynamo" in b.get("cause", "") \
                else (b["frame"] or e["call_site"]).split(" ")[0]
            compiles.append(collections.OrderedDict([
                ("identity", b["identity"]), ("log", log), ("dump", f"dump/{f}"), ("hash", b.get("hash")),
                ("seconds", round(ns / 1e9, 6)), ("call_site", site), ("input", e["input"]),
                ("causes", e["causes"]), ("against", f"dump/{files[e['against']][0]}" if e["against"] is not None else None),
                ("changed", e["changed"]), ("framework_cause", b.get("cause"))]))
            if e.get("once"):
                compiles[-1]["once"] = True  # state the first step built: set-up, not a recompilation
            if e.get("merged"):
                compiles[-1]["merged"] = True  # the earlier graph with pending ops of other code merged in
            if site != e["call_site"]:
                run.problems.append(f"{log}: compilation {k} at {site}, the program expected {e['call_site']}")
    extra["compile_seconds"] = round(sum(ev.get("compile_time_ns", 0) for ev in run.evidence) / 1e9, 6)
    extra["compiles"] = compiles
    sites = collections.OrderedDict()
    for c in compiles:
        if c["identity"] in recompiled and c["causes"] and c["call_site"] not in sites.get(c["identity"], []):
            sites.setdefault(c["identity"], []).append(c["call_site"])
    extra["call_sites"] = sites
    if run.evidence[0].get("dynamo"):
        extra["dynamo"] = run.evidence[0]["dynamo"]
    return extra


def matrix():
    return "torch-xla-%s" % ".".join(driver.installed("torch_xla").split(".")[:2])


FRAMEWORK = driver.Framework(
    file=__file__, title="PyTorch/XLA", scenarios=S, dists=("torch", "torch_xla", "numpy"),
    matrix=matrix, setup=setup, judge=judge,
    scrub=("PT_XLA", "XLA_", "PJRT_", "TF_CPP", "TPU_", "PYTHONWARNINGS", "TORCH_LOGS"))

def _cache_miss(run, want, problems):
    """Why run 2 missed run 1's persistent cache: torch_xla counted a miss (not a failure to read an
    entry), and the cache holds one entry per run (two graph hashes)."""
    e2 = run.evidence[1]
    if e2["persistent_cache_miss"] != 1 or e2["persistent_cache_hit"] or e2["persistent_cache_deserialize_failure"]:
        problems.append(f"{run.logs[1]}: PersistentCacheMiss {e2['persistent_cache_miss']}, Hit {e2['persistent_cache_hit']}, "
                        f"DeserializeFailure {e2['persistent_cache_deserialize_failure']}: not one plain miss")
    cache = run.path("cache")
    entries = sorted(os.listdir(cache)) if os.path.isdir(cache) else []
    if len(entries) != 2:
        problems.append(f"cache/ holds {entries}, not one entry per run")
    return collections.OrderedDict([("log", run.logs[1]), ("identity", want["identity"]), ("reason", want["reason"]),
                                    ("changed", want["changed"]), ("cache_entries", len(entries))])


S["cache-xla-flag"] = dict(program=train_persistent_cache, env=ENV, recompiled=[], cause=None, runs=2, dump_per_run=True,
    run_env={2: {"XLA_FLAGS": "--xla_cpu_enable_fast_min_max=true --xla_dump_to=dump"}},
    cache_miss={"identity": "torch_xla_runs.py:110 (train_step)", "reason": "key_changed_outside_graph",
                "changed": "XLA_FLAGS: --xla_cpu_enable_fast_min_max=true added in run 2 (torch_xla folds XLA_FLAGS into the graph hash, "
                           "which names the entry)"},
    description=("The persistent-cache program run twice with one cache folder (cache/), run 2 with an XLA flag added "
                 "(--xla_cpu_enable_fast_min_max=true). The graph is the same; its hash, which names the cache entry, is "
                 "not: run 2 misses (PersistentCacheMiss) and writes a second entry."))

S["persistent-cache-run"] = dict(program=train_persistent_cache, env={"PJRT_DEVICE": "CPU"}, recompiled=[], cause=None, runs=2,
    recomp_run={"flags": [], "exit": 0},
    description=("The persistent-cache program run twice under recomp run (`recomp run --out runN -- python …`, each run "
                 "folder with its run.log, manifest.json, probe.jsonl and dump/), with only PJRT_DEVICE=CPU of the user's "
                 "own: run 1 misses and writes the entry (PersistentCacheMiss); run 2 finds it and cannot deserialize it on "
                 "CPU (PersistentCacheDeserializeFailure), so it compiles the graph again: run 2's answer says the cache "
                 "could not serve it and why."))

if __name__ == "__main__":
    driver.main(FRAMEWORK)
