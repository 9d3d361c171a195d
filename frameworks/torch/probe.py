# recomp's probe hook for torch.compile: runner/probe/sitecustomize.py runs _on_torch_dynamo(module)
# right after the program imports torch._dynamo.utils (torch.compile's first call does). It may use
# the probe's _write(rec), _user_frame() and _is_user(); every error it lets out is swallowed.
# Embedded by the unit (probe.go) and put into the probe by recomp run.
#
# What it records (framework "torch"): "compile" for each frame dynamo compiled, when dynamo
# records the compilation's metrics (the ones torch._dynamo.utils.get_compilation_metrics()
# lists) and the backend ran: "name" (the compiled function as FILE:LINE (FUNCTION), its code's
# first line), "seconds" (the whole frame's compile time), the program's own line that called it,
# and "grad" (whether autograd was on: off in an evaluation under no_grad). A frame of torch's own
# that torch.compile of a Module compiles for it (external_utils' inner) is named by the
# program's line that first called it, as recomp names it from the trace, with "code" the frame
# as dynamo's log names it. A frame dynamo looked at and did not compile (no graph, a skip, the
# recompile limit), and the backward graph compiled at the first backward, write nothing.


def _on_torch_dynamo(module):
    ctx = getattr(module, "_METRICS_CONTEXT", None)
    on_exit = getattr(ctx, "_on_exit", None)
    if on_exit is None or getattr(on_exit, "_recomp_probe", False):
        return

    first_caller = {}  # a wrapper frame of torch's: the program's line that first called it

    def last():
        dq = getattr(module, "_compilation_metrics", None)
        return dq[-1] if dq else None

    def recorded(*args, **kwargs):
        before = last()
        out = on_exit(*args, **kwargs)
        try:
            m = last()
            if m is not None and m is not before and m.co_name and m.backend_compile_time_s is not None and m.is_forward is not False:
                code = "%s:%s (%s)" % (m.co_filename, m.co_firstlineno, m.co_name)
                name = code
                caller = _user_frame()
                if not _is_user(m.co_filename) and caller.get("file"):
                    if code not in first_caller and len(first_caller) < 4096:
                        first_caller[code] = "%s:%s (%s)" % (caller["file"], caller.get("line", 0), caller.get("function", ""))
                    name = first_caller.get(code, code)
                rec = {"framework": "torch", "event": "compile", "name": name,
                       "seconds": float(m.entire_frame_compile_time_s or m.backend_compile_time_s)}
                if name != code:
                    rec["code"] = code
                rec.update(caller)
                torch = sys.modules.get("torch")
                if torch is not None:
                    rec["grad"] = bool(torch.is_grad_enabled())
                _write(rec)
        except Exception:
            pass
        return out

    recorded._recomp_probe = True
    recorded.__wrapped__ = on_exit
    ctx._on_exit = recorded
