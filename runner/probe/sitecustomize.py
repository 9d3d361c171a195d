"""recomp's probe: `recomp run` puts this file's folder first on PYTHONPATH, so Python loads it
as sitecustomize at start. For each compilation a framework reports to its own monitoring API
(JAX's jax.monitoring: tracing, lowering, backend compile), for each trace of a tf.function
(TF then compiles it), and for each Keras fit, evaluate and predict, it writes the first frame
of the program's own code — the user's line — to the file $RECOMP_PROBE_OUT, one JSON object
per line; at each JAX trace of a jitted function, also the static arguments it was called with
(their names and reprs, cut short). It also puts a handler on the stacks' Python loggers that
writes each of their records the program's own output would lose (pytest's capture, -q) to the
standard error the process started with, so the command's log holds it (_StackLog). It costs nothing per step. It imports nothing of a framework: it waits
until the program imports one. It then runs the sitecustomize it shadows, if there is one.
Nothing it does may break the program: every error is swallowed. RECOMP_PROBE=0 (recomp run
--probe=false) leaves it out. When the program ends, it writes the versions of the framework
distributions this Python has (_PACKAGES names them): recomp never runs the command, nor this
Python, a second time to ask.
"""
import os
import sys
import threading

_HERE = os.path.dirname(os.path.abspath(__file__))
_OUT = os.environ.get("RECOMP_PROBE_OUT", "")
_LOCK = threading.Lock()
_FILE = None
_STDLIB = os.path.dirname(os.path.abspath(os.__file__)) + os.sep
_STOPPED = False  # set by _stop


def _stop():
    """Stops writing (the pytest plugin's or the Python API's session ended): the hooks stay
    but write nothing."""
    global _STOPPED, _FILE
    _STOPPED = True
    with _LOCK:
        if _FILE is not None:
            _FILE.close()
            _FILE = None
        if _STACK_LOG is not None:
            _STACK_LOG.close()
    if sys.modules.get("_recomp_probe") is sys.modules.get(__name__):
        del sys.modules["_recomp_probe"]


def _write(rec):
    global _FILE
    if _STOPPED:
        return
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


# The stacks' Python loggers, and the distributions whose versions the probe writes at exit
# (recomp run writes them in: runner.ProbeSource).
_LOGGERS = []
_PACKAGES = []
_LOG_FORMAT = "%(levelname)s:%(asctime)s:%(name)s:%(lineno)s: %(message)s"


def _identity(fd):
    try:
        st = os.fstat(fd)
        return (st.st_dev, st.st_ino)
    except Exception:
        return None


