"""The one driver of recomp's example-run generators (jax_runs.py, tf_runs.py, torch_xla_runs.py).

A generator is a framework's scenarios, its evidence hook and its set-up fixture, handed to this
driver as a Framework; `python GENERATOR --out DIR [NAME...]` then runs each scenario's program in a
fresh Python process and makes DIR/NAME/:

    run.log      what the program printed, stdout and stderr interleaved as printed: through one pipe
                 (the default), through two pipes with a launcher's line prefix added (spec "prefix"),
                 or under a pseudo-terminal (spec "terminal": \\r progress bars and \\r\\n line ends as a
                 terminal gives them). Scenarios of several processes write run1.log, run2.log, ...
                 (one after the other, spec "runs") or rank0.log, rank1.log, ... (at once, spec "ranks")
    probe.jsonl  (spec "probe") the records of recomp run's probe (runner/probe), which the program
                 ran under as under recomp run
    dump/        the HLO modules XLA dumped before optimisation (the fixture's XLA_FLAGS dump into
                 dump/, relative to the run folder, which is the program's working directory); the
                 other dump files are deleted to keep the folder small
    truth.json   what the run really did (README.md): the evidence the program collected through the
                 framework's own API, judged by the framework's hook, in one fixed key order

Inside the program, the framework's evidence hook fills driver.EVIDENCE (a dict); the driver writes
it, when the program returns, to the file named by RECOMP_EVIDENCE, and hands it back to the hook.
Standard library only: the generators run in each framework's own virtual environment (Python 3.10+).
"""
import argparse
import collections
import datetime
import errno
import fcntl
import importlib.metadata
import json
import os
import platform
import re
import shutil
import socket
import struct
import subprocess
import sys
import termios
import threading
import time

# recomp run's probe (a sitecustomize): a scenario with spec "probe" runs under it, as under recomp run,
# and its run folder keeps the records it wrote (probe.jsonl). recomp run assembles the probe from
# runner/probe/sitecustomize.py and each unit's hook (frameworks/*/probe.py): RECOMP_PROBE_DIR names
# such a folder (TestLiveRuns writes one), else writeprobe (Go) writes one once per generator run.
_REPO = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, os.pardir, os.pardir)
_PROBE = []


def probe_dir():
    """The folder of recomp run's assembled probe, written once."""
    if not _PROBE:
        given = os.environ.get("RECOMP_PROBE_DIR", "")
        if given:
            _PROBE.append(given)
        else:
            import tempfile
            out = subprocess.run(["go", "run", "./testdata/runs/gen/writeprobe", tempfile.mkdtemp(prefix="recomp-probe-")],
                                 cwd=_REPO, check=True, capture_output=True, text=True).stdout
            _PROBE.append(out.strip())
    return _PROBE[0]

# recomp itself: a scenario with spec "recomp_run" runs its program under `recomp run` (this repository's),
# which makes the run folder (run.log, manifest.json, probe.jsonl, dump/). RECOMP_BIN names the binary
# (TestLiveRuns gives its own), else go builds one once per generator run.
_BIN = []


def recomp_bin():
    """The recomp binary scenarios of spec "recomp_run" run under, built once."""
    if not _BIN:
        given = os.environ.get("RECOMP_BIN", "")
        if not given:
            import tempfile
            given = os.path.join(tempfile.mkdtemp(prefix="recomp-bin-"), "recomp")
            subprocess.run(["go", "build", "-o", given, "./cmd/recomp"], cwd=_REPO, check=True)
        _BIN.append(given)
    return _BIN[0]


# --- inside the program ----------------------------------------------------------------------------

EVIDENCE = {}  # what the program learns from the framework (and about itself), written at its end


def run_index():
    """Which process of a scenario of several runs this is: 1, 2, ... (1 for a single run)."""
    return int(os.environ.get("RECOMP_RUN", "1"))


def rank():
    """(rank, processes, coordinator "localhost:PORT") of a scenario of concurrent processes
    (spec "ranks"); (0, 1, None) otherwise."""
    return (int(os.environ.get("RECOMP_RANK", "0")), int(os.environ.get("RECOMP_RANKS", "1")),
            os.environ.get("RECOMP_COORDINATOR"))


