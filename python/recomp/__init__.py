"""recomp in Python: the pytest plugin (pytest --recomp, see recomp._plugin) and a context
manager for the rest (notebooks, scripts, other runners) that switches recomp's evidence on for a
block and gives recomp's verdict on it as data, the JSON of `recomp scan --format json`
(docs/json.md)::

    import recomp

    with recomp.gather() as ev:      # before the stack is imported, for its own compile logging
        import jax
        ...
    ev.report["verdict"]["headline"]
    ev.recompiled                    # the programs that compiled again (verdict.programs)

gather(raise_on_recompile=True) raises Recompiled when a program compiled again (in the block:
under recomp run or pytest --recomp it joins their run folder, and counts the programs the block
compiled more than once). The run folder stays (ev.folder) for recomp scan, explain and guard."""
import os
import sys

__all__ = ["gather", "Evidence", "Recompiled", "Session", "binary"]

# Each name is loaded when first asked for (_load): pytest loads the plugin in every run, with
# --recomp or not, and this package holds nothing else.
_FROM = {"gather": "_gather", "Evidence": "_gather", "Recompiled": "_gather", "Session": "_session", "binary": "_session"}


def __getattr__(name):
    module = _FROM.get(name)
    if module is None:
        raise AttributeError("module %r has no attribute %r" % (__name__, name))
    return getattr(_load(module), name)


def __dir__():
    return sorted(list(globals()) + list(_FROM))


def _load(name):
    """recomp.<name>, loaded from its file by Python's own loader (from the compiled file pip
    wrote at install), recomp._session first (the others import it). Not by pytest's: pytest
    marks every module of a pytest11 plugin's distribution for assertion rewriting, caches the
    rewritten code in the package's __pycache__ where it can (files pip uninstall does not know
    of) and parses and compiles the source at every run where it cannot. recomp holds no assert."""
    full = __name__ + "." + name
    module = sys.modules.get(full)
    if module is not None:
        return module
    if name != "_session":
        _load("_session")
    module = _exec(full, os.path.join(os.path.dirname(os.path.abspath(__file__)), name + ".py"))
    setattr(sys.modules[__name__], name, module)
    return module


def _exec(name, path):
    """The module name, run from the file path by Python's own loader (its compiled file in
    __pycache__ when that is current) and put in sys.modules (taken out again if it raises)."""
    import importlib.util
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(name, None)
        raise
    return module
