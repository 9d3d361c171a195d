package python

import (
	"encoding/json"
	"encoding/xml"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/recomp/recomp/internal/dist"
	"github.com/recomp/recomp/internal/jsonschema"
	"github.com/recomp/recomp/internal/skipped"
	"github.com/recomp/recomp/runner"
)

func TestMain(m *testing.M) { os.Exit(skipped.Main(m)) }

// suiteVenv is a fresh virtual environment with the wheel (this checkout's binary and Python
// package) installed by pip, which sees the packages of a pytest venv (the variable pytestVar:
// RECOMP_PYTEST from testdata/pytest/pytest.txt, RECOMP_PYTEST_3_11 from pytest-3.11.txt) and
// of the stack's venv (the variable live), of one Python version: its python and the folder the
// test works in. The test skips loudly without them.
func suiteVenv(t *testing.T, pytestVar, live string) (py, dir string) {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("the suites run on Linux")
	}
	pytest, stack := os.Getenv(pytestVar), os.Getenv(live)
	for v, p := range map[string]string{pytestVar: pytest, live: stack} {
		if p == "" {
			skipped.Skip(t, skipped.Live, v, v+" is not set: the pytest plugin's suites do not run (.ci/run sets it; "+pytestVar+" is what "+
				"testdata/runs/gen/venv.sh testdata/pytest/"+pytestFile[pytestVar]+" prints)")
		}
	}
	dir = t.TempDir()
	bin := filepath.Join(dir, "recomp")
	build := exec.Command("go", "build", "-o", bin, "../cmd/recomp")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	w := &dist.Wheel{Name: "recomp", Version: "0.0.0", Tags: []string{"any"}, Command: "recomp", Binary: bin,
		Time: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), Python: Files(runner.ProbeSource()), EntryPoints: EntryPoints}
	whl := filepath.Join(dir, w.FileName())
	f, err := os.Create(whl)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(f); err != nil {
		t.Fatal(err)
	}
	f.Close()
	ask := func(py, code string) string {
		out, err := exec.Command(py, "-c", code).Output()
		if err != nil {
			t.Fatalf("%s: %v", py, err)
		}
		return strings.TrimSpace(string(out))
	}
	const version = "import sys; print('%d.%d' % sys.version_info[:2])"
	if a, b := ask(pytest, version), ask(stack, version); a != b {
		t.Fatalf("%s's Python is %s, %s's is %s: one venv cannot see both", pytestVar, a, live, b)
	}
	venv := filepath.Join(dir, "venv")
	if out, err := exec.Command(ask(pytest, "import sys; print(sys._base_executable)"), "-m", "venv", venv).CombinedOutput(); err != nil {
		t.Fatalf("venv: %v\n%s", err, out)
	}
	py = filepath.Join(venv, "bin", "python")
	const purelib = "import sysconfig; print(sysconfig.get_path('purelib'))"
	pth := ask(pytest, purelib) + "\n" + ask(stack, purelib) + "\n"
	if err := os.WriteFile(filepath.Join(ask(py, purelib), "zz_recomp_suites.pth"), []byte(pth), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(py, "-m", "pip", "install", "--quiet", "--no-index", "--no-deps", "--disable-pip-version-check", whl).CombinedOutput(); err != nil {
		t.Fatalf("pip install: %v\n%s", err, out)
	}
	return py, dir
}

// pytestFile is the requirements file of each pytest venv's variable (testdata/pytest/).
var pytestFile = map[string]string{"RECOMP_PYTEST": "pytest.txt", "RECOMP_PYTEST_3_11": "pytest-3.11.txt"}

// outcomes runs pytest on a suite and returns its exit code, what it printed and each test's
// outcome from its JUnit XML: "passed", "skipped", "failed: MESSAGE" or "error: MESSAGE" (an error
// at set-up or teardown).
func outcomes(t *testing.T, py, dir, suite string, args ...string) (int, string, map[string]string) {
	t.Helper()
	return outcomesEnv(t, nil, py, dir, suite, args...)
}

// outcomesEnv is outcomes with env added to the environment pytest runs in.
func outcomesEnv(t *testing.T, env []string, py, dir, suite string, args ...string) (int, string, map[string]string) {
	t.Helper()
	junit := filepath.Join(dir, "junit.xml")
	os.Remove(junit)
	abs, _ := filepath.Abs(suite)
	cmd := exec.Command(py, append([]string{"-m", "pytest", "-p", "no:cacheprovider", "--junitxml", junit, abs}, args...)...)
	cmd.Dir, cmd.Env = dir, append(append(os.Environ(), "PYTHONDONTWRITEBYTECODE=1"), env...)
	out, _ := cmd.CombinedOutput()
	b, err := os.ReadFile(junit)
	if err != nil {
		t.Fatalf("no JUnit XML: %v\n%s", err, out)
	}
	var doc struct {
		Cases []struct {
			Name    string `xml:"name,attr"`
			Failure *struct {
				Message string `xml:"message,attr"`
			} `xml:"failure"`
			Error *struct {
				Message string `xml:"message,attr"`
			} `xml:"error"`
			Skipped *struct{} `xml:"skipped"`
		} `xml:"testsuite>testcase"`
	}
	if err := xml.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, c := range doc.Cases {
		switch {
		case c.Failure != nil:
			got[c.Name] = "failed: " + c.Failure.Message
		case c.Error != nil:
			got[c.Name] = "error: " + c.Error.Message
		case c.Skipped != nil:
			got[c.Name] = "skipped"
		default:
			got[c.Name] = "passed"
		}
	}
	return cmd.ProcessState.ExitCode(), string(out), got
}

