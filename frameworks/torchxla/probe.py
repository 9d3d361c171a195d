# recomp's probe hook for PyTorch/XLA: runner/probe/sitecustomize.py runs _on_torch_xla(module) right
# after the program imports torch_xla. It may use the probe's _write(rec) and _user_frame(); every
# error it lets out is swallowed. Embedded by the unit (probe.go) and put into the probe by recomp run.
#
# What it records (framework "torch-xla"), so that recomp can say in which step, and epoch, each
# compilation happened without PT_XLA_DEBUG_LEVEL=2's analysis of every execution:
#   sync   at the end of a step (torch_xla.sync, which xm.mark_step, torch_xla.step and
#          MpDeviceLoader call) that compiled: "step" (this step, 1 for the first) and "compiles"
#          (torch_xla's UncachedCompile counter after it). A step that compiled nothing writes
#          nothing: the cost per step is four counter reads. "grad": whether autograd was on
#          (torch.is_grad_enabled(); off under torch.no_grad or inference_mode: scoring, evaluation). A sync that ran no graph (no compile
#          cache lookup during it: MpDeviceLoader syncs before its first batch and at its end) is
#          no step, as PT_XLA_DEBUG_LEVEL=2 lists no execution for it.
#   epoch  each time a DataLoader is iterated (MpDeviceLoader iterates its DataLoader): "loader" (the
#          id of its dataset, so that a DataLoader made anew each epoch over one dataset is one
#          loader) and "step" (the steps ended before it).
#   steps  at exit: "step" (the steps ended), "compiles" and "compile_ns" (CompileTime's samples, in
#          nanoseconds, in order: each compilation's duration), and "loaders": the steps that ended
#          while each loader's batch was the last one a DataLoader gave (the loader whose iterations
#          carry the training steps has them; an evaluation loader iterated in between, with no sync
#          of its own, has none).

_TORCH_XLA_STEPS = [0, 0]  # steps ended, compilations counted at the last step
_TORCH_XLA_LOADER = [None, {}]  # the dataset id of the last batch given, the steps ended by each


def _torch_xla_compiles(xlac):
    try:
        return int(xlac._xla_counter_value("UncachedCompile") or 0)
    except Exception:
        return 0


def _torch_xla_lookups(xlac):
    """The graphs torch_xla looked up in its compile cache so far: each graph a sync runs is one."""
    try:
        return int(xlac._xla_counter_value("CachedCompile") or 0) + int(xlac._xla_counter_value("UncachedCompile") or 0)
    except Exception:
        return 0


def _on_torch_xla(module):
    xlac = getattr(module, "_XLAC", None)
    sync = getattr(module, "sync", None)
    if xlac is None or sync is None or getattr(sync, "_recomp_probe", False):
        return

    def counted(before):
        """After a sync: count it as a step when it ran a graph, and note the step when it compiled."""
        try:
            if _torch_xla_lookups(xlac) == before:
                return  # no graph ran: not a step
            _TORCH_XLA_STEPS[0] += 1
            last = _TORCH_XLA_LOADER[0]
            if last is not None:
                _TORCH_XLA_LOADER[1][last] = _TORCH_XLA_LOADER[1].get(last, 0) + 1
            n = _torch_xla_compiles(xlac)
            if n != _TORCH_XLA_STEPS[1]:
                _TORCH_XLA_STEPS[1] = n
                rec = {"framework": "torch-xla", "event": "sync", "step": _TORCH_XLA_STEPS[0], "compiles": n}
                torch = sys.modules.get("torch")
                if torch is not None:
                    rec["grad"] = bool(torch.is_grad_enabled())  # off: a scoring or evaluation step
                _write(rec)
        except Exception:
            pass

    def wrapped(*args, **kwargs):
        before = _torch_xla_lookups(xlac)
        out = sync(*args, **kwargs)
        counted(before)
        return out

    wrapped._recomp_probe = True
    wrapped.__wrapped__ = sync
    wrapped.__name__ = getattr(sync, "__name__", "sync")
    wrapped.__doc__ = getattr(sync, "__doc__", None)
    module.sync = wrapped
    inner = sys.modules.get(module.__name__ + ".torch_xla")
    if inner is not None and getattr(inner, "sync", None) is sync:
        inner.sync = wrapped  # torch_xla.step() and the module's own calls

    try:
        from torch.utils.data import DataLoader
        it = DataLoader.__iter__
        if not getattr(it, "_recomp_probe", False):
            def iterate(self):
                try:
                    _write({"framework": "torch-xla", "event": "epoch", "loader": "%x" % id(getattr(self, "dataset", self)),
                            "step": _TORCH_XLA_STEPS[0]})
                except Exception:
                    pass
                return it(self)
            iterate._recomp_probe = True
            iterate.__wrapped__ = it
            DataLoader.__iter__ = iterate
        from torch.utils.data import dataloader
        nxt = dataloader._BaseDataLoaderIter.__next__  # every DataLoader's iterator's (its subclasses keep it)
        if not getattr(nxt, "_recomp_probe", False):
            def given(self):
                out = nxt(self)
                _TORCH_XLA_LOADER[0] = id(getattr(self, "_dataset", None))  # (after a batch: StopIteration gives none)
                return out
            given._recomp_probe = True
            given.__wrapped__ = nxt
            dataloader._BaseDataLoaderIter.__next__ = given
    except Exception:
        pass

    def at_exit():
        try:
            rec = {"framework": "torch-xla", "event": "steps", "step": _TORCH_XLA_STEPS[0],
                   "compiles": _torch_xla_compiles(xlac)}
            if _TORCH_XLA_LOADER[1]:
                rec["loaders"] = {"%x" % k: n for k, n in _TORCH_XLA_LOADER[1].items()}
            try:
                data = xlac._xla_metric_data("CompileTime")
                if data and data[0] == len(data[2]):  # every sample kept (a circular buffer keeps the last ones)
                    rec["compile_ns"] = [int(v) for _, v in data[2]]
            except Exception:
                pass
            _write(rec)
        except Exception:
            pass

    import atexit
    atexit.register(at_exit)
