"""recomp's probe: `recomp run` puts this file's folder first on PYTHONPATH, so Python loads it
as sitecustomize at start. For each compilation a framework reports to its own monitoring API
(JAX's jax.monitoring: tracing, lowering, backend compile), for each trace of a tf.function
(TF then compiles it), and for each Keras fit, evaluate and predict, it writes the first frame
of the program's own code — the user's line — to the file $RECOMP_PROBE_OUT, one JSON object
per line; at each JAX trace of a jitted function, also the static arguments it was called with
(their names and reprs, cut short). It costs nothing per step. It imports nothing of a framework: it waits
until the program imports one. It then runs the sitecustomize it shadows, if there is one.
Nothing it does may break the program: every error is swallowed. RECOMP_PROBE=0 (recomp run
--probe=false) leaves it out. When the program ends, it writes the versions of the framework
distributions this Python has (packages.json beside this file names them): recomp never runs the
command, nor this Python, a second time to ask.
"""
import os
import sys
import threading

_HERE = os.path.dirname(os.path.abspath(__file__))
_OUT = os.environ.get("RECOMP_PROBE_OUT", "")
_LOCK = threading.Lock()
_FILE = None
_STDLIB = os.path.dirname(os.path.abspath(os.__file__)) + os.sep


def _write(rec):
    global _FILE
    import json
    import time
    rec["t"] = time.time()
    rec["pid"] = os.getpid()
    line = json.dumps(rec, separators=(",", ":")) + "\n"
    with _LOCK:
        if _FILE is None:
            _FILE = open(_OUT, "a", buffering=1, encoding="utf-8")
        _FILE.write(line)


def _is_user(filename):
    if not filename or filename.startswith("<") or filename.startswith(_STDLIB):
        return False
    if "/site-packages/" in filename or "/dist-packages/" in filename:
        return False
    return os.path.dirname(os.path.abspath(filename)) != _HERE


def _user_frame():
    f = sys._getframe(2)
    while f is not None:
        if _is_user(f.f_code.co_filename):
            return {"file": f.f_code.co_filename, "line": f.f_lineno, "function": f.f_code.co_name}
        f = f.f_back
    return {}


_MAX_REPR = 80  # a static value's repr is cut to this many characters
_JIT_FRAMES = ("_trace_for_jit", "_infer_params")  # jax >= 0.5, jax 0.4 (its _infer_params_impl drops args)


def _short_repr(v):
    try:
        s = repr(v)
    except Exception:
        return "?"
    if len(s) > _MAX_REPR:
        s = s[:_MAX_REPR - 1] + "\u2026"
    return s


def _jax_static():
    """At a JAX trace of a jitted function (the listener runs inside it): the static arguments
    the call passed, [{"name", "value"}] with each value's repr cut short, and the function's
    name. It reads the frame of JAX's own trace entry (jax >= 0.5: _trace_for_jit, 0.4:
    _infer_params), whose locals hold the call's args and kwargs and the jit's
    static_argnums and static_argnames; ([], "") when there is none (a trace of a nested jit
    inside another, whose frame is not JAX's entry) or anything is not as expected."""
    f = sys._getframe(2)
    depth = 0
    while f is not None and depth < 16:
        if f.f_code.co_name in _JIT_FRAMES and "ji" in f.f_code.co_varnames and "args" in f.f_code.co_varnames:
            break
        f, depth = f.f_back, depth + 1
    else:
        return [], ""
    if f is None:
        return [], ""
    loc = f.f_locals
    ji, args, kwargs, fun = loc.get("ji"), loc.get("args"), loc.get("kwargs"), loc.get("fun")
    name = ""
    try:
        base = getattr(fun, "f", fun)  # 0.4: a WrappedFun
        name = str(getattr(base, "__name__", "") or getattr(fun, "__name__", "") or "")
    except Exception:
        pass
    nums = tuple(getattr(ji, "static_argnums", ()) or ())
    names = tuple(getattr(ji, "static_argnames", ()) or ())
    if not nums and not names:
        return [], name
    params = []
    try:
        sig = getattr(ji, "fun_signature", None)
        if sig is not None:
            params = list(sig.parameters)
    except Exception:
        params = []
    out = []
    if isinstance(args, tuple):
        for i in sorted(n for n in nums if isinstance(n, int) and 0 <= n < len(args)):
            arg = params[i] if i < len(params) else "argument %d" % i
            out.append({"name": arg, "value": _short_repr(args[i])})
    if isinstance(kwargs, dict):
        for k in names:
            if k in kwargs and not any(o["name"] == k for o in out):
                out.append({"name": str(k), "value": _short_repr(kwargs[k])})
    return out[:16], name


