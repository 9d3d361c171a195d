# recomp's probe hook for TensorFlow: runner/probe/sitecustomize.py runs _on_tensorflow(module) right after the
# program imports tensorflow. It may use the probe's _write(rec) and _user_frame(); every error it
# lets out is swallowed. Embedded by the unit (probe.go) and put into the probe by recomp run.


def _on_tensorflow(module):
    import importlib
    import time
    tc = importlib.import_module("tensorflow.python.eager.polymorphic_function.tracing_compilation")
    orig = getattr(tc, "_create_concrete_function", None)
    if orig is None or getattr(orig, "_recomp_probe", False):
        return

    # Called only when a tf.function traces (a new input signature): what follows is its XLA
    # compilation at the first run. Nothing per step.
    def create(function_type, type_context, func_graph, tracing_options, *args, **kwargs):
        t0 = time.time()
        try:
            return orig(function_type, type_context, func_graph, tracing_options, *args, **kwargs)
        finally:
            try:
                rec = {"framework": "tf", "event": "trace", "name": str(getattr(tracing_options, "name", "") or ""), "t0": t0}
                rec.update(_user_frame())
                _write(rec)
            except Exception:
                pass

    create._recomp_probe = True
    create.__wrapped__ = orig
    tc._create_concrete_function = create
