"""A recomp session inside this Python process: the run folder, settings and probe of `recomp
run`, asked of the recomp binary (`recomp session open`), applied to this process and its
children, and the compilations the probe records as they happen."""
import json
import os
import shutil
import subprocess
import sys

__all__ = ["binary", "Session"]


def binary():
    """The recomp binary: $RECOMP_BIN, else the one installed beside this package (the wheel's),
    else beside this Python, else the first on PATH."""
    b = os.environ.get("RECOMP_BIN")
    if b:
        return b
    name = "recomp.exe" if os.name == "nt" else "recomp"
    for d in (_scripts(), None, os.path.dirname(sys.executable)):
        if d is None:
            import sysconfig  # a millisecond to import: asked only when _scripts() has no binary
            d = sysconfig.get_path("scripts")
        p = os.path.join(d or "", name)
        if d and os.path.isfile(p) and os.access(p, os.X_OK):
            return p
    p = shutil.which("recomp")
    if p:
        return p
    raise RuntimeError("recomp: the recomp binary is not installed beside this Python nor on PATH (pip install recomp, or set RECOMP_BIN)")


def _scripts():
    """The scripts folder of the installation that holds this package, where pip put the
    wheel's binary: PREFIX/bin for PREFIX/lib/pythonX.Y/site-packages (a venv, --user, Debian's
    dist-packages, conda), PREFIX\\Scripts for PREFIX\\Lib\\site-packages; None for another layout."""
    up = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # site-packages' parent
    if os.name == "nt":
        return os.path.join(os.path.dirname(up) if os.path.basename(up).lower() == "lib" else up, "Scripts")
    if os.path.basename(os.path.dirname(up)) in ("lib", "lib64"):
        return os.path.join(os.path.dirname(os.path.dirname(up)), "bin")
    return None


