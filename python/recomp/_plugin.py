"""The work of recomp's pytest plugin under --recomp (pytest's entry point, _recomp_pytest.plugin,
loads it): the session, each compilation's test or fixture, the judgement of each test, the
table and the session's verdict."""
import numbers
import operator
import os
import sys

import pytest

from ._session import Session, record_keys

_OUTSIDE = "(collection and set-up outside tests)"

try:  # a new-style wrapper (pluggy >= 1.1): a third of the old style's cost a call
    _WRAPPER = pytest.hookimpl(wrapper=True)
except TypeError:
    _WRAPPER = pytest.hookimpl(hookwrapper=True)


class _Entity:
    """What compiled under one test or fixture."""

    def __init__(self, name):
        self.name, self.records = name, []

    def seconds(self):
        return sum(float(r.get("seconds", 0) or 0) for r in self.records)


class _Plugin:
    def __init__(self, config):
        self.config = config
        self.worker = getattr(config, "workerinput", None) is not None or "PYTEST_XDIST_WORKER" in os.environ
        self.session = Session(out=getattr(config.known_args_namespace, "recomp_out", None),
                               command=["pytest"] + list(config.invocation_params.args))
        self.opened = False
        self.entities = {}
        self.pending = set()  # the fixtures that compiled since the last test's teardown report
        self.failed = set()   # the tests recomp's check failed, by node id
        self.passed = set()   # the tests whose call passed, until their teardown report
        self.judged = set()   # the tests judged (their call passed), until their teardown report
        self.unjudged = set() # the tests that compiled and were never judged (failed, skipped, an error)
        self.pytest_session, self.items = None, None  # the collected tests, by node id (item())
        self.rows = {}        # the session's table: name -> [compilations, seconds, recompiled]
        self.exitstatus = 0
        self.named = set()    # the programs (framework, name) the probe saw a test or fixture compile
        self.report = None    # recomp's answer on the run folder at the end (scan's JSON)
        self.unblamed = []    # the lines that failed the session: programs no test could be blamed for

    def register(self):
        if not self.worker:
            try:
                self.session.open()
            except (RuntimeError, OSError, ValueError) as err:
                raise pytest.UsageError("--recomp: %s" % err)
            self.opened = True
            self.session.listeners.append(self.on_compile)
        self.config.pluginmanager.register(self, "recomp-session")

    # Workers join the controller's session.
    def pytest_configure(self, config):
        if self.worker and not self.opened:
            state = getattr(config, "workerinput", {}).get("recomp")
            if state:
                self.session.join(state)
                self.session.listeners.append(self.on_compile)
                self.opened = True
                self.session.name_process(os.environ.get("PYTEST_XDIST_WORKER") or getattr(config, "workerinput", {}).get("workerid"))

    @pytest.hookimpl(optionalhook=True)
    def pytest_configure_node(self, node):
        node.workerinput["recomp"] = self.session.state()

    def entity(self, name):
        e = self.entities.get(name)
        if e is None:
            e = self.entities[name] = _Entity(name)
        return e

    # Nothing runs per test for a test that compiles nothing but one plain hook per report
    # (pytest_runtest_logreport): on a suite of cached tests the per-test hooks were most of the
    # plugin's cost. A compilation (rare) finds its test and fixture itself: the test and phase
    # from PYTEST_CURRENT_TEST, which pytest sets around each phase, and the fixture from the
    # frame of pytest's fixture set-up it runs under.
    def on_compile(self, rec):
        rec = dict(rec)
        name, phase = _running()
        fixture = _fixture()
        if fixture is not None:
            name = fixture
            self.pending.add(fixture)
        rec["phase"] = phase
        self.entity(name or _OUTSIDE).records.append(rec)

    def item(self, nodeid):
        """The collected test of nodeid (None when this process did not collect it)."""
        if self.items is None:
            self.items = {i.nodeid: i for i in getattr(self.pytest_session, "items", None) or []}
        return self.items.get(nodeid)

    def pytest_collection_finish(self, session):
        self.pytest_session, self.items = session, None

    @_WRAPPER
    def pytest_runtest_logreport(self, report):
        # A wrapper, whose part before the yield runs before every plugin's hook, tryfirst ones
        # too: a test that compiled a program again fails before pytest's session counts the
        # failures (the exit code, -x, --maxfail; its hook is tryfirst, and registered after
        # this plugin, so it ran first when this was tryfirst), and before the terminal, the
        # JUnit XML, --lf's cache and xdist's worker see the report.
        if report.when != "setup":  # a set-up report has nothing to judge, carry or flush
            self.logreport(report)
        return (yield)

    def logreport(self, report):
        e = self.entities.get(report.nodeid)
        if report.when == "call":
            if report.outcome != "passed":
                return
            self.passed.add(report.nodeid)
            if e is not None and e.records:
                self.judged.add(report.nodeid)
                why = self.judge(report.nodeid, self.item(report.nodeid), e)
                if why:
                    report.outcome = "failed"
                    report.longrepr = why
            return
        if report.when == "teardown":
            # What the test's own teardown compiled (a function-scoped fixture's clean-up) is
            # judged too: an error at teardown, as pytest reports a teardown that fails.
            if (report.passed and report.nodeid in self.passed and report.nodeid not in self.failed and e is not None
                    and any(r.get("phase") == "teardown" for r in e.records)):
                self.judged.add(report.nodeid)
                why = self.judge(report.nodeid, self.item(report.nodeid), e)
                if why:
                    report.outcome = "failed"
                    report.longrepr = why
            if e is not None and e.records and report.nodeid not in self.judged:
                report.recomp_unjudged = True  # (xdist carries it to the controller)
            self.passed.discard(report.nodeid)
            self.judged.discard(report.nodeid)
            self.flush(report, e)
        if getattr(report, "recomp_unjudged", False):
            self.unjudged.add(report.nodeid)
        rows = getattr(report, "recomp", None)
        if not rows:
            return
        for name, (n, s, bad) in rows.items():
            self.rows[name] = [n, s, bad]
        for key in getattr(report, "recomp_programs", None) or []:
            self.named.add(tuple(key))

    def flush(self, report, e):
        """At a test's teardown report: the table's rows of the test and of the fixtures that
        compiled since the last test's, on the report (xdist carries its attributes to the
        controller)."""
        self.entities.pop(report.nodeid, None)
        if not self.pending and (e is None or not e.records):
            return
        rows, named = {}, set()
        if e is not None and e.records:
            rows[report.nodeid] = [len(e.records), e.seconds(), report.nodeid in self.failed]
            named.update(_programs(e.records))
        worker = os.environ.get("PYTEST_XDIST_WORKER", "")
        for name in sorted(self.pending):
            f = self.entities.get(name)
            if f is not None and f.records:  # a fixture of each worker's own
                rows[name + (" [%s]" % worker if worker else "")] = [len(f.records), f.seconds(), False]
                named.update(_programs(f.records))
        self.pending = set()
        if rows:
            report.recomp = rows
            report.recomp_programs = sorted(list(p) for p in named)

    def judge(self, nodeid, item, e):
        """Why the test nodeid fails recomp's check ("" when it passes). item is its collected
        test, for its marker and names; without one (a test this process did not collect) the
        test is judged with the defaults, never let pass unjudged."""
        marker = item.get_closest_marker("recomp") if item is not None else None
        try:
            enabled, allowed, warmup, budget = _allowance(marker)
        except ValueError as err:  # the test fails unjudged: no row of the table says it compiled again
            self.judged.discard(nodeid)
            self.passed.discard(nodeid)
            n = len(e.records)
            return ("recomp: %s; this test's %d %s not judged (pytest --markers shows the marker's arguments)"
                    % (err, n, "compilation was" if n == 1 else "compilations were"))
        if not enabled:
            return ""
        counts = {}  # a record that names no program (JAX 0.4's) is judged with the session's
        for key in _keys(e.records):
            if key[1]:
                counts[key] = counts.get(key, 0) + 1
        over = {k: c for k, c in counts.items() if c - warmup > allowed}
        out = []
        if budget is not None and e.seconds() > budget:
            out.append("recomp: this test compiled for %.2f s, over its budget of %.2f s (%d compilations)" % (e.seconds(), budget, len(e.records)))
        if over:
            out += self.explain(nodeid, item, over, warmup, allowed, e.records)
        if out:
            self.failed.add(nodeid)
            out.append("recomp: run folder %s (recomp scan %s for the whole report)" % (self.session.folder, self.session.folder))
        return "\n".join(out)

    def explain(self, nodeid, item, over, warmup, allowed, records):
        """recomp's answer for the programs the test compiled again: the verdict of the run
        folder so far, the causes at the test's own lines first (the lines the probe's records
        of its compilations name, or its function's). A program the log shows as not
        compiled again (an eager one-op program, persistent-cache hits) is no failure; one the
        report does not know, or cannot decide on, is."""
        try:
            got = self.session.answer(over)
        except Exception as err:
            return ["recomp: could not read the run folder: %s" % err]
        report, family = got["report"], got["programs"]
        programs = {p.get("program", ""): p for p in (report.get("verdict") or {}).get("programs") or []}
        modules = {m.get("family", ""): m for m in report.get("modules") or []}
        lines = _again(records, warmup)
        _, _, name = nodeid.partition("::")
        func = getattr(item, "originalname", None) or name.rpartition("::")[2].partition("[")[0]
        if any(r.get("file") for r in records):
            func = None  # the records name the test's lines: those of its warm-up are no cause of its own
        out = []
        for key, n in sorted(over.items()):
            name, program = key[1], family[key]
            if key[2]:
                name += " (defined at %s)" % key[2]  # a lambda
            p, m = programs.get(program), modules.get(_family(program))
            if p is None and m is not None and (m.get("eager") or not m.get("recompiled")) and not m.get("undecided"):
                continue  # the log says so: an eager one-op program (not gated), or served from a cache
            head = "recomp: %s compiled %d times in this test: %d after its first %s" % (
                name, n, n - warmup, "compilation" if warmup == 1 else "%d compilations" % warmup)
            if allowed:
                head += " (%d allowed)" % allowed
            out.append(head)
            if p is None:
                why = (m or {}).get("undecided") or ("the probe recorded these compilations; the run folder's log holds none of "
                                                     "%s" % program)
                out.append("  recomp's report names no program of it that compiled again: %s" % why)
                continue
            mine = []  # the causes at the test's own lines, with those lines only (a cause's sites are the session's)
            for c in p.get("causes") or []:
                own = [s for s in c.get("sites") or [] if (func and ("(%s)" % func) in s) or _site(s) in lines]
                if own:
                    mine.append(dict(c, sites=own))
            out += _answer(p, mine, test=True)
        return out

    def pytest_sessionfinish(self, session, exitstatus):
        self.exitstatus = int(exitstatus)
        if self.worker:
            return
        e = self.entities.get(_OUTSIDE)
        if e is not None and e.records:
            self.rows[_OUTSIDE] = [len(e.records), e.seconds(), False]
        # One call of the binary: the final manifest, then recomp's answer on the folder; a
        # program compiled after warm-up that no test or fixture was seen compiling fails the
        # session (passed, or no test collected, becomes 1 in the manifest too).
        try:
            got = self.session.close(self.exitstatus, judge=self.named)
        except Exception as err:
            self.unblamed = ["recomp: could not read the run folder, the session's compilations were not judged: %s" % err]
        else:
            self.report = got["report"]
            self.unblamed = self.blame_none(got)
            if got["exit_code"] != self.exitstatus:
                self.exitstatus = session.exitstatus = got["exit_code"]
        if self.unblamed and self.exitstatus in (0, 5):
            self.exitstatus = session.exitstatus = 1
            self.session.close(self.exitstatus)  # the manifest says how pytest ends

    def blame_none(self, got):
        """What fails the session (the binary found it, got: Session.close's answer): each
        program the verdict says compiled after warm-up that the probe saw no test or fixture
        compile, so that no test was judged for it (its stack writes no record per compilation,
        or a process the tests started compiled it); and a run folder whose dump holds modules
        while its log holds no compilation (nothing could be judged)."""
        out = []
        dumped = int(got.get("unjudged") or 0)
        if dumped:
            out.append("recomp: %d HLO module%s dumped into the run folder, and its log holds no compilation: the session's "
                       "compilations were not judged (a stack whose compile log lines are written by C++ code to the standard "
                       "error, which pytest takes, leaves them out of run.log): run the suite as recomp run -- pytest -s"
                       % (dumped, " was" if dumped == 1 else "s were"))
        unblamed = set(got.get("unblamed") or [])
        for p in (got["report"].get("verdict") or {}).get("programs") or []:
            name, n = p.get("program", ""), int(p.get("after_warmup") or 0)
            if name not in unblamed:
                continue
            out.append("recomp: %s compiled %d time%s after warm-up; no test could be blamed: recomp's probe recorded no "
                       "compilation of it under a test (%s)" % (name, n, "" if n == 1 else "s", p.get("framework") or "its stack"))
            out += _answer(p, [], "in the session")
        return out

    def pytest_terminal_summary(self, terminalreporter):
        if self.worker:
            return
        tr = terminalreporter
        tr.write_sep("=", "recomp")
        rows = sorted(self.rows.items(), key=lambda kv: (not kv[1][2], -kv[1][1], kv[0]))
        if not rows:
            tr.write_line("nothing compiled under the tests")
        else:
            tr.write_line("%-12s %12s  %s" % ("COMPILATIONS", "COMPILE TIME", "TEST OR FIXTURE"))
            for name, (n, s, bad) in rows[:20]:
                tr.write_line("%12d %11.2fs  %s%s" % (n, s, name, "  (compiled again)" if bad else ""))
            if len(rows) > 20:
                tr.write_line("… and %d more that compiled" % (len(rows) - 20))
        verdict = (self.report or {}).get("verdict") or {}
        headline = verdict.get("headline", "")
        if headline:
            tr.write_line("recomp: " + headline)
            after = sum(int(p.get("after_warmup") or 0) for p in verdict.get("programs") or [])
            if after and not self.unblamed and not self.unjudged and not any(bad for _, (_, _, bad) in rows):
                # The headline is the session's as one run; each test that compiled was judged
                # on its own (none failed, was skipped or errored first).
                tr.write_line("recomp: no test failed recomp's check: the compilations after warm-up above count the session as "
                              "one run (a program that several tests, parametrized cases, fixtures or the set-up outside tests "
                              "each compiled for their own shapes, or that a test's marker lets compile again)")
        for line in self.unblamed:
            tr.write_line(line, red=line.startswith("recomp:"), bold=line.startswith("recomp:"))
        tr.write_line("recomp: run folder %s (recomp scan %s for the whole report)" % (self.session.folder, self.session.folder))

    def pytest_unconfigure(self, config):
        self.session.close(self.exitstatus)