def here(depth=1):
    """"FILE:LINE" of the caller's line (FILE the base name, as a framework prints the frame without
    its folder): a program writes `out, site = f(x), driver.here()` to know the line of its call."""
    f = sys._getframe(depth)
    return f"{os.path.basename(f.f_code.co_filename)}:{f.f_lineno}"


# --- versions ----------------------------------------------------------------------------------------

def installed(dist):
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return None


def version_tuple(v):
    return tuple(int(p) for p in re.findall(r"\d+", v or "0")[:3])


def versions(dists, extra=()):
    """{"python": X.Y.Z, dist: version...}: every dist of `dists` (None when missing), then those of
    `extra` that are installed, sorted."""
    out = {"python": platform.python_version()}
    for dist in dists:
        out[dist] = installed(dist)
    for dist in sorted(set(extra) - set(dists)):
        if installed(dist):
            out[dist] = installed(dist)
    return out


# --- launchers: the line prefixes they add --------------------------------------------------------------

def go_rfc3339nano(ns):
    secs, frac = divmod(ns, 1_000_000_000)
    stamp = datetime.datetime.fromtimestamp(secs, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S")
    frac_s = f"{frac:09d}".rstrip("0")
    return stamp + ("." + frac_s if frac_s else "") + "Z"


# name -> (the command a user runs, what it adds, prefix(stream, line) -> prefixed line)
LAUNCHERS = collections.OrderedDict([
    ("prefix-kubernetes", ("kubectl logs --timestamps", "each line starts with the kubelet's RFC 3339 timestamp "
                           "with nanoseconds (Go's RFC3339Nano: trailing zeros dropped) and Z, then a space",
                           lambda stream, line: go_rfc3339nano(time.time_ns()) + " " + line)),
    ("prefix-slurm", ("srun --label", "each line starts with the task number and a colon and space, '0: '",
                      lambda stream, line: "0: " + line)),
    ("prefix-torchrun", ("torchrun --tee 3 --role rank", "each line starts with torch elastic's log line prefix "
                         "template [${role_name}${local_rank}]: with role 'rank', '[rank0]:' (no space)",
                         lambda stream, line: "[rank0]:" + line)),
    ("prefix-mpirun", ("mpirun --tag-output", "each line starts with Open MPI's '[jobid,rank]<stream>:' tag, "
                       "'[1,0]<stdout>:' or '[1,0]<stderr>:' by the stream it was written to",
                       lambda stream, line: f"[1,0]<{stream}>:" + line)),
])

# The pseudo-terminal's size (rows, columns) for spec "terminal" runs; recorded in truth.json "terminal".
TERMINAL_SIZE = (24, 80)


# --- running one program ---------------------------------------------------------------------------------

def _run_pipe(cmd, env, cwd, log_path):
    with open(log_path, "wb") as log:
        return subprocess.run(cmd, stdout=log, stderr=subprocess.STDOUT, env=env, cwd=cwd).returncode


def _stamp(ns):
    """The time stamp recomp run puts before each line of run.log: RFC 3339 in UTC, nanoseconds."""
    sec, frac = divmod(ns, 1_000_000_000)
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(sec)) + f".{frac:09d}Z"


def _run_stamped(cmd, env, cwd, log_path):
    """One pipe, each line stamped with the time it arrived, as recomp run writes run.log."""
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env, cwd=cwd)
    with open(log_path, "wb") as log:
        for raw in iter(proc.stdout.readline, b""):
            log.write(_stamp(time.time_ns()).encode() + b" " + raw.rstrip(b"\r\n") + b"\n")
    return proc.wait()


