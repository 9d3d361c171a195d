# recomp's probe hook for JAX: runner/probe/sitecustomize.py runs _on_jax(module) right after the
# program imports jax. It may use the probe's _write(rec) and _user_frame(); every error it
# lets out is swallowed. Embedded by the unit (probe.go) and put into the probe by recomp run.


_MAX_REPR = 80  # a static value's repr is cut to this many characters
_MAX_SHAPES = 32  # the arguments' shapes a trace record lists, at most
_JIT_FRAMES = ("_trace_for_jit", "_infer_params")  # jax >= 0.5, jax 0.4 (its _infer_params_impl drops args)


def _short_repr(v):
    try:
        s = repr(v)
    except Exception:
        return "?"
    if len(s) > _MAX_REPR:
        s = s[:_MAX_REPR - 1] + "\u2026"
    return s


def _shapes(args, kwargs):
    """The dtype and shape of each array among a traced call's arguments, as JAX's log prints
    them in a compile request's signature ("float32[8,16]"), the first _MAX_SHAPES: what tells
    apart two processes' requests of one function traced at the same moment."""
    import jax
    out = []
    for leaf in jax.tree_util.tree_leaves((args, kwargs)):
        shape, dtype = getattr(leaf, "shape", None), getattr(leaf, "dtype", None)
        if shape is None or dtype is None:
            continue
        out.append("%s[%s]" % (dtype, ",".join(str(int(d)) for d in shape)))
        if len(out) == _MAX_SHAPES:
            break
    return out


def _jax_static():
    """At a JAX trace of a jitted function (the listener runs inside it): the static arguments
    the call passed, [{"name", "value"}] with each value's repr cut short, and the function's
    name. It reads the frame of JAX's own trace entry (jax >= 0.5: _trace_for_jit, 0.4:
    _infer_params), whose locals hold the call's args and kwargs and the jit's
    static_argnums and static_argnames; and, for a lambda, where it is defined ("FILE:LINE",
    the file's base name); and the arguments' shapes (_shapes); ([], "", "", []) when there is
    none (a trace of a nested jit inside another, whose frame is not JAX's entry) or anything is
    not as expected."""
    f = sys._getframe(2)
    depth = 0
    while f is not None and depth < 16:
        if f.f_code.co_name in _JIT_FRAMES and "ji" in f.f_code.co_varnames and "args" in f.f_code.co_varnames:
            break
        f, depth = f.f_back, depth + 1
    else:
        return [], "", "", []
    if f is None:
        return [], "", "", []
    loc = f.f_locals
    ji, args, kwargs, fun = loc.get("ji"), loc.get("args"), loc.get("kwargs"), loc.get("fun")
    name, site = "", ""
    try:
        base = getattr(fun, "f", fun)  # 0.4: a WrappedFun
        name = str(getattr(base, "__name__", "") or getattr(fun, "__name__", "") or "")
        if name == "<lambda>":  # where it is defined, as JAX's explanation names it: FILE:LINE
            code = base.__code__
            site = "%s:%d" % (os.path.basename(code.co_filename), code.co_firstlineno)
    except Exception:
        pass
    try:
        shapes = _shapes(args, kwargs)
    except Exception:
        shapes = []
    nums = tuple(getattr(ji, "static_argnums", ()) or ())
    names = tuple(getattr(ji, "static_argnames", ()) or ())
    if not nums and not names:
        return [], name, site, shapes
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
    return out[:16], name, site, shapes