// want checks each test's outcome: the prefix of what outcomes gives, and words its failure
// message must hold.
func want(t *testing.T, got map[string]string, expect map[string][]string) {
	t.Helper()
	for name, w := range expect {
		g := got[name]
		if !strings.HasPrefix(g, w[0]) {
			t.Errorf("%s: %q, want %s", name, g, w[0])
			continue
		}
		for _, word := range w[1:] {
			if strings.HasPrefix(word, "!") {
				if strings.Contains(g, word[1:]) {
					t.Errorf("%s: %q holds %q", name, g, word[1:])
				}
			} else if !strings.Contains(g, word) {
				t.Errorf("%s: %q lacks %q", name, g, word)
			}
		}
	}
	if len(got) != len(expect) {
		t.Errorf("%d tests, want %d: %v", len(got), len(expect), got)
	}
}

// jaxSuite is what each test of testdata/pytest/jax gives under pytest --recomp.
var jaxSuite = map[string][]string{
	"test_compile_once":     {"passed"},
	"test_growing_prefixes": {"failed", "recomp: jit(predict) compiled 4 times in this test: 3 after its first compilation", "cause: batch size at ", "test_model.py:32 (test_growing_prefixes); in the session so far the batch", "!batch_size", "fix: pad"},
	"test_batch[20]":        {"passed"},
	"test_batch[24]":        {"passed"},
	"test_batch[28]":        {"passed"},
	"test_opted_out":        {"passed"},
	"test_allowed":          {"passed"},
	"test_own_compilations": {"passed"},
	"test_skipped":          {"skipped"},
	"test_fails_on_its_own": {"failed", "fails on its own", "!recomp"},
	// compiled again by its own fixture's teardown: an error at teardown, with recomp's answer
	"test_recompiles_at_teardown": {"error", "failed on teardown", "recomp: jit(predict) compiled 2 times in this test: 1 after its first compilation",
		"cause: batch size", "in the session so far"},
}