class _StackLog:
    """A logging handler on the stacks' loggers: a record that no other handler delivers to the
    process's own standard output or error as they were at start (pytest's capture, -q, a
    runner that swallows stderr) is written to that error stream all the same, in the layout
    JAX logs with, so that the command's log (recomp run's run.log) holds every compile record
    whatever the program does with its output. A record that does reach them is not written
    twice. With RECOMP_PROBE_LOG set, every record goes to that file instead, each line stamped
    with its time as run.log's are and tagged with the process ([pid 4242]: pytest's xdist workers
    write the same file; recomp reads each tag as a process when the probe's records show
    several) (the pytest plugin's run folder, whose run.log has no other writer)."""

    def __init__(self, logging):
        self.logging = logging
        self.own = {i for i in (_identity(1), _identity(2)) if i is not None}
        self.path = os.environ.get("RECOMP_PROBE_LOG", "")
        self.fd = -1
        if not self.path:
            self.fd = os.dup(2)
        self.log = -1  # RECOMP_PROBE_LOG, opened for appending at its first record
        self.clock = (None, "")  # stamp()'s second and its text
        self.format = logging.Formatter(_LOG_FORMAT)
        self.handler = None

    def reaches(self, stream):
        try:
            return _identity(stream.fileno()) in self.own
        except Exception:
            return False

    def formatter(self, record):
        """The layout of the record's stack: the formatter of the stack's own handler on its
        loggers (torch's lines, with dynamo's compile ids), else JAX's layout."""
        c = self.logging.getLogger(record.name)
        while c is not None and any(c.name == n or c.name.startswith(n + ".") for n in _LOGGERS):
            for h in c.handlers:
                if h is not self.handler and getattr(h, "formatter", None) is not None:
                    return h.formatter
            if not c.propagate:
                break
            c = c.parent
        return self.format

    def is_quiet(self, record):
        """Whether only recomp's settings made the record (it prints one of _QUIET's lines)."""
        q = getattr(record, "_recomp_quiet", None)
        if q is None:
            try:
                text = getattr(record, "_recomp_text", None)
                if text is None:  # a filter ahead of emit (the stack's own handler): emit reuses it
                    text = record._recomp_text = self.formatter(record).format(record)
                first = text.split("\n", 1)[0]
            except Exception:
                first = ""
            q = record._recomp_quiet = any(p.search(first) for p in _quiet_patterns())
        return q

    def guard(self):
        """Puts _DROP on the handlers of the stacks' loggers (their own, set up at import)."""
        if not (self.path and _QUIET):
            return
        logging = self.logging
        for name, c in list(logging.Logger.manager.loggerDict.items()):
            if isinstance(c, logging.Logger) and any(name == n or name.startswith(n + ".") for n in _LOGGERS):
                for h in c.handlers:
                    if h is not self.handler and _DROP not in h.filters:
                        h.addFilter(_DROP)

    def quiet(self, record):
        """Keeps a record that only recomp's settings made (one of _QUIET's lines) from the
        program's other handlers (the stack's own, pytest's capture): it is in run.log."""
        logging = self.logging
        c = logging.getLogger(record.name)
        while c is not None:
            for h in c.handlers:
                if h is not self.handler and _DROP not in h.filters:
                    h.addFilter(_DROP)
            if not c.propagate:
                break
            c = c.parent

    def delivered(self, record):
        """Whether a handler other than this one writes record to the original streams (and,
        when this one is the only handler, what logging's last resort would have written)."""
        logging = self.logging
        c, found = logging.getLogger(record.name), 0
        while c is not None:
            for h in c.handlers:
                if h is self.handler:
                    continue
                found += 1
                if record.levelno < h.level or not isinstance(h, logging.StreamHandler):
                    continue
                try:
                    if not h.filter(record):
                        continue
                except Exception:
                    continue
                if self.reaches(getattr(h, "stream", None)):
                    return True
            if not c.propagate:
                break
            c = c.parent
        last = logging.lastResort
        if found == 0 and last is not None and record.levelno >= last.level:
            # This handler keeps logging's last resort from running: do what it does.
            try:
                sys.stderr.write(record.getMessage() + "\n")
            except Exception:
                pass
            return self.reaches(sys.stderr)
        return False

    def emit(self, record):
        if _STOPPED or not self.path and self.delivered(record):
            return
        text = getattr(record, "_recomp_text", None)
        if text is None:
            text = record._recomp_text = self.formatter(record).format(record)  # is_quiet reads it too
        if self.path:
            stamp = "%s [pid %d] " % (self.stamp(), os.getpid())  # several processes write this one file
            data = "".join(stamp + line + "\n" for line in text.split("\n")).encode("utf-8", "replace")
            with _LOCK:
                if _STOPPED:
                    return
                if self.log < 0:
                    self.log = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o644)
                _write_all(self.log, data)
            if _QUIET:
                self.quiet(record)
            return
        with _LOCK:
            _write_all(self.fd, (text + "\n").encode("utf-8", "replace"))

    def stamp(self):
        """The time now as run.log's lines begin (2026-01-02T03:04:05.123456Z, UTC), its
        seconds formatted once a second."""
        import time
        now = time.time()
        second, prefix = self.clock  # one attribute: threads swap it whole
        if int(now) != second:
            second = int(now)
            prefix = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(second))
            self.clock = (second, prefix)
        return "%s.%06dZ" % (prefix, int((now - second) * 1e6))

    def close(self):
        """Closes RECOMP_PROBE_LOG (the session ended); the caller holds _LOCK."""
        if self.log >= 0:
            try:
                os.close(self.log)
            except OSError:
                pass
            self.log = -1


def _write_all(fd, data):
    while data:
        n = os.write(fd, data)
        data = data[n:]


_QUIET = []  # the lines recomp's own settings make the stacks print (set by _quiet): [text, compiled]
_DROP = None  # the filter quiet() puts on the program's handlers
_STACK_LOG = None  # the _StackLog of the stacks' loggers


def _quiet(patterns):
    """Sets the lines that recomp's own settings make the stacks print (runner.QuietOf): with
    RECOMP_PROBE_LOG they go to that file only, as recomp run keeps them off the terminal. Each
    is compiled when a record first reaches it (_quiet_patterns): a JAX program's records match
    JAX's, ahead of the other stacks' (some 1.2 ms to compile them all)."""
    global _QUIET
    _QUIET = [[p, None] for p in patterns]
    if _STACK_LOG is not None:
        _STACK_LOG.guard()


def _quiet_patterns():
    """_QUIET's patterns in order, each compiled at its first use (one that does not compile
    matches nothing)."""
    import re
    for entry in _QUIET:
        if entry[1] is None:
            try:
                entry[1] = re.compile(entry[0])
            except Exception:
                entry[1] = re.compile(r"(?!)")
        yield entry[1]