def _key_lines(module):
    """When recomp set JAX_DEBUG_LOG_MODULES=jax._src.cache_key (it is in $RECOMP_PROBE_OWN, not
    the user's own): a function that, called before each compilation, keeps JAX's cache-key
    lines to a run with a persistent cache folder set (jax_compilation_cache_dir, by variable or
    in code). JAX >= 0.5 keys every compilation, cache or not; with its logger at DEBUG it hashes
    each part of the key a second time (the serialised module too) and logs some 16 lines, which
    only recomp diff RUN_A RUN_B reads, and only for a run that had a cache. Without a folder the
    logger goes back to its level without the setting (NOTSET: JAX's own); once anything else
    sets its level, or the probe is stopped (the session ended), it is left as it is. None when
    the setting is the user's, or absent."""
    if "JAX_DEBUG_LOG_MODULES" not in os.environ.get("RECOMP_PROBE_OWN", "").split(","):
        return None
    import logging
    logger = logging.getLogger("jax._src.cache_key")
    config = module.config
    last = [logger.level]  # the level this function last saw or set

    def narrow():
        if _STOPPED or logger.level != last[0]:
            return  # the session ended, or set since by someone else: theirs
        want = logging.DEBUG if config.jax_compilation_cache_dir else logging.NOTSET
        if logger.level != want:
            logger.setLevel(want)
            last[0] = want

    return narrow


def _native_level():
    """In a session inside this process (RECOMP_PROBE_LOG: the pytest plugin's, recomp.gather()),
    when recomp set JAX_LOGGING_LEVEL (it is in $RECOMP_PROBE_OWN, not the user's own): JAX set
    the C++ log level to INFO from it at import, and the C++ info lines (the backend's devices,
    the dump's set-up) go straight to the process's own output (pytest's captured output), never
    to run.log. The level goes back to the one it has without the setting, as JAX itself would
    set it back: JAX 0.4 wrote TF_CPP_MIN_LOG_LEVEL=0 into the environment (read by XLA at its
    first line, after the import), and resets it to the value it found, else 1; later JAX sets
    absl's level, which goes back to the user's TF_CPP_MIN_LOG_LEVEL, else warnings (1)."""
    if not os.environ.get("RECOMP_PROBE_LOG") or "JAX_LOGGING_LEVEL" not in os.environ.get("RECOMP_PROBE_OWN", "").split(","):
        return
    config = sys.modules.get("jax._src.logging_config")
    reset = getattr(config, "_set_TF_CPP_MIN_LOG_LEVEL", None)  # JAX 0.4
    if reset is not None:
        reset(None)
        return
    from jax._src.lib import utils
    set_level = getattr(utils, "absl_set_min_log_level", None)  # JAX >= 0.5
    if set_level is not None:
        set_level(int(os.environ.get("TF_CPP_MIN_LOG_LEVEL", "").strip() or 1))


def _on_jax(module):
    import jax.monitoring as monitoring

    try:
        _native_level()
    except Exception:
        pass

    try:
        narrow = _key_lines(module)
        if narrow is not None:
            narrow()
    except Exception:
        narrow = None

    names = {
        "/jax/core/compile/backend_compile_duration": "compile",
        "/jax/core/compile/jaxpr_trace_duration": "trace",
        "/jax/core/compile/jaxpr_to_mlir_module_duration": "lower",
    }

    lam = threading.local()  # site: where the lambda this thread traced last is defined

    def listener(event, duration, *args, **kwargs):
        try:
            stage = names.get(event)
            if stage is None:
                return
            if narrow is not None and stage != "compile":  # traced or lowered: a compilation may follow
                try:
                    narrow()
                except Exception:
                    pass  # never at the cost of this record
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
                static, name, site, shapes = _jax_static()
                if static:
                    rec["static"] = static
                if shapes:
                    rec["shapes"] = shapes
                if name and "name" not in rec:
                    rec["name"] = name
                lam.site = site
                if site:
                    rec["defined"] = site
            elif str(rec.get("name", "")).endswith("<lambda>)"):
                # the lambda this thread traced last: its lowering and compilation follow
                site = getattr(lam, "site", "")
                if site:
                    rec["defined"] = site
                if stage == "compile":
                    lam.site = ""
            rec.update(_user_frame())
            _write(rec)
        except Exception:
            pass

    monitoring.register_event_duration_secs_listener(listener)