// The JAX suite under pytest --recomp, alone and with -n 2 (and a persistent cache folder set):
// the test that compiles again in a loop fails with recomp's cause, at its line, and the fix;
// the others are as pytest alone has them; the session ends with the table and a run folder.
// JAX's cache-key lines are in run.log with the cache folder set, and nowhere without it.
func TestPytestPluginJAX(t *testing.T) {
	const noneFailed = "no test failed recomp's check"
	py, dir := suiteVenv(t, "RECOMP_PYTEST", "RECOMP_LIVE_JAX_0_12")
	for _, extra := range [][]string{nil, {"-n", "2"}} {
		run := filepath.Join(dir, "run"+strings.Join(extra, ""))
		var env []string
		if extra != nil {
			env = []string{"JAX_COMPILATION_CACHE_DIR=" + filepath.Join(dir, "jax-cache")}
		}
		code, out, got := outcomesEnv(t, env, py, dir, "../testdata/pytest/jax", append([]string{"--recomp", "--recomp-out", run}, extra...)...)
		if code != 1 {
			t.Errorf("%v: exit %d, want 1\n%s", extra, code, out)
		}
		want(t, got, jaxSuite)
		for _, w := range []string{"== recomp ==", "fixture weights (module scope", "test_growing_prefixes  (compiled again)", "recomp: run folder " + run} {
			if !strings.Contains(out, w) {
				t.Errorf("%v: the output lacks %q:\n%s", extra, w, out)
			}
		}
		if strings.Contains(out, noneFailed) {
			t.Errorf("%v: tests failed recomp's check, and the output says none did:\n%s", extra, out)
		}
		if extra != nil && !regexp.MustCompile(`the slowest, .*run\.log \[gw[01], pid \d+\]`).MatchString(out) {
			t.Errorf("%v: the session's line does not name the slowest worker by its id:\n%s", extra, out)
		}
		// The log records recomp's settings made are in run.log, not in a failing test's output.
		log, _ := os.ReadFile(filepath.Join(run, "run.log"))
		for _, w := range []string{"get_cache_key", "Compiling jit(predict)", "TRACING CACHE MISS"} {
			if strings.Contains(out, w) {
				t.Errorf("%v: the output holds %q", extra, w)
			}
			has, want := strings.Contains(string(log), w), w != "get_cache_key" || env != nil
			if has != want {
				t.Errorf("%v (cache folder set: %v): run.log holds %q: %v, want %v", extra, env != nil, w, has, want)
			}
		}
		var m struct {
			Running  bool `json:"running"`
			ExitCode int  `json:"exit_code"`
		}
		b, err := os.ReadFile(filepath.Join(run, "manifest.json"))
		if err != nil || json.Unmarshal(b, &m) != nil || m.Running || m.ExitCode != 1 {
			t.Errorf("%v: manifest %s (%v)", extra, b, err)
		}
		if _, err := os.Stat(filepath.Join(run, ".recomp-probe")); err == nil {
			t.Errorf("%v: the probe was left in the run folder", extra)
		}
		scan, err := exec.Command(filepath.Join(dir, "recomp"), "scan", "--format", "json", run).Output()
		if len(scan) == 0 {
			t.Fatalf("recomp scan %s: %v", run, err)
		}
		holdsSchema(t, "recomp scan "+run, scan)
		// XLA numbers each process's modules from 0: every worker dumps into a folder of its own,
		// and the dump holds a module for each compilation (one worker's never overwrites
		// another's).
		var rep struct {
			Summary struct {
				Compilations int `json:"compilations"`
			} `json:"summary"`
		}
		if err := json.Unmarshal(scan, &rep); err != nil {
			t.Fatal(err)
		}
		modules, folders := 0, map[string]bool{}
		filepath.WalkDir(filepath.Join(run, "dump"), func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".before_optimizations.txt") {
				modules++
				folders[filepath.Base(filepath.Dir(p))] = true
			}
			return nil
		})
		if modules != rep.Summary.Compilations || (extra != nil) != (len(folders) == 2 && !folders["dump"]) {
			t.Errorf("%v: %d modules dumped in %v for %d compilations", extra, modules, folders, rep.Summary.Compilations)
		}
	}
	// The C++ info lines recomp's settings would make (JAX's backend and dump set-up) go to the
	// process's own output, never to run.log: with -s, pytest --recomp prints none of them. The
	// tests that each compile once (other shapes of one program) pass, and the session's
	// headline, which counts the session as one run, says that none failed.
	info := regexp.MustCompile(`(?m)^I\d{4} \d\d:\d\d:\d\d\.\d+ .*\]`)
	code, out, _ := outcomes(t, py, dir, "../testdata/pytest/jax", "--recomp", "--recomp-out", filepath.Join(dir, "run-s"), "-s", "-k", "compile_once or batch")
	if info.MatchString(out) {
		t.Errorf("-s: the output holds C++ info lines: %q\n%s", info.FindString(out), out)
	}
	if code != 0 || !strings.Contains(out, "after warm-up") || !strings.Contains(out, "recomp: "+noneFailed) {
		t.Errorf("-s -k 'compile_once or batch': exit %d, want 0 and the headline with %q\n%s", code, noneFailed, out)
	}
	// A test that compiled and failed on its own was never judged: the line would claim too much.
	code, out, _ = outcomes(t, py, dir, "../testdata/pytest/jax", "--recomp", "--recomp-out", filepath.Join(dir, "run-f"), "-k", "batch or fails_on_its_own")
	if code != 1 || !strings.Contains(out, "after warm-up") || strings.Contains(out, noneFailed) {
		t.Errorf("-k 'batch or fails_on_its_own': exit %d, want 1 and the headline without %q\n%s", code, noneFailed, out)
	}
	// Without --recomp the plugin does nothing: pytest's own outcomes, no run folder.
	code, out, got := outcomes(t, py, dir, "../testdata/pytest/jax")
	plain := map[string][]string{}
	for k, v := range jaxSuite {
		plain[k] = []string{"passed"}
		if v[0] == "skipped" {
			plain[k] = v
		}
	}
	plain["test_fails_on_its_own"] = jaxSuite["test_fails_on_its_own"]
	plain["test_own_compilations"] = []string{"skipped"} // its fixture needs --recomp
	if code != 1 || strings.Contains(out, "== recomp ==") {
		t.Errorf("without --recomp: exit %d\n%s", code, out)
	}
	want(t, got, plain)
	if _, err := os.Stat(filepath.Join(dir, "recomp-runs")); err == nil {
		t.Error("pytest without --recomp made a run folder")
	}
}

// answersSuite is what each test of testdata/pytest/answers gives under pytest --recomp.
var answersSuite = map[string][]string{
	"test_compiles_once":    {"passed"},
	"test_compiles_nothing": {"passed"},
	// its warm-up's line (a new size for the session) is no cause of its own; its fix is its cause's
	"test_cleared_cache": {"failed", "recomp: jit(scale) compiled 2 times in this test: 1 after its first compilation",
		"cause: identical at ", "test_answers.py:30 (test_cleared_cache); in the session so far", "!cause: batch size",
		"fix: jit once, outside the loop", "jax.clear_caches()", "!fix: pad"},
	"test_marker_disabled": {"passed"},
	// a marker recomp cannot read fails the test that compiled, unjudged, never with the defaults
	"test_marker_misspelt": {"failed", "@pytest.mark.recomp(recompilation=2): no argument recompilation (the arguments: enabled, recompilations, warmup, budget_s)",
		"3 compilations were not judged", "!compiled 3 times"},
	"test_marker_bad_value":       {"failed", "recompilations must be a whole number, 0 or more, not 'two'", "were not judged"},
	"test_marker_numpy_allowance": {"passed"},
	// a lambda made anew in a loop: its program is the verdict's lambda at its line, not unblamed
	"test_lambda_in_loop": {"failed", "recomp: jit(<lambda>) (defined at test_answers.py:60) compiled 3 times in this test: 2 after its first compilation",
		"cause: function rebuilt at ", "test_answers.py:61 (test_lambda_in_loop)", "fix: jit once, outside the loop", "!names no program"},
	// recomp.gather() in the session's folder: the block's own recompilations, not the folder's
	"test_gather_after_others":     {"passed"},
	"test_gather_block_recompiles": {"passed"},
	// test_teardown.py: its module fixture's clean-up compiles again in this test's teardown
	"test_uses_cleanup":       {"passed"},
	"test_last_of_the_module": {"passed"},
}

