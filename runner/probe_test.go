package runner

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/recomp/recomp/runfolder"
)

// The probe, in a real Python: it chains the user's own sitecustomize, waits for the program
// to import jax, and writes each compilation jax.monitoring reports with the program's own line
// (a stand-in jax package records the events the way JAX does).
func TestProbeInPython(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("no python3")
	}
	dir := t.TempDir()
	p, err := WriteProbe(dir)
	if err != nil {
		t.Fatal(err)
	}
	user := filepath.Join(dir, "user")
	lib := filepath.Join(dir, "lib", "site-packages", "jax")
	for path, text := range map[string]string{
		filepath.Join(user, "sitecustomize.py"): "print('the user sitecustomize ran')\n",
		filepath.Join(lib, "__init__.py"):       "from . import monitoring\ndef process_count():\n    return 4\ndef process_index():\n    return 2\n",
		filepath.Join(lib, "monitoring.py"): "_ls = []\n" +
			"def register_event_duration_secs_listener(cb):\n    _ls.append(cb)\n" +
			"def record(event, d, **kw):\n    for cb in _ls:\n        cb(event, d, **kw)\n" +
			"def jit_call(name):\n    record('/jax/core/compile/backend_compile_duration', 0.5, fun_name=name)\n",
		filepath.Join(dir, "train.py"): "import jax\n\ndef step():\n    jax.monitoring.jit_call('jit(step)')\n\nstep()\njax.monitoring.jit_call('jit(step)')  # line 7\nprint('done')\n",
	} {
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, env := Evidence(runfolder.FrameworkAuto, runfolder.DumpNone, "", "", p, []string{"PATH=" + os.Getenv("PATH"), "PYTHONPATH=" + user + ":" + filepath.Join(dir, "lib", "site-packages")})
	cmd := exec.Command(py, "train.py")
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "the user sitecustomize ran") || !strings.Contains(string(out), "done") {
		t.Fatalf("%v: %s", err, out)
	}
	recs, err := runfolder.ReadProbe(dir)
	if err != nil || len(recs) != 3 {
		t.Fatalf("records %+v, %v", recs, err)
	}
	// At its end the program's Python tells the framework versions it has (none here): recomp
	// never asks it again.
	if i, ok := runfolder.ProcessIndex(recs); !ok || i != 2 || recs[0].ProcessCount != 4 {
		t.Errorf("the process index of a job: %d %v (%+v)", i, ok, recs[0])
	}
	if v := runfolder.ProbeVersions(recs); v == nil || recs[2].Event != "versions" {
		t.Errorf("no versions record: %+v", recs[2])
	}
	for i, r := range recs[:2] {
		// the first frame of the program's own code: inside step, then the module's line 7
		line, fn := []int{4, 7}[i], []string{"step", "<module>"}[i]
		if r.Framework != "jax" || r.Event != "compile" || r.Name != "jit(step)" || r.Seconds != 0.5 ||
			filepath.Base(r.File) != "train.py" || r.Line != line || r.Function != fn {
			t.Errorf("record %d: %+v", i, r)
		}
	}
	// Switched off, it writes nothing and the program runs the same.
	os.Remove(p.Out)
	cmd = exec.Command(py, "train.py")
	cmd.Dir, cmd.Env = dir, append(env, "RECOMP_PROBE=0")
	if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "done") {
		t.Fatalf("%v: %s", err, out)
	}
	if recs, _ := runfolder.ReadProbe(dir); len(recs) != 0 {
		t.Errorf("RECOMP_PROBE=0 wrote %d records", len(recs))
	}
	if err := p.Remove(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p.Dir); err == nil {
		t.Error("the probe's folder is left")
	}
}

