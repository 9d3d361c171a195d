# recomp's probe hook for JAX: runner/probe/sitecustomize.py runs _on_jax(module) right after the
# program imports jax. It may use the probe's _write(rec) and _user_frame(); every error it
# lets out is swallowed. Embedded by the unit (probe.go) and put into the probe by recomp run.


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
            rec.update(_user_frame())
            _write(rec)
        except Exception:
            pass

    monitoring.register_event_duration_secs_listener(listener)