// What a failing test's answer says under pytest --recomp, and how its failure counts: a test
// that fails recomp's check alone fails the run (exit 1, -x stops at it); a test's causes and fix
// are those of its compilations after its warm-up; a marker recomp cannot read is the test's
// error (it stays unjudged: its row does not say it compiled again, and the session says no
// all-clear); a module fixture's clean-up, which pytest runs in the teardown of the module's last
// test, is the fixture's; a lambda's program is the one the verdict names by where it is defined;
// recomp.gather() in a test judges its block, not what the session's folder held before it.
func TestPytestPluginAnswers(t *testing.T) {
	py, dir := suiteVenv(t, "RECOMP_PYTEST", "RECOMP_LIVE_JAX_0_12")
	code, out, got := outcomes(t, py, dir, "../testdata/pytest/answers", "--recomp", "--recomp-out", filepath.Join(dir, "run"))
	if code != 1 {
		t.Errorf("exit %d, want 1\n%s", code, out)
	}
	want(t, got, answersSuite)
	for _, w := range []string{"test_answers.py::test_marker_misspelt\n", "test_answers.py::test_marker_bad_value\n", "test_answers.py::test_cleared_cache  (compiled again)\n",
		"  fixture cleanup (module scope, ", "test_teardown.py)\n"} { // the fixture's file as pytest's rootdir names it
		if !strings.Contains(out, w) {
			t.Errorf("the table lacks %q:\n%s", w, out)
		}
	}
	if strings.Contains(out, "no test failed recomp's check") {
		t.Errorf("tests failed recomp's check or went unjudged, and the output says none did:\n%s", out)
	}
	if strings.Contains(out, "no test could be blamed") {
		t.Errorf("every program that compiled again was a test's, and the output says one was no test's:\n%s", out)
	}
	// A test that fails recomp's check alone fails the run: pytest's exit code, alone and with
	// -n 2 (pytest's session counted the failures before the plugin's hook failed the test: exit 0).
	for _, extra := range [][]string{nil, {"-n", "2"}} {
		args := append([]string{"--recomp", "--recomp-out", filepath.Join(dir, "run-k"+strings.Join(extra, "")), "-k", "cleared_cache or compiles_nothing"}, extra...)
		code, out, got := outcomes(t, py, dir, "../testdata/pytest/answers", args...)
		if code != 1 || !strings.HasPrefix(got["test_cleared_cache"], "failed") {
			t.Errorf("%v: exit %d, want 1 (test_cleared_cache: %.40q)\n%s", extra, code, got["test_cleared_cache"], out)
		}
	}
	// -x stops at the first test recomp's check fails.
	code, out, got = outcomes(t, py, dir, "../testdata/pytest/answers", "--recomp", "--recomp-out", filepath.Join(dir, "run-x"), "-x", "-k", "not marker")
	if _, ran := got["test_compiles_nothing"]; code != 1 || ran {
		t.Errorf("-x: exit %d, want 1, and the run stopped before test_compiles_nothing (%v)\n%s", code, got, out)
	}
}

// torchSuite is what each test of testdata/pytest/torch gives under pytest --recomp: the probe's
// record of each frame dynamo compiled blames the test, and dynamo's own log gives the cause.
var torchSuite = map[string][]string{
	"test_compile_once":     {"passed"},
	"test_growing_prefixes": {"failed", "test_model.py:17 (_predict) compiled 4 times in this test: 3 after its first compilation", "cause: batch size at ", "; in the session so far ", "!batch_size", "fix: pad", "mark_dynamic"},
	"test_batch[20]":        {"passed"},
	"test_batch[24]":        {"passed"},
	"test_batch[28]":        {"passed"},
	"test_skipped":          {"skipped"},
	"test_fails_on_its_own": {"failed", "fails on its own", "!recomp"},
	// compiled again by its own fixture's teardown: an error at teardown, with recomp's answer
	"test_recompiles_at_teardown": {"error", "failed on teardown", "_predict) compiled 2 times in this test: 1 after its first compilation",
		"cause: batch size", "in the session so far"},
	"test_train_then_eval": {"passed"}, // one compilation per mode
}