def _log_stacks():
    """Puts _StackLog on the stacks' loggers."""
    import logging

    out = _StackLog(logging)

    class Handler(logging.Handler):
        def emit(self, record):
            try:
                out.emit(record)
            except Exception:
                pass

    class Drop(logging.Filter):
        def filter(self, record):
            try:
                return not out.is_quiet(record)
            except Exception:
                return True

    global _DROP, _STACK_LOG
    _STACK_LOG = out
    _DROP = Drop()
    out.handler = Handler()
    for name in _LOGGERS:
        logging.getLogger(name).addHandler(out.handler)


def _unit(function, define):
    """The hook of a unit (frameworks/*/probe.py, whose text is define's body: it defines
    function and returns its names): put into the probe's globals when the program first
    imports the unit's package. The units are code of this file, compiled with it (by pip at
    install for the wheel's copy, or once into __pycache__ by the first process of a run), not
    text each process compiles (some 2 ms for JAX's)."""

    def hook(module):
        g = globals()
        if function not in g:
            g.update(define())
        g[function](module)

    return hook


# _HOOKS, the hook of each top-level package, each a _unit with its unit's definitions, goes
# here: recomp run writes it in (runner.ProbeSource).
_HOOKS = {}


class _ImportHook:
    """Runs a hook right after a framework's top-level package is imported."""

    def __init__(self):
        self.done = set()

    def find_spec(self, name, path=None, target=None):
        # A package is done once its hook ran, not once it was looked up: a library may look a
        # package up without importing it (TensorFlow's importlib.util.find_spec("keras") at its
        # own import), and the spec it got is not the one the import then executes.
        hook = _HOOKS.get(name)
        if hook is None or name in self.done or name in sys.modules:
            return None
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
            if name in self.done:
                return
            self.done.add(name)
            try:
                hook(module)
            except Exception:
                pass
            if _STACK_LOG is not None:
                try:
                    _STACK_LOG.guard()  # the handlers the stack set up at its import
                except Exception:
                    pass

        loader.exec_module = exec_module
        return spec


def _versions():
    """At exit: the versions of the distributions _PACKAGES names, as one record (nothing
    once stopped: the session that stopped the probe has its manifest written already)."""

    def write():
        if _STOPPED:
            return
        try:
            import importlib.metadata as metadata
            out = {}
            for name in _PACKAGES:
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


def _hook_loaded(hooks):
    """Runs the hooks of the packages the program imported before the probe loaded (the probe
    loaded by the pytest plugin, not at start)."""
    for name, hook in _HOOKS.items():
        module = sys.modules.get(name)
        if module is not None and name not in hooks.done:
            hooks.done.add(name)
            try:
                hook(module)
            except Exception:
                pass


def _own_dump():
    """Gives this process a dump folder of its own when another process has the run folder's.
    XLA numbers the modules it dumps from 0 in each process, so two processes dumping into one
    folder (pytest -n's workers, a program's worker processes, two programs one after the other)
    overwrite each other's files. The first process to make RUN/dump dumps into it; any other,
    whose XLA_FLAGS name RUN/dump (or a RUN/dump/pid-N its parent was given), dumps into
    RUN/dump/pid-<its id>, which recomp reads as that process's modules. A dump folder of the
    user's own is left as it is. XLA reads XLA_FLAGS when the program first compiles, after this."""
    import re
    flags = os.environ.get("XLA_FLAGS", "")
    root = os.path.join(os.path.dirname(os.path.abspath(_OUT)), "dump")
    ours = re.compile(r"(--xla_dump_to=)" + re.escape(root) + r"(?:" + re.escape(os.sep) + r"pid-\d+)?(?=\s|$)")
    if not ours.search(flags):
        return
    try:
        os.mkdir(root)
        own = root
    except FileExistsError:
        own = os.path.join(root, "pid-%d" % os.getpid())
    os.environ["XLA_FLAGS"] = ours.sub(lambda m: m.group(1) + own, flags)


if _OUT and os.environ.get("RECOMP_PROBE", "1") != "0":
    sys.modules["_recomp_probe"] = sys.modules.get(__name__) or sys.modules.get("_recomp_probe")
    try:
        _own_dump()
    except Exception:
        pass
    try:
        _IMPORTS = _ImportHook()
        sys.meta_path.insert(0, _IMPORTS)
        _hook_loaded(_IMPORTS)
    except Exception:
        pass
    try:
        _log_stacks()
    except Exception:
        pass
    _versions()
if __name__ == "sitecustomize":  # loaded by site at start, not by the pytest plugin
    try:
        _chain()
    except Exception:
        import traceback
        traceback.print_exc()