def _on_jax(module):
    import jax.monitoring as monitoring

    names = {
        "/jax/core/compile/backend_compile_duration": "compile",
        "/jax/core/compile/jaxpr_trace_duration": "trace",
        "/jax/core/compile/jaxpr_to_mlir_module_duration": "lower",
    }

    def listener(event, duration, *args, **kwargs):
        try:
            stage = names.get(event)
            if stage is None:
                return
            rec = {"framework": "jax", "event": stage, "seconds": float(duration)}
            if stage == "compile":  # the backend is up: which process of a job this is
                try:
                    count = int(module.process_count())
                    if count > 1:
                        rec["process_index"], rec["process_count"] = int(module.process_index()), count
                except Exception:
                    pass
            if "fun_name" in kwargs:
                rec["name"] = str(kwargs["fun_name"])
            if stage == "trace":
                static, name = _jax_static()
                if static:
                    rec["static"] = static
                if name and "name" not in rec:
                    rec["name"] = name
            rec.update(_user_frame())
            _write(rec)
        except Exception:
            pass

    monitoring.register_event_duration_secs_listener(listener)


def _samples(x):
    """The number of samples in x when it is arrays (or a list or dict of them), else 0 (a
    dataset or generator: Keras's batches are the dataset's)."""
    if isinstance(x, dict):
        x = next(iter(x.values()), None)
    if isinstance(x, (list, tuple)) and x and hasattr(x[0], "shape"):
        x = x[0]
    shape = getattr(x, "shape", None)
    if shape is not None and len(shape) > 0 and isinstance(shape[0], int):
        return shape[0]
    if isinstance(x, list) and x and not hasattr(x[0], "__len__"):
        return len(x)
    return 0


def _keras_sizes(method, args, kwargs):
    """The samples and batch size of a fit, evaluate or predict on arrays: what makes its last
    batch smaller. fit's validation_split keeps its first part for training (Keras fit runs
    evaluate on the rest, and on validation_data, with a record of its own)."""
    x = kwargs.get("x", args[0] if args else None)
    # fit(x, y, batch_size, ...), evaluate(x, y, batch_size, ...), predict(x, batch_size, ...)
    at = 1 if method == "predict" else 2
    batch = kwargs.get("batch_size", args[at] if len(args) > at else None)
    n = _samples(x)
    if not n:
        return {}
    if method == "fit":
        split = float(kwargs.get("validation_split", 0) or 0)
        if 0 < split < 1:
            import math
            n = int(math.floor(n * (1.0 - split)))
    return {"samples": n, "batch_size": int(batch) if batch else 32}  # 32: Keras's default for arrays


def _on_keras(module):
    model = getattr(module, "Model", None)
    if model is None:
        return
    for method in ("fit", "evaluate", "predict"):
        orig = getattr(model, method, None)
        if orig is None or getattr(orig, "_recomp_probe", False):
            continue

        def wrap(orig, method):
            def call(self, *args, **kwargs):
                try:
                    rec = {"framework": "keras", "event": method + "_begin", "model": "%x" % id(self)}
                    rec.update(_user_frame())
                    try:
                        rec.update(_keras_sizes(method, args, kwargs))
                    except Exception:
                        pass  # the line is still worth writing
                    _write(rec)
                except Exception:
                    pass
                try:
                    return orig(self, *args, **kwargs)
                finally:
                    try:
                        _write({"framework": "keras", "event": method + "_end"})
                    except Exception:
                        pass
            call._recomp_probe = True
            call.__wrapped__ = orig
            call.__name__ = getattr(orig, "__name__", method)
            call.__doc__ = getattr(orig, "__doc__", None)
            return call

        setattr(model, method, wrap(orig, method))


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


_HOOKS = {"jax": _on_jax, "keras": _on_keras, "tensorflow": _on_tensorflow}


class _ImportHook:
    """Runs a hook right after a framework's top-level package is imported."""

    def __init__(self):
        self.done = set()

    def find_spec(self, name, path=None, target=None):
        hook = _HOOKS.get(name)
        if hook is None or name in self.done:
            return None
        self.done.add(name)
        spec = None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            try:
                spec = finder.find_spec(name, path, target)
            except Exception:
                spec = None
            if spec is not None:
                break
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return None
        loader = spec.loader
        original = loader.exec_module

        def exec_module(module):
            original(module)
            try:
                hook(module)
            except Exception:
                pass

        loader.exec_module = exec_module
        return spec


def _versions():
    """At exit: the versions of the distributions packages.json names, as one record."""
    try:
        import importlib.metadata as metadata
        import json
        with open(os.path.join(_HERE, "packages.json"), encoding="utf-8") as f:
            names = json.load(f)
    except Exception:
        return

    def write():
        try:
            out = {}
            for name in names:
                try:
                    out[name] = metadata.version(name)
                except Exception:
                    pass
            _write({"framework": "python", "event": "versions", "versions": out})
        except Exception:
            pass

    import atexit
    atexit.register(write)


def _chain():
    """Runs the sitecustomize this one shadows (the user's or the interpreter's)."""
    import importlib.machinery
    import importlib.util
    rest = [p for p in sys.path if os.path.abspath(p or os.curdir) != _HERE]
    spec = importlib.machinery.PathFinder.find_spec("sitecustomize", rest)
    if spec is None or spec.loader is None:
        return
    module = importlib.util.module_from_spec(spec)
    sys.modules["sitecustomize"] = module
    spec.loader.exec_module(module)


if _OUT and os.environ.get("RECOMP_PROBE", "1") != "0":
    try:
        sys.meta_path.insert(0, _ImportHook())
    except Exception:
        pass
    _versions()
try:
    _chain()
except Exception:
    import traceback
    traceback.print_exc()