_MARKER_KEYS = ("enabled", "recompilations", "warmup", "budget_s")


def _allowance(marker):
    """A test's allowance from its @pytest.mark.recomp marker (None: the defaults): enabled,
    recompilations allowed, warm-up compilations, budget in seconds (None: none). A ValueError
    names the marker as written and what is wrong with it: an unknown argument, a value of the
    wrong kind, a number out of range."""
    if marker is None:
        return True, 0, 1, None
    written = "@pytest.mark.recomp(%s)" % ", ".join(
        [repr(a) for a in marker.args] + ["%s=%r" % kv for kv in marker.kwargs.items()])
    kwargs = dict(marker.kwargs)
    if len(marker.args) > 1:
        raise ValueError("%s: one positional argument at most (enabled)" % written)
    if marker.args and "enabled" in kwargs:
        raise ValueError("%s: enabled given twice" % written)
    if marker.args:
        kwargs["enabled"] = marker.args[0]
    unknown = sorted(set(kwargs) - set(_MARKER_KEYS))
    if unknown:
        raise ValueError("%s: no argument %s (the arguments: %s)" % (written, ", ".join(unknown), ", ".join(_MARKER_KEYS)))

    def whole(key, default, least):
        v = kwargs.get(key, default)
        try:
            n = None if isinstance(v, bool) else operator.index(v)  # an int, a NumPy integer
        except TypeError:
            n = None
        if n is None or n < least:
            raise ValueError("%s: %s must be a whole number, %d or more, not %r" % (written, key, least, v))
        return n

    enabled = kwargs.get("enabled", True)
    if not isinstance(enabled, bool):
        raise ValueError("%s: enabled must be True or False, not %r" % (written, enabled))
    budget = kwargs.get("budget_s")
    if budget is not None:
        if isinstance(budget, bool) or not isinstance(budget, numbers.Real) or not float(budget) >= 0:
            raise ValueError("%s: budget_s must be a number of seconds, 0 or more, not %r" % (written, budget))
        budget = float(budget)
    return enabled, whole("recompilations", 0, 0), whole("warmup", 1, 1), budget


