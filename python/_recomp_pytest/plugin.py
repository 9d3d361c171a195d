"""recomp's pytest plugin (entry point pytest11, loaded by pytest whenever this package is
installed; it does nothing without --recomp).

`pytest --recomp` switches the compile evidence on for the session, as `recomp run` does (the
same settings and probe, asked of the recomp binary, less those whose lines only a stack's native
code prints to the standard error pytest takes; your own values kept), attributes each
compilation to the test, or to the module-, class-, package- or session-scoped fixture, that ran
it, and fails a test that compiled a program again after its own first compilation of it, with
recomp's answer in the failure (and so in the JUnit XML). `@pytest.mark.recomp(...)` sets a
test's allowance, `@pytest.mark.recomp(False)` opts it out, and the fixture `recomp_compilations`
gives a test its compilations. The session ends with a table of the tests that compiled and the
run folder's place; a program the verdict says compiled after warm-up that no test or fixture
was seen compiling (a stack that records no compilation per test, a process a test started)
fails the session: pytest exits 1, with recomp's cause and fix. Under pytest-xdist each worker
judges its own tests and the controller prints one table and one verdict for the session.

This module is all that a run without --recomp loads; the work is in recomp._plugin. It lives
outside the package recomp, in a folder of its own with no __init__.py, so that pytest does not
rewrite it (pytest marks for assertion rewriting each top-level package and module of a plugin's
distribution, and caches the rewritten code beside it, where pip uninstall does not look); the
package recomp is loaded from its file by Python's own loader (_recomp), and its modules by
recomp._load."""
import os
import sys

import pytest


def pytest_addoption(parser):
    group = parser.getgroup("recomp", "recomp: recompilations of XLA programs")
    group.addoption("--recomp", action="store_true", default=False,
                    help="switch compile evidence on (as recomp run does) and fail a test that compiles a program again")
    group.addoption("--recomp-out", metavar="DIR", default=None,
                    help="the run folder (it must not exist or be empty); default recomp-runs/<time>-pytest/")


def pytest_configure(config):
    config.addinivalue_line(
        "markers",
        "recomp(enabled=True, recompilations=0, warmup=1, budget_s=None): recomp's allowance for this test: "
        "compilations of a program beyond its first `warmup` ones allowed, a compile-time budget in seconds; "
        "recomp(False) opts the test out")
    if config.getoption("recomp") and config.pluginmanager.get_plugin("recomp-session") is None:
        _recomp()._load("_plugin")._Plugin(config).register()


@pytest.hookimpl(tryfirst=True)
def pytest_load_initial_conftests(early_config, parser, args):
    # Before the conftests import a stack: its variables must be set when it is imported.
    if getattr(early_config.known_args_namespace, "recomp", False) and "PYTEST_XDIST_WORKER" not in os.environ:
        _recomp()._load("_plugin")._Plugin(early_config).register()


@pytest.fixture
def recomp_compilations(request):
    """The compilations this test has made so far (a live list): the probe's records, each a
    dict with framework, name, seconds, file, line and the phase (setup, call, teardown)."""
    plugin = request.config.pluginmanager.get_plugin("recomp-session")
    if plugin is None:
        pytest.skip("recomp_compilations needs pytest --recomp")
    return plugin.entity(request.node.nodeid).records


def _recomp():
    """The package recomp (beside this folder), loaded from its file by Python's own loader when
    nothing imported it yet: a test's own `import recomp` then finds it loaded, not rewritten."""
    module = sys.modules.get("recomp")
    if module is not None:
        return module
    import importlib.util
    here = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "recomp")
    spec = importlib.util.spec_from_file_location("recomp", os.path.join(here, "__init__.py"), submodule_search_locations=[here])
    module = importlib.util.module_from_spec(spec)
    sys.modules["recomp"] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop("recomp", None)
        raise
    return module


try:
    _recomp()
except Exception:  # no package beside this one: --recomp says so when asked
    pass