// The probe records what a Keras call on arrays was given: its samples and batch size (Keras's
// 32 when none), the part fit trains on under validation_split, nothing of a dataset's but, for
// a tf.data dataset, that it is one.
func TestProbeKerasSizes(t *testing.T) {
	py, dir, p := probeSetup(t)
	lib := filepath.Join(dir, "lib", "site-packages", "keras")
	for path, text := range map[string]string{
		filepath.Join(lib, "__init__.py"): "class Model:\n" +
			"    def fit(self, x=None, y=None, batch_size=None, epochs=1, validation_split=0.0, **kw): return 'fitted'\n" +
			"    def evaluate(self, x=None, y=None, batch_size=None, **kw): return 0.5\n" +
			"    def predict(self, x, batch_size=None, **kw): return x\n",
		// a package looked up before it is imported (TensorFlow looks keras up at its own import)
		filepath.Join(dir, "train.py"): "import importlib.util\nassert importlib.util.find_spec('keras')\nimport keras\n" +
			"class Arr:\n    def __init__(self, n): self.shape = (n, 8)\n" +
			"m = keras.Model()\n" +
			"assert m.fit(Arr(100), Arr(100), batch_size=16) == 'fitted'\n" +
			"m.fit(x=Arr(100), y=Arr(100), validation_split=0.2)\n" +
			"m.evaluate(Arr(30), Arr(30), 8)\n" +
			"m.predict(iter([1, 2]))\n" +
			"m.predict({'a': Arr(7), 'b': Arr(7)}, 4)\n" +
			"m.predict(Arr(5), batch_size='many')\n" +
			"class DS:\n    __module__ = 'tensorflow.python.data.ops.batch_op'\n    element_spec = ()\n" +
			"m.fit(DS(), epochs=2)\n",
	} {
		writeFile(t, path, text)
	}
	runUnderProbe(t, py, dir, p)
	recs, err := runfolder.ReadProbe(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	models := map[string]bool{}
	for _, r := range recs {
		if strings.HasSuffix(r.Event, "_begin") {
			got = append(got, fmt.Sprintf("%s %d/%d%s", r.Event, r.Samples, r.BatchSize, r.Data))
			models[r.Model] = true
		}
	}
	if len(models) != 1 || models[""] {
		t.Errorf("the calls of one model name the models %v", models)
	}
	if want := "fit_begin 100/16,fit_begin 80/32,evaluate_begin 30/8,predict_begin 0/0,predict_begin 7/4,predict_begin 0/0,fit_begin 0/0tf.data"; strings.Join(got, ",") != want {
		t.Errorf("records %s, want %s", strings.Join(got, ","), want)
	}
}

// At a JAX trace of a jitted function the probe records the static arguments of the call, read
// from the frame of JAX's trace entry: by position (named from the signature) and by keyword,
// a long repr cut short, a repr that raises as "?"; a trace with no such frame records none,
// and the program runs on.
func TestProbeJAXStatic(t *testing.T) {
	py, dir, p := probeSetup(t)
	lib := filepath.Join(dir, "lib", "site-packages", "jax")
	for path, text := range map[string]string{
		filepath.Join(lib, "__init__.py"): "from . import monitoring, tree_util\n",
		filepath.Join(lib, "tree_util.py"): "def tree_leaves(t):\n" +
			"    if isinstance(t, (tuple, list)):\n        return [x for v in t for x in tree_leaves(v)]\n" +
			"    if isinstance(t, dict):\n        return [x for k in sorted(t) for x in tree_leaves(t[k])]\n" +
			"    return [t]\n",
		filepath.Join(lib, "monitoring.py"): "import inspect\n_ls = []\n" +
			"def register_event_duration_secs_listener(cb):\n    _ls.append(cb)\n" +
			"def record(event, d, **kw):\n    for cb in _ls:\n        cb(event, d, **kw)\n" +
			"class JitInfo:\n    def __init__(self, fun, nums, names):\n" +
			"        self.static_argnums, self.static_argnames = nums, names\n" +
			"        self.fun_signature = inspect.signature(fun)\n" +
			"def _trace_for_jit(fun, ji, ctx_mesh, dbg, avals, args, kwargs):\n" +
			"    record('/jax/core/compile/jaxpr_trace_duration', 0.1, fun_name=fun.__name__)\n" +
			"def bare_trace():\n    record('/jax/core/compile/jaxpr_trace_duration', 0.1, fun_name='f')\n",
		filepath.Join(dir, "train.py"): "import jax\nfrom jax.monitoring import JitInfo, _trace_for_jit, bare_trace\n" +
			"def step(p, x, dropout, mode='train'):\n    pass\n" +
			"class Arr:\n    def __init__(self, *shape):\n        self.shape, self.dtype = shape, 'float32'\n" +
			"_trace_for_jit(step, JitInfo(step, (), ()), None, None, None, ({'w': Arr(16, 4), 'b': Arr(4)}, Arr(8, 16), 0.5), {})\n" +
			"class Bad:\n    def __repr__(self):\n        raise RuntimeError('no repr')\n" +
			"ji = JitInfo(step, (2, 3), ('dropout', 'mode'))\n" +
			"_trace_for_jit(step, ji, None, None, None, (1, 2, 0.1), {'mode': 'x' * 200})\n" +
			"_trace_for_jit(step, ji, None, None, None, (1, 2, Bad()), {})\n" +
			"_trace_for_jit(step, JitInfo(step, (), ()), None, None, None, (1, 2, 3), {})\n" +
			"bare_trace()\nprint('done')\n",
	} {
		writeFile(t, path, text)
	}
	if out := runUnderProbe(t, py, dir, p); !strings.Contains(out, "done") {
		t.Fatal(out)
	}
	recs, err := runfolder.ReadProbe(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range recs {
		if r.Event != "trace" {
			continue
		}
		var args []string
		for _, a := range r.Static {
			args = append(args, fmt.Sprintf("%s=%.12s(%d)", a.Name, a.Value, len([]rune(a.Value))))
		}
		got = append(got, r.Name+":"+strings.Join(args, ",")+strings.Join(r.Shapes, " "))
	}
	// the arrays' dtypes and shapes, in the order of the call's leaves; none where JAX's frame is not there
	want := "step:float32[4] float32[16,4] float32[8,16] | step:dropout=0.1(3),mode='xxxxxxxxxxx(80) | step:dropout=?(1) | step: | f:"
	if strings.Join(got, " | ") != want {
		t.Errorf("records\n%s\nwant\n%s", strings.Join(got, " | "), want)
	}
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	os.MkdirAll(filepath.Dir(path), 0o755)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// runUnderProbe runs dir/train.py under the probe p, with the packages of dir/lib/site-packages,
// and returns what it printed.
func runUnderProbe(t *testing.T, py, dir string, p *Probe) string {
	t.Helper()
	_, env := Evidence(runfolder.FrameworkAuto, runfolder.DumpNone, "", "", p, []string{"PATH=" + os.Getenv("PATH"), "PYTHONPATH=" + filepath.Join(dir, "lib", "site-packages")})
	cmd := exec.Command(py, "train.py")
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	return string(out)
}

// probeSetup is a python3 (the test skips without one), a folder, and the probe written there.
func probeSetup(t *testing.T) (py, dir string, p *Probe) {
	t.Helper()
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("no python3")
	}
	dir = t.TempDir()
	if p, err = WriteProbe(dir); err != nil {
		t.Fatal(err)
	}
	return py, dir, p
}

// The probe is assembled from the units' hooks: TF's (frameworks/tf/probe.py) records each
// trace of a tf.function with the program's line, in a stand-in tensorflow package that traces
// the way TF does.
func TestProbeTFHook(t *testing.T) {
	py, dir, p := probeSetup(t)
	lib := filepath.Join(dir, "lib", "site-packages", "tensorflow")
	tc := filepath.Join(lib, "python", "eager", "polymorphic_function")
	for path, text := range map[string]string{
		filepath.Join(lib, "__init__.py"):                    "",
		filepath.Join(lib, "python", "__init__.py"):          "",
		filepath.Join(lib, "python", "eager", "__init__.py"): "",
		filepath.Join(tc, "__init__.py"):                     "",
		filepath.Join(tc, "tracing_compilation.py"): "def _create_concrete_function(function_type, type_context, func_graph, tracing_options):\n" +
			"    return 'concrete'\n" +
			"def trace(name):\n    class O: pass\n    o = O(); o.name = name\n    return _create_concrete_function(None, None, None, o)\n",
		filepath.Join(dir, "train.py"): "import tensorflow\n" +
			"from tensorflow.python.eager.polymorphic_function import tracing_compilation as tc\n" +
			"assert tc.trace('train_step') == 'concrete'  # line 3\n",
	} {
		writeFile(t, path, text)
	}
	runUnderProbe(t, py, dir, p)
	recs, err := runfolder.ReadProbe(dir)
	if err != nil || len(recs) != 2 {
		t.Fatalf("records %+v, %v", recs, err)
	}
	if r := recs[0]; r.Framework != "tf" || r.Event != "trace" || r.Name != "train_step" || filepath.Base(r.File) != "train.py" || r.Line != 3 {
		t.Errorf("record %+v", r)
	}
}

// The probe writes each record of a stack's logger that would not reach the command's own
// standard error (output captured, as pytest does) to it all the same, and never twice.
func TestProbeStackLogs(t *testing.T) {
	py, dir, p := probeSetup(t)
	writeFile(t, filepath.Join(dir, "train.py"), "import logging, os, sys, tempfile\n"+
		"lg = logging.getLogger('jax._src.pxla')\n"+
		"lg.warning('A: no handler')\n"+
		"h = logging.StreamHandler(sys.stderr)\n"+
		"logging.getLogger('jax').addHandler(h)\n"+
		"lg.warning('B: to stderr')\n"+
		"sys.stderr.flush()\n"+
		"cap = tempfile.TemporaryFile()\n"+
		"saved = os.dup(2)\n"+
		"os.dup2(cap.fileno(), 2)\n"+
		"lg.warning('C: captured')\n"+
		"logging.getLogger('mine').warning('D: not a stack')\n"+
		"sys.stderr.flush()\n"+
		"os.dup2(saved, 2)\n"+
		"print('done', flush=True)\n")
	out := runUnderProbe(t, py, dir, p)
	for msg, want := range map[string]int{"A: no handler": 1, "B: to stderr": 1, ":jax._src.pxla:11: C: captured": 1, "D: not a stack": 0} {
		if got := strings.Count(out, msg); got != want {
			t.Errorf("%q %d times, want %d:\n%s", msg, got, want, out)
		}
	}
	if !strings.Contains(out, "WARNING:") || !strings.Contains(out, "done") {
		t.Errorf("output\n%s", out)
	}
}

// A folder holding this binary's probe (the wheel's compiled copy) is used in place of one
// written into the run folder, and left when the session ends; one of another text is not used.
func TestSharedProbe(t *testing.T) {
	dir, from := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(from, "sitecustomize.py"), ProbeSource(), 0o644); err != nil {
		t.Fatal(err)
	}
	p := SharedProbe(dir, from)
	if p == nil || p.Dir != from || p.Out != filepath.Join(dir, runfolder.ProbeName) {
		t.Fatalf("SharedProbe: %+v, want the folder %s and the run folder's %s", p, from, runfolder.ProbeName)
	}
	if err := p.Remove(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(from, "sitecustomize.py")); err != nil {
		t.Errorf("Remove took the shared folder's probe: %v", err)
	}
	other := t.TempDir()
	if err := os.WriteFile(filepath.Join(other, "sitecustomize.py"), append(ProbeSource(), '#'), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{other, filepath.Join(dir, "none")} {
		if p := SharedProbe(dir, f); p != nil {
			t.Errorf("SharedProbe(%s): %+v, want none", f, p)
		}
	}

	// Prepare: the run folder gets no probe of its own; PYTHONPATH starts with the shared folder.
	ses, err := Prepare(SessionOptions{Out: filepath.Join(dir, "run"), Command: []string{"pytest"}, Probe: true, ProbeFrom: from,
		Environ: []string{"PATH=/bin"}, Start: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	if ses.ProbeDir() != from {
		t.Errorf("ProbeDir %q, want %q", ses.ProbeDir(), from)
	}
	if _, err := os.Stat(filepath.Join(dir, "run", runfolder.ProbeDir)); err == nil {
		t.Error("the run folder got a probe of its own")
	}
	found := false
	for _, kv := range ses.Env {
		if v, ok := strings.CutPrefix(kv, "PYTHONPATH="); ok {
			found = strings.HasPrefix(v, from)
		}
	}
	if !found {
		t.Errorf("PYTHONPATH does not start with %s: %q", from, ses.Env)
	}
}

// XLA numbers each process's modules from 0: the first process the probe loads in dumps into the
// run folder's dump/, each other one (a child, a grandchild, a program run after it) into
// dump/pid-<its id>, so that none overwrites another's files. A user's own dump folder stays.
func TestProbeOwnDump(t *testing.T) {
	py, dir, p := probeSetup(t)
	dump := filepath.Join(dir, runfolder.DumpName)
	writeFile(t, filepath.Join(dir, "train.py"), "import os, subprocess, sys\n"+
		"print(os.getpid(), os.environ['XLA_FLAGS'], flush=True)\n"+
		"if len(sys.argv) < 3:\n"+
		"    subprocess.run([sys.executable, 'train.py', str(len(sys.argv))] + sys.argv[1:], check=True)\n")
	run := func(env []string) []string {
		t.Helper()
		cmd := exec.Command(py, "train.py")
		cmd.Dir, cmd.Env = dir, env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		return strings.Split(strings.TrimSpace(string(out)), "\n")
	}
	_, env := Evidence(runfolder.FrameworkAuto, runfolder.DumpBefore, dump, "", p, []string{"PATH=" + os.Getenv("PATH")})
	var got []string
	for _, line := range append(run(env), run(env)...) { // two programs one after the other
		pid, flags, _ := strings.Cut(line, " ")
		flags = strings.ReplaceAll(flags, "pid-"+pid, "pid-SELF")
		got = append(got, strings.ReplaceAll(flags, dir, "RUN"))
	}
	want := []string{
		"--xla_dump_to=RUN/dump --xla_dump_hlo_as_text",
		"--xla_dump_to=RUN/dump/pid-SELF --xla_dump_hlo_as_text",
		"--xla_dump_to=RUN/dump/pid-SELF --xla_dump_hlo_as_text",
		"--xla_dump_to=RUN/dump/pid-SELF --xla_dump_hlo_as_text",
		"--xla_dump_to=RUN/dump/pid-SELF --xla_dump_hlo_as_text",
		"--xla_dump_to=RUN/dump/pid-SELF --xla_dump_hlo_as_text",
	}
	if !slices.Equal(got, want) {
		t.Errorf("XLA_FLAGS of each process\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// The user's own folder, and one whose name only begins as the run folder's does.
	for _, own := range []string{filepath.Join(dir, "mine"), dump + "2"} {
		_, env := Evidence(runfolder.FrameworkAuto, runfolder.DumpBefore, dump, "", p,
			[]string{"PATH=" + os.Getenv("PATH"), "XLA_FLAGS=--xla_dump_to=" + own})
		for _, line := range run(env) {
			if _, flags, _ := strings.Cut(line, " "); flags != "--xla_dump_to="+own {
				t.Errorf("a dump folder of the user's own %s became %s", own, flags)
			}
		}
	}
}

// With RECOMP_PROBE_LOG (a pytest --recomp session's run.log, which every process of the session
// writes), each line of a stack's record is stamped as run.log's lines are and tagged with its
// process, so that two xdist workers' records are read apart.
func TestProbeStackLogFile(t *testing.T) {
	py, dir, p := probeSetup(t)
	writeFile(t, filepath.Join(dir, "train.py"), "import logging, os\n"+
		"logging.getLogger('jax._src.pxla').warning('one\\ntwo')\n"+
		"print(os.getpid(), flush=True)\n")
	logPath := filepath.Join(dir, "session.log")
	_, env := Evidence(runfolder.FrameworkAuto, runfolder.DumpNone, "", "", p, []string{"PATH=" + os.Getenv("PATH")})
	env = append(env, runfolder.ProbeLogVar+"="+logPath) // as the pytest plugin's session sets it
	cmd := exec.Command(py, "train.py")
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	pid := strings.TrimSpace(string(out))
	b, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	line := regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z \[pid ` + pid + `\] (.*)$`)
	var got []string
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		m := line.FindStringSubmatch(l)
		if m == nil {
			t.Fatalf("a line not stamped and tagged with pid %s: %q", pid, l)
		}
		got = append(got, m[1])
	}
	if len(got) != 2 || !strings.HasSuffix(got[0], ": one") || got[1] != "two" {
		t.Errorf("lines %q", got)
	}
}