def _answer(p, mine, when="in the session so far", test=False):
    """recomp's answer for a program of the verdict: its causes (mine first: those at the test's
    own lines, else all), the fix (for mine, their advice, when the program's action gives it)
    and the program's summary. For a test, a cause's change is the program's in the whole
    session so far (other tests' shapes too), and says so; a cause none of whose lines is the
    test's names the session's lines after it."""
    out = []
    for c in mine or p.get("causes") or []:
        line = "  cause: %s" % (c.get("label") or c.get("kind", ""))  # the kind in the words of the rest of the answer
        sites = ", ".join(c.get("sites") or [])
        if mine and sites:
            line += " at " + sites
        if c.get("change"):
            line += "; %s %s" % (when, c["change"]) if test else ", " + c["change"]
        if sites and not mine:
            line += ", at " + sites
        out.append(line)
    fix = p.get("action") or ""
    advice = []
    for c in mine:
        if c.get("advice") not in advice:
            advice.append(c.get("advice"))
    if advice and all(a and a in fix for a in advice):
        fix = "; and ".join(advice)  # the program's action for the test's own causes only
    if fix:
        out.append("  fix: " + fix)
    if p.get("summary"):
        out.append("  %s: %s" % (when, p["summary"]))
    return out


def _site(site):
    """A cause's site ("path/file.py:LINE (function)") as (file name, line), as the probe's records
    name them; (None, None) for another form."""
    head = site.split(" (", 1)[0]
    path, sep, line = head.rpartition(":")
    return (os.path.basename(path), int(line)) if sep and line.isdigit() else (None, None)