def _run_prefixed(cmd, env, cwd, log_path, add):
    """Read both streams line by line as they arrive and prefix each as the launcher would."""
    lock = threading.Lock()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=cwd)
    with open(log_path, "w", encoding="utf-8") as log:
        def pump(pipe, stream):
            for raw in iter(pipe.readline, b""):
                line = raw.decode("utf-8", "replace")
                with lock:
                    log.write(add(stream, line))
                    log.flush()
        threads = [threading.Thread(target=pump, args=(proc.stdout, "stdout")),
                   threading.Thread(target=pump, args=(proc.stderr, "stderr"))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    return proc.wait()


def _run_terminal(cmd, env, cwd, log_path):
    """Run under a pseudo-terminal: stdin, stdout and stderr are its slave side, and the log gets the
    bytes of the master side as they come (the line discipline's \\r\\n included), as a terminal would
    show them and as `recomp run` records them."""
    master, slave = os.openpty()
    rows, cols = TERMINAL_SIZE
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
    try:
        proc = subprocess.Popen(cmd, stdin=slave, stdout=slave, stderr=slave, env=env, cwd=cwd,
                                start_new_session=True)
    finally:
        os.close(slave)
    with open(log_path, "wb") as log:
        while True:
            try:
                data = os.read(master, 1 << 16)
            except OSError as e:  # EIO: every writer of the slave side is gone
                if e.errno != errno.EIO:
                    raise
                break
            if not data:
                break
            log.write(data)
    os.close(master)
    return proc.wait()


def _run_recomp(how, cmd, env, cwd, log):
    """Run under `recomp run` with how["flags"] (recomp's answer to the terminal goes nowhere: the run
    folder is the record), the run folder being cwd, which is empty. recomp run writes the log (run.log),
    the manifest, the probe's records and the dump, and sets each stack's settings itself; its own
    reports (report.*) are recomp's answer, not the run's evidence, and are removed. Returns recomp's
    exit status. A scenario of several runs (spec "runs") gives each its own run folder, runN/ (log
    runN/run.log), the program still running in cwd: what the runs share (a cache) stays there."""
    assert os.path.basename(log) == "run.log", log
    out = os.path.join(cwd, os.path.dirname(log))
    argv = [recomp_bin(), "run", "--out", out] + list(how["flags"]) + ["--"] + cmd
    with open(os.devnull, "wb") as null:
        rc = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=null, stderr=null, env=env, cwd=cwd).returncode
    for name in os.listdir(out):
        if name.startswith("report."):
            os.remove(os.path.join(out, name))
    return rc


ENV_NAME = re.compile(r"[A-Z_][A-Z0-9_]*$")


