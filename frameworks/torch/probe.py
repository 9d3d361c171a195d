# recomp's probe hook for torch.compile: runner/probe/sitecustomize.py runs _on_torch_dynamo(module)
# right after the program imports torch._dynamo.utils (torch.compile's first call does). It may use
# the probe's _write(rec) and _user_frame(); every error it lets out is swallowed. Embedded by the
# unit (probe.go) and put into the probe by recomp run.
#
# What it records (framework "torch"): "compile" for each frame dynamo compiled, when dynamo
# records the compilation's metrics (the ones torch._dynamo.utils.get_compilation_metrics()
# lists) and the backend ran: "name" (the compiled function as FILE:LINE (FUNCTION), its code's
# first line), "seconds" (the whole frame's compile time) and the program's own line that called
# it. A frame dynamo looked at and did not compile (no graph, a skip, the recompile limit), and
# the backward graph compiled at the first backward, write nothing.


def _on_torch_dynamo(module):
    ctx = getattr(module, "_METRICS_CONTEXT", None)
    on_exit = getattr(ctx, "_on_exit", None)
    if on_exit is None or getattr(on_exit, "_recomp_probe", False):
        return

    def last():
        dq = getattr(module, "_compilation_metrics", None)
        return dq[-1] if dq else None

    def recorded(*args, **kwargs):
        before = last()
        out = on_exit(*args, **kwargs)
        try:
            m = last()
            if m is not None and m is not before and m.co_name and m.backend_compile_time_s is not None and m.is_forward is not False:
                rec = {"framework": "torch", "event": "compile",
                       "name": "%s:%s (%s)" % (m.co_filename, m.co_firstlineno, m.co_name),
                       "seconds": float(m.entire_frame_compile_time_s or m.backend_compile_time_s)}
                rec.update(_user_frame())
                _write(rec)
        except Exception:
            pass
        return out

    recorded._recomp_probe = True
    recorded.__wrapped__ = on_exit
    ctx._on_exit = recorded
