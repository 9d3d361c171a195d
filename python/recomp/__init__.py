"""recomp in Python: the pytest plugin (pytest --recomp, see recomp.pytest_plugin) and a context
manager for the rest (notebooks, scripts, other runners) that switches recomp's evidence on for a
block and gives recomp's verdict on it as data, the JSON of `recomp scan --format json`
(docs/json.md)::

    import recomp

    with recomp.gather() as ev:      # before the stack is imported, for its own compile logging
        import jax
        ...
    ev.report["verdict"]["headline"]
    ev.recompiled                    # the programs that compiled again (verdict.programs)

gather(raise_on_recompile=True) raises Recompiled when a program compiled again. The run folder
stays (ev.folder) for recomp scan, explain and guard."""
__all__ = ["gather", "Evidence", "Recompiled", "Session", "binary"]

# Each name is imported when first asked for: pytest imports this package (its plugin's) in every
# run, with --recomp or not, and parses and compiles its source again where it cannot cache it
# (pytest rewrites asserts in a plugin's modules): the package itself holds nothing else.
_FROM = {"gather": "_gather", "Evidence": "_gather", "Recompiled": "_gather", "Session": "_session", "binary": "_session"}


def __getattr__(name):
    module = _FROM.get(name)
    if module is None:
        raise AttributeError("module %r has no attribute %r" % (__name__, name))
    import importlib
    return getattr(importlib.import_module("." + module, __name__), name)


def __dir__():
    return sorted(list(globals()) + list(_FROM))