// The torch.compile suite under pytest --recomp, alone and with -n 2: as the JAX suite, with
// dynamo's log lines in run.log and kept off pytest's output, and no test left unblamed.
func TestPytestPluginTorch(t *testing.T) {
	py, dir := suiteVenv(t, "RECOMP_PYTEST_3_11", "RECOMP_LIVE_TORCH_2_9")
	for _, extra := range [][]string{nil, {"-n", "2"}} {
		run := filepath.Join(dir, "run"+strings.Join(extra, ""))
		code, out, got := outcomes(t, py, dir, "../testdata/pytest/torch", append([]string{"--recomp", "--recomp-out", run}, extra...)...)
		if code != 1 {
			t.Errorf("%v: exit %d, want 1\n%s", extra, code, out)
		}
		want(t, got, torchSuite)
		for _, w := range []string{"fixture weights (module scope", "test_growing_prefixes  (compiled again)", "recomp: run folder " + run} {
			if !strings.Contains(out, w) {
				t.Errorf("%v: the output lacks %q:\n%s", extra, w, out)
			}
		}
		for _, w := range []string{"no test could be blamed", "torchdynamo start tracing", "Logging error"} {
			if strings.Contains(out, w) {
				t.Errorf("%v: the output holds %q:\n%s", extra, w, out)
			}
		}
		if log, _ := os.ReadFile(filepath.Join(run, "run.log")); !strings.Contains(string(log), "Recompiling function _predict") {
			t.Errorf("%v: run.log lacks dynamo's recompile records", extra)
		}
	}
	// With the user's own TORCH_LOGS (kept), dynamo's log holds no compilation, but the trace
	// recomp turns on (TORCH_TRACE into the run folder) does: the test that compiled again fails
	// with its cause all the same.
	t.Setenv("TORCH_LOGS", "graph_breaks")
	code, out, got := outcomes(t, py, dir, "../testdata/pytest/torch", "--recomp", "--recomp-out", filepath.Join(dir, "run-own-logs"))
	silent := maps.Clone(torchSuite)
	silent["test_growing_prefixes"] = []string{"failed", "_predict) compiled 4 times in this test", "took 5 sizes, 2 to 8"}
	if code != 1 {
		t.Errorf("TORCH_LOGS=graph_breaks: exit %d\n%s", code, out)
	}
	want(t, got, silent)
	os.Unsetenv("TORCH_LOGS")
	code, out, got = outcomes(t, py, dir, "../testdata/pytest/torch")
	plain := map[string][]string{}
	for k, v := range torchSuite {
		plain[k] = []string{"passed"}
		if v[0] == "skipped" {
			plain[k] = v
		}
	}
	plain["test_fails_on_its_own"] = torchSuite["test_fails_on_its_own"]
	if code != 1 || strings.Contains(out, "== recomp ==") {
		t.Errorf("without --recomp: exit %d\n%s", code, out)
	}
	want(t, got, plain)
	if q, s := runSummary(t, py, dir, "../testdata/pytest/torch/test_model.py", "-q"), runSummary(t, py, dir, "../testdata/pytest/torch/test_model.py", "-s"); q != s || strings.Contains(q, " compilations 0") {
		t.Errorf("recomp run -- pytest -q: %s\npytest -s: %s", q, s)
	}
}

// A program the verdict says compiled again after warm-up that no test's records name (here a
// process the test started compiled it: its probe's records never reach the tests' process)
// fails the session: exit status 1 with recomp's cause and fix, while the test itself passes.
func TestPytestPluginUnblamed(t *testing.T) {
	py, dir := suiteVenv(t, "RECOMP_PYTEST", "RECOMP_LIVE_JAX_0_12")
	for _, extra := range [][]string{nil, {"-n", "2"}} {
		run := filepath.Join(dir, "run"+strings.Join(extra, ""))
		code, out, got := outcomes(t, py, dir, "../testdata/pytest/child", append([]string{"--recomp", "--recomp-out", run}, extra...)...)
		if code != 1 {
			t.Errorf("%v: exit %d, want 1\n%s", extra, code, out)
		}
		want(t, got, map[string][]string{"test_starts_a_process": {"passed"}})
		for _, w := range []string{"recomp: jit_child_step compiled 3 times after warm-up; no test could be blamed", "cause: batch size, `x` (dimension 0)", "fix: pad"} {
			if !strings.Contains(out, w) {
				t.Errorf("%v: the output lacks %q:\n%s", extra, w, out)
			}
		}
		var m struct {
			ExitCode int `json:"exit_code"`
		}
		if b, err := os.ReadFile(filepath.Join(run, "manifest.json")); err != nil || json.Unmarshal(b, &m) != nil || m.ExitCode != 1 {
			t.Errorf("%v: manifest %s (%v)", extra, b, err)
		}
	}
	if code, out, _ := outcomes(t, py, dir, "../testdata/pytest/child"); code != 0 {
		t.Errorf("without --recomp: exit %d\n%s", code, out)
	}
}