def child_env(fw, recorded, extra):
    """The program's environment: ours without the framework's own settings (fw.scrub prefixes), then
    every entry of the recorded env that is an environment variable (not "jax.config.update"), then
    the driver's own (RECOMP_EVIDENCE, RECOMP_RUN)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(tuple(fw.scrub) + ("RECOMP_",))}
    env.update({k: v for k, v in recorded.items() if ENV_NAME.match(k)})
    env.update(extra)
    return env


def _evidence_file(cwd, log):
    return os.path.join(cwd, ".evidence." + log.replace("/", "_") + ".json")


def _read_evidence(path):
    with open(path) as f:
        ev = json.load(f)
    os.remove(path)
    return ev


def with_dump(env, folder):
    """{"XLA_FLAGS": ...} of env with its dump folder (--xla_dump_to=dump) replaced by folder."""
    flags = env.get("XLA_FLAGS", "")
    assert "--xla_dump_to=dump" in flags.split(), flags
    return {"XLA_FLAGS": " ".join("--xla_dump_to=" + folder if f == "--xla_dump_to=dump" else f for f in flags.split())}


def run_program(fw, name, cwd, log, recorded, spec, index=1, run_env=None):
    """Run scenario NAME's program once in a fresh process (working directory cwd), its output to
    cwd/log; return the evidence its hook collected."""
    evidence = _evidence_file(cwd, log)
    extra = {"RECOMP_EVIDENCE": evidence, "RECOMP_RUN": str(index)}
    if spec.get("probe"):  # recomp run's probe, from this repository, writing probe.jsonl as in a run folder
        extra["PYTHONPATH"] = os.pathsep.join(p for p in (probe_dir(), os.environ.get("PYTHONPATH", "")) if p)
        extra["RECOMP_PROBE_OUT"] = os.path.join(cwd, "probe.jsonl")
    env = child_env(fw, dict(recorded, **(run_env or {})), extra)
    cmd = [sys.executable, fw.file, "--run", name]
    log_path = os.path.join(cwd, log)
    want = 0
    if spec.get("recomp_run"):
        rc, want = _run_recomp(spec["recomp_run"], cmd, env, cwd, log), spec["recomp_run"]["exit"]
    elif spec.get("terminal"):
        rc = _run_terminal(cmd, env, cwd, log_path)
    elif spec.get("prefix"):
        rc = _run_prefixed(cmd, env, cwd, log_path, LAUNCHERS[spec["prefix"]][2])
    elif spec.get("stamped"):
        rc = _run_stamped(cmd, env, cwd, log_path)
    else:
        rc = _run_pipe(cmd, env, cwd, log_path)
    if rc != want:
        sys.exit(f"{name}: the program failed (exit {rc}, want {want}); see {log_path}")
    return _read_evidence(evidence)


def _free_port():
    with socket.socket() as s:
        s.bind(("localhost", 0))
        return s.getsockname()[1]


def run_ranks(fw, name, cwd, logs, recorded, per_rank_env, timeout=600, tagged=None):
    """Run scenario NAME's program as len(logs) concurrent processes, rank i's output (one pipe)
    to cwd/logs[i]; they find each other through RECOMP_COORDINATOR (a free localhost port).
    With tagged (a file name), every rank's lines also go to cwd/tagged as they arrive, each
    tagged '[rankI]:' as torchrun --tee tags a job's console (torch elastic's log line prefix)."""
    coordinator = f"localhost:{_free_port()}"
    cmd = [sys.executable, fw.file, "--run", name]
    procs, files, pumps = [], [], []
    lock = threading.Lock()
    job = open(os.path.join(cwd, tagged), "wb") if tagged else None

    def pump(i, pipe, f):
        for raw in iter(pipe.readline, b""):
            with lock:
                f.write(raw)
                job.write(f"[rank{i}]:".encode() + raw)
                job.flush()

    for i, log in enumerate(logs):
        env = child_env(fw, dict(recorded, **per_rank_env[i]), {
            "RECOMP_EVIDENCE": _evidence_file(cwd, log), "RECOMP_RANK": str(i), "RECOMP_RANKS": str(len(logs)),
            "RECOMP_COORDINATOR": coordinator})
        f = open(os.path.join(cwd, log), "wb")
        files.append(f)
        if job is None:
            procs.append(subprocess.Popen(cmd, stdout=f, stderr=subprocess.STDOUT, env=env, cwd=cwd))
            continue
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env, cwd=cwd)
        procs.append(p)
        pumps.append(threading.Thread(target=pump, args=(i, p.stdout, f)))
        pumps[-1].start()
    deadline = time.time() + timeout
    rcs = []
    for p in procs:
        try:
            rcs.append(p.wait(timeout=max(1, deadline - time.time())))
        except subprocess.TimeoutExpired:
            for q in procs:
                q.kill()
            rcs.append("timeout")
    for t in pumps:
        t.join()
    for f in files:
        f.close()
    if job:
        job.close()
    if any(rc != 0 for rc in rcs):
        sys.exit(f"{name}: a rank failed (exit codes {rcs}); see {', '.join(logs)} in {cwd}")
    return [_read_evidence(_evidence_file(cwd, log)) for log in logs]


def child(fw, name):
    """`GENERATOR --run NAME`: run the program in this process, then write what it collected."""
    spec = fw.scenarios[name]
    try:
        spec["program"]()
    except KeyboardInterrupt as e:  # a stop (recomp run --fail-on-recompile): where it landed, then Python's own end
        import traceback
        EVIDENCE["interrupted"] = [{"file": f.filename, "line": f.lineno, "function": f.name}
                                   for f in traceback.extract_tb(e.__traceback__)]
        _write_evidence()
        raise
    _write_evidence()


def _write_evidence():
    path = os.environ.get("RECOMP_EVIDENCE")
    if path:
        with open(path, "w") as f:
            json.dump(EVIDENCE, f)


# --- dumps ------------------------------------------------------------------------------------------------

def trim_dump(dump):
    """Keep the HLO text dumped before optimisation; drop the rest (optimised HLO, objects, LLVM IR,
    MLIR, buffer assignments, subfolders)."""
    if not os.path.isdir(dump):
        return
    for entry in sorted(os.listdir(dump)):
        path = os.path.join(dump, entry)
        if os.path.isdir(path):
            shutil.rmtree(path)
        elif not entry.endswith(".before_optimizations.txt"):
            os.remove(path)


DUMP_FILE = re.compile(r"module_\d+\.(.+)\.before_optimizations\.txt$")
COUNTER = re.compile(r"(\.\d+)+$")


def strip_counter(module):
    """XLA's '.N' uniquifiers stripped: SyncTensorsGraph.176 -> SyncTensorsGraph."""
    return COUNTER.sub("", module) or module