def _run(args, check=True, stdin=None):
    p = subprocess.run([binary()] + args, input=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if check and p.returncode != 0:
        raise RuntimeError("recomp %s: %s" % (" ".join(args[:2]), (p.stderr or p.stdout).strip()))
    return p


class Session:
    """The evidence of this process (and of the processes it starts) switched on into one run
    folder. open() sets the variables recomp run would set (your own values kept) and loads
    recomp's probe; the variables that stacks read at import (JAX_LOG_COMPILES, XLA_FLAGS, …)
    take effect only for a stack imported after open(). listeners are called with each record
    of a compilation the probe writes. A process started under recomp run, or by a process with
    a session (an xdist worker), already has the probe: the session then joins its run folder."""

    def __init__(self, out=None, command=None, framework="auto", dump="before"):
        self.out, self.command = out, list(command or [os.path.basename(sys.argv[0]) or "python"] + sys.argv[1:])
        self.framework, self.dump = framework, dump
        self.folder, self.compiles, self.listeners = None, set(), []
        self.settings, self.quiet = [], []
        self.owner = False  # this session made the folder and closes it
        self._saved_env = {}
        self._probe = None
        self._write = None
        self._closed = None  # the exit code the folder's manifest was closed with (this session made it)
        self._programs = {}  # (framework, name) of a probe record -> its program
        self._staying = None  # the binary of session open --stay, waiting to run the close

    def state(self):
        """What a child process that joins the session needs (an xdist worker)."""
        return {"folder": self.folder, "compiles": sorted(list(c) for c in self.compiles), "quiet": self.quiet}

    def join(self, state):
        """Joins the session of the process that started this one (state())."""
        self.folder = state["folder"]
        self.compiles = {tuple(c) for c in state["compiles"]}
        self.quiet = state.get("quiet") or []
        self._attach()
        return self

    def name_process(self, name):
        """Names this process in the run folder (the probe's record of stage "worker"): the report
        then says "run.log [gw1, pid 4242]" of it, not the process id alone."""
        if self._write is not None and name:
            try:
                self._write({"framework": "pytest", "event": "worker", "name": str(name)})
            except Exception:
                pass

    def open(self):
        probe = sys.modules.get("_recomp_probe")
        if probe is not None and getattr(probe, "_OUT", ""):
            # Under recomp run (or a parent's session): its folder, its probe.
            info = json.loads(_run(["session", "open", "--events-only"]).stdout)
            self.folder = os.path.dirname(probe._OUT)
            self.compiles = {(c["framework"], c["event"]) for c in info["compiles"]}
            self._attach()
            return self
        args = ["session", "open", "--framework", self.framework, "--dump", self.dump, "--stay"]
        if self.out:
            args += ["--out", self.out]
        if os.path.isdir(_PROBE):  # the binary uses it when it is its own probe: no process compiles one
            args += ["--probe-from", _PROBE]
        info, self._staying = _start(args + ["--"] + self.command)
        self.folder, self.settings, self.owner = info["folder"], info["settings"], True
        self.compiles = {(c["framework"], c["event"]) for c in info["compiles"]}
        self.quiet = info.get("quiet") or []
        for k, v in info["env"].items():
            self._saved_env[k] = os.environ.get(k)
            os.environ[k] = v
        if info.get("probe"):
            from . import _exec
            _exec("_recomp_probe", _probe(os.path.join(info["probe"], "sitecustomize.py")))
        self._attach()
        return self

    def _attach(self):
        probe = sys.modules.get("_recomp_probe")
        if probe is None or self._probe is probe:
            return
        self._probe, self._write = probe, probe._write
        if self.quiet and hasattr(probe, "_quiet"):
            probe._quiet(self.quiet)
        original, compiles, listeners = probe._write, self.compiles, self.listeners

        def write(rec):
            original(rec)
            if (rec.get("framework"), rec.get("event")) in compiles:
                for listen in listeners:
                    try:
                        listen(rec)
                    except Exception:
                        pass

        probe._write = write

    def programs(self, names):
        """The program (the module family, as recomp's verdict names it) of each probe record's
        (framework, name) or (framework, name, defined) in names, asked of the binary (`recomp
        session programs`), which knows how each stack names its programs: a dict."""
        keys = [tuple(str(x) for x in k) for k in names]
        ask, recs = _names(set(keys) - set(self._programs))
        if ask:
            for key, program in zip(ask, json.loads(_run(["session", "programs"], stdin=recs).stdout)):
                self._programs[key] = program
        return {k: self._programs[k] for k in keys}

    def scan(self):
        """recomp's answer on the run folder so far: `recomp scan FOLDER --format json` as data
        (docs/json.md)."""
        p = _run(["scan", self.folder, "--format", "json"], check=False)
        if p.returncode not in (0, 1):
            raise RuntimeError("recomp scan %s: %s" % (self.folder, p.stderr.strip()))
        return json.loads(p.stdout)

    def answer(self, names=()):
        """recomp's answer on the run folder so far for tests that compiled the probe records
        names ((framework, name) pairs), in one call of the binary (`recomp session report`):
        a dict with report (scan's JSON, docs/json.md), programs (names' programs: a dict),
        unblamed (the programs that compiled after warm-up that none of names is) and unjudged
        (the HLO modules dumped when the log holds no compilation; 0 otherwise)."""
        keys, stdin = _names(names)
        return self._reply(keys, _run(["session", "report", self.folder], stdin=stdin).stdout)

    def _reply(self, keys, stdout):
        out = json.loads(stdout)
        out["programs"] = dict(zip(keys, out["programs"]))
        self._programs.update(out["programs"])
        return out

    def close(self, exit_code=0, judge=None, report=False):
        """Ends the session: the probe's listener detached and, when this session made the run
        folder, the probe stopped, the folder's final manifest written and the variables set
        back. Called again with another exit code, it writes that code into the manifest.

        With report, or judge (the (framework, name) of the probe records the tests were seen
        compiling), it returns recomp's answer as answer() does, read after the final manifest
        in the same call of the binary, with exit_code: the one the manifest holds. With judge,
        an exit code of 0 or 5 (pytest's passed, no test collected) becomes 1 when a program
        is unblamed or the session unjudged."""
        probe = self._probe
        if probe is not None and self._write is not None:
            probe._write = self._write
            self._probe = None
        ask = report or judge is not None
        if self._closed is not None and self._closed != int(exit_code):
            # Closed already: the manifest now says how the process ends.
            _run(["session", "close", "--exit", str(int(exit_code)), self.folder], check=False)
            self._closed = int(exit_code)
        if not self.owner:
            if not ask:
                return None
            _log_caught_up(self.folder)
            out = self.answer(judge or ())
            out["exit_code"] = int(exit_code)
            if judge is not None and out["exit_code"] in (0, 5) and (out["unblamed"] or out["unjudged"]):
                out["exit_code"] = 1
            return out
        if probe is not None:
            try:
                probe._stop()
            except Exception:
                pass
        args = ["session", "close", "--exit", str(int(exit_code))]
        keys, stdin = _names(judge or ())
        if ask:
            args.append("--report")
        if judge is not None:
            args.append("--judge")
        try:
            p = self._served(args + [self.folder], stdin if ask else None)
            if p is None or (p.returncode != 0 and not p.stdout):
                p = _run(args + [self.folder], check=ask, stdin=stdin if ask else None)
            elif ask and p.returncode != 0:
                raise RuntimeError("recomp session close: %s" % (p.stderr or p.stdout).strip())
        finally:
            for k, v in self._saved_env.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v
            self._saved_env = {}
            self.owner = False
            self._closed = int(exit_code)
        if not ask:
            return None
        out = self._reply(keys, p.stdout)
        self._closed = int(out["exit_code"])
        return out

    def _served(self, args, stdin):
        """args run by the binary that opened the session (session open --stay), which exits
        then: a CompletedProcess, or None when it is gone (an interrupt, a kill) or had run its
        one command already."""
        p, self._staying = self._staying, None
        if p is None or p.poll() is not None:
            return None
        try:
            out, err = p.communicate(json.dumps({"args": args, "stdin": stdin or ""}) + "\n")
        except OSError:
            p.kill()
            p.wait()
            return None
        return subprocess.CompletedProcess([binary()] + args, p.returncode, out, err)


# The wheel's copy of the probe (python.ProbePath), compiled by pip at install.
_PROBE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_probe")


def _probe(path):
    """The file to load the probe from: this package's copy when the binary chose it
    (--probe-from) or wrote the same text at path, else path (a binary of another version:
    RECOMP_BIN, one on PATH)."""
    own = os.path.join(_PROBE, "sitecustomize.py")
    if os.path.dirname(path) == _PROBE:
        return own
    try:
        with open(own, "rb") as a, open(path, "rb") as b:
            if a.read() == b.read():
                return own
    except OSError:
        pass
    return path


def _start(args):
    """Starts the binary with args, a session open --stay: the JSON of its first line, and the
    process, which waits for the one command Session.close sends it (one start of the binary a
    session instead of two)."""
    p = subprocess.Popen([binary()] + args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = p.stdout.readline()
    if not line:
        _, err = p.communicate()
        raise RuntimeError("recomp %s: %s" % (" ".join(args[:2]), (err or "").strip() or "exit %d" % p.returncode))
    try:
        return json.loads(line), p
    except ValueError:
        p.kill()
        p.wait()
        raise RuntimeError("recomp %s: not JSON: %s" % (" ".join(args[:2]), line.strip()))


# The line the process writes to its stderr, under recomp run, to know when run.log holds all it
# wrote before (runner.SyncLine: recomp run keeps it off the terminal).
_SYNC = "recomp-probe: sync "


def _log_caught_up(folder, wait=5.0):
    """Under recomp run, the stacks' log records go through the process's stderr to recomp run,
    which writes them into the folder's run.log: waits (at most wait seconds) until run.log holds
    everything written before, by a line of its own sent the same way, and warns when it does not
    (the answer may then miss the last compilations). Where the probe appends to run.log itself
    (RECOMP_PROBE_LOG: a session this process or its parent opened), nothing waits."""
    if os.environ.get("RECOMP_PROBE_LOG"):
        return
    import contextlib
    import time
    import warnings
    token = (_SYNC + os.urandom(8).hex()).encode()
    # the way the stacks' records went: the probe's copy of stderr, taken before pytest's capture
    probe = sys.modules.get("_recomp_probe")
    fd = getattr(getattr(probe, "_STACK_LOG", None), "fd", -1)
    path = os.path.join(folder, "run.log")
    try:
        sys.stderr.flush()
        with getattr(probe, "_LOCK", None) or contextlib.nullcontext():
            os.write(fd if fd >= 0 else 2, token + b"\n")
        end = time.monotonic() + wait
        while time.monotonic() < end:
            with open(path, "rb") as f:
                f.seek(max(0, os.path.getsize(path) - 65536))
                if token in f.read():
                    return
            time.sleep(0.01)
    except OSError:
        pass
    warnings.warn("recomp: %s did not show everything this process wrote within %.0f s: the answer may miss its last "
                  "compilations" % (path, wait), RuntimeWarning, stacklevel=3)


def record_keys(records):
    """Each probe record's (framework, name, defined): what the binary names its program by
    (defined: where a lambda is defined, which tells two lambdas apart; "" for a named
    function)."""
    return [(str(r.get("framework", "")), str(r.get("name", "")), str(r.get("defined", "") or "")) for r in records]


def _names(names):
    """The (framework, name) or (framework, name, defined) keys of names, sorted and once each,
    and the JSON the binary reads them as (defined: where a lambda is defined)."""
    keys = sorted({tuple(str(x) for x in k) for k in names})
    recs = []
    for k in keys:
        rec = {"framework": k[0], "name": k[1]}
        if len(k) > 2 and k[2]:
            rec["defined"] = k[2]
        recs.append(rec)
    return keys, json.dumps(recs)