// A PyTorch/XLA suite whose compile log pytest's capture takes (C++ code writes it to the
// standard error) leaves a run folder whose dump holds the graphs and whose log holds no
// compilation: the session cannot be judged, and pytest --recomp fails it rather than pass.
func TestPytestPluginUnjudged(t *testing.T) {
	py, dir := suiteVenv(t, "RECOMP_PYTEST_3_11", "RECOMP_LIVE_TORCH_XLA_2_9")
	run := filepath.Join(dir, "run")
	code, out, got := outcomes(t, py, dir, "../testdata/pytest/torchxla", "--recomp", "--recomp-out", run)
	if code != 1 {
		t.Errorf("exit %d, want 1\n%s", code, out)
	}
	want(t, got, map[string][]string{"test_growing_batches": {"passed"}})
	if !strings.Contains(out, "HLO modules were dumped into the run folder, and its log holds no compilation: the session's compilations were not judged") {
		t.Errorf("the output lacks why the session failed:\n%s", out)
	}
	var m struct {
		ExitCode int `json:"exit_code"`
	}
	if b, err := os.ReadFile(filepath.Join(run, "manifest.json")); err != nil || json.Unmarshal(b, &m) != nil || m.ExitCode != 1 {
		t.Errorf("manifest %s (%v)", b, err)
	}
	if code, out, _ := outcomes(t, py, dir, "../testdata/pytest/torchxla"); code != 0 {
		t.Errorf("without --recomp: exit %d\n%s", code, out)
	}
}

// A TF suite whose XLA compilations only TF's C++ log lines record (pytest's capture takes
// them): the log holds tf.function's retracing warning and no compilation, the dump holds the
// modules. The session is not judged, and pytest --recomp fails it rather than pass it.
//
// Under -n 2 each worker dumps into a folder of its own (dump/pid-N): those modules count as
// dumped, and the session is not judged either.
func TestPytestPluginUnjudgedTF(t *testing.T) {
	py, dir := suiteVenv(t, "RECOMP_PYTEST", "RECOMP_LIVE_TF_2_21")
	for _, extra := range [][]string{nil, {"-n", "2"}} {
		run := filepath.Join(dir, "run"+strings.Join(extra, ""))
		code, out, got := outcomes(t, py, dir, "../testdata/pytest/tf", append([]string{"--recomp", "--recomp-out", run}, extra...)...)
		if code != 1 {
			t.Errorf("%v: exit %d, want 1\n%s", extra, code, out)
		}
		want(t, got, map[string][]string{"test_growing_batches": {"passed"}, "test_compile_once": {"passed"}})
		if !strings.Contains(out, "HLO modules were dumped into the run folder, and its log holds no compilation: the session's compilations were not judged") {
			t.Errorf("%v: the output lacks why the session failed:\n%s", extra, out)
		}
		var m struct {
			ExitCode int `json:"exit_code"`
		}
		if b, err := os.ReadFile(filepath.Join(run, "manifest.json")); err != nil || json.Unmarshal(b, &m) != nil || m.ExitCode != 1 {
			t.Errorf("%v: manifest %s (%v)", extra, b, err)
		}
		if extra != nil {
			if ms, _ := filepath.Glob(filepath.Join(run, "dump", "pid-*", "*.before_optimizations.txt")); len(ms) == 0 {
				t.Errorf("%v: no worker dumped into a folder of its own", extra)
			}
		}
	}
	if code, out, _ := outcomes(t, py, dir, "../testdata/pytest/tf"); code != 0 {
		t.Errorf("without --recomp: exit %d\n%s", code, out)
	}
}

// recomp.gather() in a script: its own run folder, closed (the manifest final) with recomp's
// answer in the same call of the binary, and raise_on_recompile; under recomp run it joins
// recomp run's folder and reads the answer so far.
func TestGather(t *testing.T) {
	py, dir := suiteVenv(t, "RECOMP_PYTEST", "RECOMP_LIVE_JAX_0_12")
	script, _ := filepath.Abs("../testdata/pytest/gather/gather_jax.py")
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	cmd := exec.Command(py, script, a, b)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, w := range []string{"recompiled: jit__lambda [gather_jax.py:12] 2 cause: batch size", "folder: " + a, "raised: version 2 recomp: compiled again: jit__lambda [gather_jax.py:20]"} {
		if !strings.Contains(string(out), w) {
			t.Errorf("the output lacks %q:\n%s", w, out)
		}
	}
	for _, f := range []string{a, b} { // the blocks ended without an exception: exit code 0
		var m struct {
			Running  bool `json:"running"`
			ExitCode int  `json:"exit_code"`
		}
		if b, err := os.ReadFile(filepath.Join(f, "manifest.json")); err != nil || json.Unmarshal(b, &m) != nil || m.Running || m.ExitCode != 0 {
			t.Errorf("%s: manifest %s (%v)", f, b, err)
		}
		if _, err := os.Stat(filepath.Join(f, ".recomp-probe")); err == nil {
			t.Errorf("%s: the probe was left in the run folder", f)
		}
	}
	run := filepath.Join(dir, "run")
	cmd = exec.Command(filepath.Join(dir, "recomp"), "run", "--out", run, "--", py, script, filepath.Join(dir, "c"), filepath.Join(dir, "d"))
	cmd.Dir = dir
	out, _ = cmd.CombinedOutput()
	if !strings.Contains(string(out), "folder: "+run) || !strings.Contains(string(out), "cause: batch size") {
		t.Errorf("under recomp run: gather did not join its folder:\n%s", out)
	}
	// gather waited for run.log to hold the block's records (a line of its own, through stderr,
	// which recomp run keeps off the terminal and writes into run.log)
	if log, err := os.ReadFile(filepath.Join(run, "run.log")); err != nil || strings.Contains(string(out), "recomp-probe: sync") ||
		!strings.Contains(string(log), "recomp-probe: sync") {
		t.Errorf("the sync line: on the terminal %v, in run.log %v (%v)", strings.Contains(string(out), "recomp-probe: sync"),
			strings.Contains(string(log), "recomp-probe: sync"), err)
	}
}