def dump_modules(dump):
    """(file, module name) of each module dumped before optimisation, in dump order (the file name
    carries the module's name, as its HloModule line does)."""
    out = []
    if os.path.isdir(dump):
        for entry in sorted(os.listdir(dump)):
            m = DUMP_FILE.match(entry)
            if m:
                out.append((entry, m.group(1)))
    return out


def dump_families(dump, family=strip_counter):
    """Counter of module families in a dump folder."""
    return collections.Counter(family(m) for _, m in dump_modules(dump))


# --- the framework's side -----------------------------------------------------------------------------------

class Framework:
    """What a generator hands the driver.

    file       the generator's path (the driver runs `python FILE --run NAME` for each process)
    title      the framework's name for messages ("JAX")
    scenarios  name -> spec dict: "program" (a function, run in the fresh process), "description",
               "recompiled", "cause" or "causes", "reason" (a substring of the framework's own
               explanation, or candidates, the first found in the log recorded; "reason_optional"),
               "runs" (processes one after the other, default 1; "run_env": run index -> that
               process's own env; "dump_per_run": dump1/, dump2/, ...), "ranks" (N processes at
               once, rank0.log ... with dump-rank0/ ...), "prefix" (a LAUNCHERS name), "terminal"
               (run under a pseudo-terminal), "recomp_run" ({"flags", "exit"}: under `recomp run`,
               which makes the run folder), "requires"/"uses" (distributions it needs / reports),
               anything the hooks read
    dists      the distributions truth.json "versions" always lists
    matrix     the matrix name, or a function returning it from the installed versions
    setup      the set-up fixture: spec -> the env truth.json records, in order (entries that are
               environment variables are set for the program; others, like "jax.config.update",
               say what the program does itself)
    scrub      prefixes of the environment variables removed from the program's environment
    judge      the evidence hook's other half: Run -> dict with "evidence", "recompiled",
               "not_recompiled", optionally "causes", "description", "note" (for the summary line)
               and "extra" (fields written after the standard ones); problems go to run.problems
    skip       spec -> None, or why this installation cannot run the scenario
    """

    def __init__(self, *, file, title, scenarios, dists, matrix, setup, judge, scrub=(), skip=None):
        self.file = os.path.abspath(file)
        self.title = title
        self.scenarios = scenarios
        self.dists = tuple(dists)
        self._matrix = matrix
        self.setup = setup
        self.judge = judge
        self.scrub = tuple(scrub)
        self.skip = skip or (lambda spec: None)

    @property
    def matrix(self):
        return self._matrix() if callable(self._matrix) else self._matrix


class Run:
    """One scenario's finished run, for the framework's judge."""

    def __init__(self, name, spec, target, logs, evidence, dumps):
        self.name, self.spec, self.target, self.logs, self.evidence = name, spec, target, logs, evidence
        self.dumps = dumps  # the dump folder of each log's process ("dump" when they share one)
        self.problems = []
        self._texts = None

    @property
    def texts(self):
        """The logs' text; under recomp run, without the stamp recomp run puts before each line."""
        if self._texts is None:
            self._texts = [open(os.path.join(self.target, log), encoding="utf-8", errors="replace").read()
                           for log in self.logs]
            if self.spec.get("recomp_run"):
                self._texts = [RUN_STAMP.sub("", t) for t in self._texts]
        return self._texts

    def path(self, *parts):
        return os.path.join(self.target, *parts)

    def modules(self, dump="dump"):
        return dump_modules(self.path(dump))

    def families(self, family=strip_counter, dump="dump"):
        return dump_families(self.path(dump), family)


# the stamp recomp run writes before each line of run.log (RFC 3339, nanoseconds, UTC)
RUN_STAMP = re.compile(r"(?m)^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+Z ")