def _running():
    """The test running now and its phase (setup, call, teardown), from PYTEST_CURRENT_TEST
    ("NODEID (PHASE)", which pytest sets around each phase): ("", "") outside tests."""
    cur = os.environ.get("PYTEST_CURRENT_TEST", "")
    name, sep, phase = cur.rpartition(" (")
    if not sep or not phase.endswith(")"):
        return "", ""
    return name, phase[:-1]


def _fixture():
    """The name the table gives the module-, class-, package- or session-scoped fixture whose
    set-up or clean-up is running (the innermost frame of pytest's pytest_fixture_setup, or of
    FixtureDef.finish, which runs its finalizers in the teardown of the last test that uses it),
    or None (none, or a function-scoped one: a test's own set-up or teardown)."""
    f = sys._getframe(2)
    while f is not None:
        code = f.f_code
        d = None
        if code.co_name == "pytest_fixture_setup" and "fixturedef" in code.co_varnames:
            d = f.f_locals.get("fixturedef")
        elif code.co_name == "finish" and "self" in code.co_varnames and type(f.f_locals.get("self")).__name__ == "FixtureDef":
            d = f.f_locals.get("self")
        if d is not None:
            scope = getattr(d, "scope", "function")
            if scope == "function":
                return None
            return "fixture %s (%s scope, %s)" % (d.argname, scope, d.baseid or "<session>")
        f = f.f_back
    return None


def _again(records, warmup):
    """The lines (file name, line) of the test's compilations of each program after its first
    warmup ones: where the test compiled again (its warm-up's lines are no cause of that, unless
    it compiled there again too)."""
    seen, out = {}, set()
    for r, key in zip(records, _keys(records)):
        if not key[1]:
            continue  # a record that names no program (JAX 0.4's) is no program's
        seen[key] = seen.get(key, 0) + 1
        if seen[key] > warmup and r.get("file"):
            out.add((os.path.basename(str(r["file"])), r.get("line")))
    return out


def _programs(records):
    """The programs (framework, name, defined) the probe's records name."""
    return {k for k in _keys(records) if k[1]}


_keys = record_keys  # each record's (framework, name, defined)


def _family(program):
    """The module family of a program the verdict names: a lambda's program is its family and
    where it is defined (jit__lambda [t.py:7]), the report's modules list the family alone."""
    return program.split(" [", 1)[0]
