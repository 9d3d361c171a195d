# recomp's probe hook for Keras: runner/probe/sitecustomize.py runs _on_keras(module) right after the
# program imports keras. It may use the probe's _write(rec) and _user_frame(); every error it
# lets out is swallowed. Embedded by the unit (probe.go) and put into the probe by recomp run.


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


def _tf_data(x):
    """Whether x is a tf.data dataset: Keras batches it as the dataset does (on any backend)."""
    t = type(x)
    return (t.__module__ or "").startswith("tensorflow") and hasattr(x, "element_spec")


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
                        if _tf_data(kwargs.get("x", args[0] if args else None)):
                            rec["data"] = "tf.data"
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