def find_reason(spec, texts):
    """The first of the spec's reason candidates found in the logs, and a problem when none is."""
    want = spec.get("reason")
    if not want:
        return None, None
    candidates = [want] if isinstance(want, str) else list(want)
    text = "".join(texts)
    found = [r for r in candidates if r in text]
    if found:
        return found[0], None
    if spec.get("reason_optional"):
        return None, None
    return None, (f"the framework's reason {candidates[0]!r} is not in the log" if len(candidates) == 1 else
                  f"none of the reasons {candidates!r} is in the log")


def machine_paths():
    """The generating machine's absolute paths a run's text names, each with what it becomes: the
    generators' folder (the programs' own lines) as the repository's root names it, and the Python
    installations the stack's frames are in (the virtual environment, its base Python) as `venv/`
    and `python/`, so that a library's line keeps the path it is recognised by
    (venv/lib/python3.11/site-packages/torch/nn/functional.py) without this machine's."""
    gen = os.path.join(os.path.abspath(_REPO), "testdata", "runs", "gen") + os.sep
    out = [(gen, "testdata/runs/gen/")]
    for prefix, name in ((sys.prefix, "venv/"), (sys.base_prefix, "python/")):
        for p in {prefix, os.path.realpath(prefix)}:
            if p and p != os.sep and (p + os.sep, name) not in out:
                out.append((p + os.sep, name))
    return out


def relative_paths(target, own=False, root=False):
    """Name the paths in the run's text files (logs, dumps, probe records) without the generating
    machine's (machine_paths): a path a reader of the run can open or recognise, and no machine's
    path in a committed file. Binary files (a persistent cache's entries) are left as written. With
    own (a run folder recomp run made, whose manifest names the folder: its work_dir, its dump), the
    folder is named as the run's working directory: '.', its files by their names. With root, the
    repository's root is named as "" instead (the torch runs made under recomp run: their manifest
    names the run folder, the program and the probe relative to the repository)."""
    paths = machine_paths()
    if root:
        paths.append((os.path.abspath(_REPO) + os.sep, ""))
    elif own:
        paths = [(os.path.join(target, ""), ""), (target, ".")] + paths
    for root, _, files in os.walk(target):
        if os.sep + "cache" in root[len(target):]:
            continue
        for fn in files:
            path = os.path.join(root, fn)
            try:
                with open(path, encoding="utf-8") as f:
                    text = f.read()
            except (UnicodeDecodeError, OSError):
                continue
            new = text
            for old, name in paths:
                new = new.replace(old, name)
            if new != text:
                with open(path, "w", encoding="utf-8") as f:
                    f.write(new)