// recomp run -- pytest -q answers as pytest -s does: the stacks' log records reach run.log
// whatever pytest does with the output.
func TestRecompRunPytestQuiet(t *testing.T) {
	py, dir := suiteVenv(t, "RECOMP_PYTEST", "RECOMP_LIVE_JAX_0_12")
	suite := "../testdata/pytest/jax/test_model.py"
	q, s := runSummary(t, py, dir, suite, "-q"), runSummary(t, py, dir, suite, "-s")
	if q != s || strings.Contains(q, "compile_logging_off") || strings.HasPrefix(q, "requests 0") {
		t.Errorf("recomp run -- pytest -q: %s\npytest -s: %s", q, s)
	}
}

// runSummary runs a suite under recomp run -- pytest FLAG (it must exit 1) and gives its
// report's compile requests, compilations and finding kinds, in one line.
func runSummary(t *testing.T, py, dir, suite, flag string) string {
	t.Helper()
	abs, _ := filepath.Abs(suite)
	run := filepath.Join(dir, "run"+flag)
	cmd := exec.Command(filepath.Join(dir, "recomp"), "run", "--out", run, "--", py, "-m", "pytest", "-p", "no:cacheprovider", flag, abs)
	cmd.Dir, cmd.Env = dir, append(os.Environ(), "PYTHONDONTWRITEBYTECODE=1")
	if out, err := cmd.CombinedOutput(); cmd.ProcessState == nil || cmd.ProcessState.ExitCode() != 1 {
		t.Fatalf("recomp run -- pytest %s: %v\n%s", flag, err, out)
	}
	b, err := os.ReadFile(filepath.Join(run, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		Scan struct {
			Summary struct {
				Requests     int `json:"compile_requests"`
				Compilations int `json:"compilations"`
			} `json:"summary"`
			Findings []struct {
				Kind string `json:"kind"`
			} `json:"findings"`
		} `json:"scan"`
	}
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Scan json.RawMessage `json:"scan"`
	}
	json.Unmarshal(b, &doc)
	holdsSchema(t, run+"/report.json's scan", doc.Scan)
	var kinds []string
	for _, f := range r.Scan.Findings {
		kinds = append(kinds, f.Kind)
	}
	return strings.Join(append([]string{"requests", strconv.Itoa(r.Scan.Summary.Requests), "compilations", strconv.Itoa(r.Scan.Summary.Compilations)}, kinds...), " ")
}

// holdsSchema checks a scan report against docs/scan.schema.json.
func holdsSchema(t *testing.T, name string, doc []byte) {
	t.Helper()
	b, err := os.ReadFile("../docs/scan.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	s, err := jsonschema.Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	if errs := s.Validate(doc); len(errs) > 0 {
		t.Errorf("%s breaks docs/scan.schema.json: %s", name, strings.Join(errs, "; "))
	}
}

