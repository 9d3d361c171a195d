# recomp's probe hook for TensorFlow: runner/probe/sitecustomize.py runs _on_tensorflow(module) right after the
# program imports tensorflow. It may use the probe's _write(rec) and _user_frame(); every error it
# lets out is swallowed. Embedded by the unit (probe.go) and put into the probe by recomp run.


_MAX_REPR = 80  # a Python argument's repr is cut to this many characters


def _literals(t):
    """The Python values of a List or Tuple trace type whose every element is a Literal, else None."""
    comps = getattr(t, "components", None)
    if comps is None:  # a List holds its elements in a Tuple
        comps = getattr(getattr(t, "components_tuple", None), "components", None)
    if not comps or any(type(c).__name__ != "Literal" for c in comps):
        return None
    return [c.value for c in comps]


def _python_arguments(function_type):
    """The arguments of a trace that are Python values, not tensors: each is part of the
    tf.function's trace key, so a new value traces and compiles again. [{"name", "value"}], a
    value as its trace type prints it without the Literal[...] around it (a container of Python
    values as a whole); [] when there is none or the type is not as expected."""
    out = []
    try:
        for name, p in function_type.parameters.items():
            t = p.type_constraint
            kind = type(t).__name__
            if kind == "Literal":
                v = repr(getattr(t, "value", t))
            elif kind in ("Tuple", "List") and _literals(t) is not None:
                v = repr(list(_literals(t)) if kind == "List" else tuple(_literals(t)))  # as the program wrote it
            elif kind in ("Tuple", "List", "Dict") and "Literal" in repr(t) and "Spec" not in repr(t):
                v = repr(t)
            else:
                continue
            if len(v) > _MAX_REPR:
                v = v[:_MAX_REPR - 1] + "\u2026"
            out.append({"name": str(name), "value": v})
    except Exception:
        return []
    return out[:16]


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
                static = _python_arguments(function_type)
                if static:
                    rec["static"] = static
                rec.update(_user_frame())
                _write(rec)
            except Exception:
                pass

    create._recomp_probe = True
    create.__wrapped__ = orig
    tc._create_concrete_function = create