def generate(fw, name, out, matrix):
    """Run one scenario into out/name and write its truth.json; False when it did not do what it is
    built for (the problems are printed)."""
    spec = fw.scenarios[name]
    target = os.path.join(out, name)
    shutil.rmtree(target, ignore_errors=True)
    os.makedirs(target)
    env = fw.setup(spec)
    processes = None
    if spec.get("ranks"):
        logs = [f"rank{i}.log" for i in range(spec["ranks"])]
        per = [with_dump(env, f"dump-rank{i}") for i in range(spec["ranks"])]
        evs = run_ranks(fw, name, target, logs, env, per, tagged=spec.get("tagged"))
        processes = [{"log": log, "dump": f"dump-rank{i}", "env": per[i]} for i, log in enumerate(logs)]
    else:
        runs = spec.get("runs", 1)
        logs = ["run.log"] if runs == 1 else [f"run{i}.log" for i in range(1, runs + 1)]
        if runs > 1 and spec.get("recomp_run"):  # each run its own run folder (_run_recomp)
            logs = [f"run{i}/run.log" for i in range(1, runs + 1)]
        per = [dict(spec.get("run_env", {}).get(i, {})) for i in range(1, runs + 1)]  # run index -> its own env
        if spec.get("dump_per_run"):
            per = [dict(with_dump(dict(env, **e), f"dump{i}"), **{k: v for k, v in e.items() if k != "XLA_FLAGS"})
                   for i, e in enumerate(per, 1)]
            processes = [{"log": log, "dump": f"dump{i}", "env": per[i - 1]} for i, log in enumerate(logs, 1)]
        evs = [run_program(fw, name, target, log, env, spec, i, per[i - 1]) for i, log in enumerate(logs, 1)]
    for entry in sorted(os.listdir(target)):
        if re.match(r"dump(\d+|-rank\d+)?$", entry):
            trim_dump(os.path.join(target, entry))

    run = Run(name, spec, target, logs, evs, [p["dump"] for p in processes] if processes else ["dump"] * len(logs))
    v = fw.judge(run)
    recompiled = v["recompiled"]
    truth = collections.OrderedDict()
    truth["matrix"] = matrix
    truth["scenario"] = name
    truth["description"] = v.get("description", spec["description"])
    truth["versions"] = versions(fw.dists, tuple(spec.get("requires", ())) + tuple(spec.get("uses", ())))
    truth["env"] = env
    truth["logs"] = logs
    truth["evidence"] = v["evidence"]
    truth["recompiled"] = recompiled
    truth["not_recompiled"] = v["not_recompiled"]
    truth["guard_fails"] = bool(recompiled)
    if v.get("causes") is not None:
        truth["causes"] = v["causes"]
    else:
        truth["cause"] = spec.get("cause")
    reason, problem = find_reason(spec, run.texts)
    if problem:
        run.problems.append(problem)
    if reason:
        truth["reason"] = reason
    if spec.get("terminal"):
        truth["terminal"] = {"rows": TERMINAL_SIZE[0], "columns": TERMINAL_SIZE[1]}
    if spec.get("recomp_run"):
        truth["recomp_run"] = spec["recomp_run"]["flags"]
    if spec.get("inference"):
        truth["inference"] = True  # the program's graph computes no gradient (scoring, evaluation)
    if processes:
        truth["processes"] = processes
    for k, val in (v.get("extra") or {}).items():
        truth[k] = val
    how = spec.get("recomp_run") or {}
    relative_paths(target, own=bool(how), root=how.get("paths") == "root")
    with open(os.path.join(target, "truth.json"), "w") as f:
        json.dump(truth, f, indent=2)
        f.write("\n")

    ev = truth["evidence"]
    print(f"{name}: {ev['compilations']} compilations, {ev['cache_hits']} cache hits{v.get('note', '')}; "
          f"recompiled {recompiled or '-'}; not_recompiled {truth['not_recompiled'] or '-'}")
    for p in run.problems:
        print(f"  WARNING {name}: {p}")
    return not run.problems


def main(fw):
    ap = argparse.ArgumentParser(description=sys.modules["__main__"].__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", help="folder that receives one folder per scenario (e.g. testdata/runs/MATRIX)")
    ap.add_argument("--list", action="store_true", help="list the scenarios, and why any is skipped here")
    ap.add_argument("--run", help=argparse.SUPPRESS)  # internal: run one program in this process
    ap.add_argument("names", nargs="*", help="scenarios to generate (default: all this installation can run)")
    args = ap.parse_args()
    if args.run:
        child(fw, args.run)
        return
    if args.list:
        for name, spec in fw.scenarios.items():
            why = fw.skip(spec)
            print(f"{name}{'  (skipped: ' + why + ')' if why else ''}")
        return
    if not args.out:
        ap.error("--out is required")
    for name in args.names:
        if name not in fw.scenarios:
            ap.error(f"unknown scenario {name!r}; known: {', '.join(fw.scenarios)}")
    missing = [d for d in fw.dists if installed(d) is None]
    if missing:
        sys.exit(f"{', '.join(missing)} not installed in this Python ({sys.executable}); see testdata/runs/gen/README.md")
    matrix = fw.matrix
    out = os.path.abspath(args.out)
    os.makedirs(out, exist_ok=True)
    print(f"{fw.title}: " + ", ".join(f"{d} {installed(d)}" for d in fw.dists) +
          f", Python {platform.python_version()}: matrix {matrix} -> {out}")
    ok = True
    start = time.time()
    for name in args.names or list(fw.scenarios):
        why = fw.skip(fw.scenarios[name])
        if why:
            print(f"{name}: skipped: {why}")
            continue
        ok = generate(fw, name, out, matrix) and ok
    print(f"done in {time.time() - start:.0f}s")
    if not ok:
        sys.exit("some scenarios did not do what they were built to do (WARNING lines above)")