// The wheel's own copies: the binary found beside the package (not through sysconfig or PATH),
// the probe loaded from the package's compiled copy (the text the binary writes), and the entry
// point, the package and its modules loaded by Python's loader, not pytest's: pytest would
// rewrite them at every run that cannot cache the result (PYTHONDONTWRITEBYTECODE), and cache
// it in files pip uninstall leaves behind where it can; after pytest ran, pip uninstall leaves
// nothing.
func TestWheelCopies(t *testing.T) {
	py, dir := suiteVenv(t, "RECOMP_PYTEST", "RECOMP_LIVE_JAX_0_12")
	folder := filepath.Join(dir, "opened")
	if out, err := exec.Command(filepath.Join(dir, "recomp"), "session", "open", "--out", folder, "--", "x").CombinedOutput(); err != nil {
		t.Fatalf("session open: %v\n%s", err, out)
	}
	cmd := exec.Command(py, "-c", "import sys, recomp._session as s; print(s.binary()); print(s._probe(sys.argv[1]))",
		filepath.Join(folder, ".recomp-probe", "sitecustomize.py"))
	cmd.Dir, cmd.Env = dir, append(os.Environ(), "RECOMP_BIN=", "PATH=/nonexistent") // not this checkout's python/recomp
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	venv := filepath.Join(dir, "venv")
	if len(lines) != 2 || lines[0] != filepath.Join(venv, "bin", "recomp") ||
		!strings.HasPrefix(lines[1], venv) || !strings.HasSuffix(lines[1], filepath.FromSlash(ProbePath)) {
		t.Errorf("binary and probe: %q, want %s and the package's %s", lines, filepath.Join(venv, "bin", "recomp"), ProbePath)
	}
	test := filepath.Join(dir, "loaders", "test_loaders.py")
	if err := os.MkdirAll(filepath.Dir(test), 0o755); err != nil {
		t.Fatal(err)
	}
	src := "import os\nimport sys\n\nimport recomp\n\n\ndef test_loaders():\n" +
		"    with open('pythonpath.txt', 'w') as f:\n        f.write(os.environ['PYTHONPATH'].split(os.pathsep)[0] + ' ' + " +
		"str(os.path.isdir(os.path.join(os.path.dirname(os.environ['RECOMP_PROBE_OUT']), '.recomp-probe'))))\n" +
		"    names = ['_recomp_pytest.plugin', 'recomp', 'recomp._plugin', 'recomp._session', '_recomp_probe']\n" +
		"    with open('loaders.txt', 'w') as f:\n" +
		"        for n in names:\n            m = sys.modules[n]\n            f.write('%s %s %s\\n' % (n, type(m.__loader__).__name__, m.__file__))\n"
	if err := os.WriteFile(test, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, nobytecode := range []string{"1", ""} { // pytest cannot cache (every run rewrites), then can
		cmd = exec.Command(py, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--recomp", "--recomp-out", filepath.Join(dir, "loaders-run"+nobytecode), test)
		cmd.Dir, cmd.Env = filepath.Dir(test), append(os.Environ(), "PYTHONDONTWRITEBYTECODE="+nobytecode)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("pytest: %v\n%s", err, out)
		}
		got, err := os.ReadFile(filepath.Join(filepath.Dir(test), "loaders.txt"))
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(strings.TrimSpace(string(got)), "\n") {
			f := strings.Fields(l)
			if len(f) != 3 || f[1] != "SourceFileLoader" || !strings.HasPrefix(f[2], venv) {
				t.Errorf("%s: want Python's own loader and the installed package's file", l)
			}
		}
		// the session's children (xdist's workers) load the package's compiled probe too
		// and the run folder gets no probe of its own
		if pp, err := os.ReadFile(filepath.Join(filepath.Dir(test), "pythonpath.txt")); err != nil || string(pp) != filepath.Dir(lines[1])+" False" {
			t.Errorf("PYTHONPATH's first folder and whether the run folder has a probe: %q (%v), want %s False", pp, err, filepath.Dir(lines[1]))
		}
	}
	site := filepath.Dir(filepath.Dir(filepath.Dir(lines[1]))) // site-packages, above recomp/_probe/sitecustomize.py
	filepath.WalkDir(site, func(path string, d fs.DirEntry, err error) error {
		if err == nil && strings.Contains(d.Name(), "-pytest-") && strings.Contains(path, "recomp") {
			t.Errorf("pytest cached a rewritten module of recomp's: %s", path)
		}
		return nil
	})
	if out, err := exec.Command(py, "-m", "pip", "uninstall", "--yes", "--quiet", "recomp").CombinedOutput(); err != nil {
		t.Fatalf("pip uninstall: %v\n%s", err, out)
	}
	for _, left := range []string{filepath.Join(site, "recomp"), filepath.Join(site, "_recomp_pytest"), filepath.Join(venv, "bin", "recomp")} {
		if _, err := os.Stat(left); err == nil {
			t.Errorf("pip uninstall left %s", left)
		}
	}
}

// A session inside the process (recomp.gather() in a script, as the pytest plugin's) leaves the
// process's standard error as it was: none of the C++ info lines recomp's settings would make
// there (XLA's backend and dump set-up), which never reach run.log. JAX 0.4 writes
// TF_CPP_MIN_LOG_LEVEL=0 into the environment from JAX_LOGGING_LEVEL, later JAX sets absl's
// level: the probe sets either back. The package is this checkout's, the binary built here.
func TestGatherKeepsNativeLinesOut(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the live stacks run on Linux")
	}
	bin := filepath.Join(t.TempDir(), "recomp")
	build := exec.Command("go", "build", "-o", bin, "../cmd/recomp")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	pkg, _ := filepath.Abs(".")
	script, _ := filepath.Abs("../testdata/pytest/gather/gather_quiet.py")
	info := regexp.MustCompile(`(?m)^(?:I\d{4} \d\d:\d\d:\d\d\.\d+ |\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+: I )`)
	for _, v := range []string{"RECOMP_LIVE_JAX_0_4", "RECOMP_LIVE_JAX_0_12"} {
		t.Run(v, func(t *testing.T) {
			py := os.Getenv(v)
			if py == "" {
				skipped.Skip(t, skipped.Live, v, v+" is not set: recomp.gather() is not run on it (.ci/run sets it)")
			}
			cmd := exec.Command(py, script, filepath.Join(t.TempDir(), "run"))
			cmd.Env = append(os.Environ(), "PYTHONPATH="+pkg, "RECOMP_BIN="+bin, "JAX_PLATFORMS=cpu", "PYTHONDONTWRITEBYTECODE=1")
			var stderr strings.Builder
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil || !strings.HasPrefix(string(out), "compilations: ") || strings.HasPrefix(string(out), "compilations: 0") {
				t.Fatalf("%v: %s\n%s", err, out, stderr.String())
			}
			if info.MatchString(stderr.String()) {
				t.Errorf("the standard error holds C++ info lines: %q\n%s", info.FindString(stderr.String()), stderr.String())
			}
		})
	}
}
