package gate

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recomp/recomp/ledger"
)

// scanReport reads a TF-IPU style log into a report, the way recomp guard does.
func scanReport(t *testing.T, opt ledger.Options, log string) *ledger.Report {
	t.Helper()
	return readLogs(t, opt, "run.log", log)
}

// readLogs reads logs given as name, text, name, text...: each log is its own process.
func readLogs(t *testing.T, opt ledger.Options, nameText ...string) *ledger.Report {
	t.Helper()
	return readScan(t, ledger.ReadOptions{Ledger: opt}, nameText...).Ledger
}

// readScan reads logs given as name, text, name, text... into a scan.
func readScan(t *testing.T, opt ledger.ReadOptions, nameText ...string) *ledger.Scan {
	t.Helper()
	var logs []ledger.Log
	for i := 0; i+1 < len(nameText); i += 2 {
		logs = append(logs, ledger.Log{Path: nameText[i], Reader: strings.NewReader(nameText[i+1])})
	}
	s, err := ledger.ReadLogs(logs, opt)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func compile(module, hash string) string {
	return fmt.Sprintf("Begin XLA compilation: %s  (Hash: %s) for ordinal  0\n"+
		"Begin compiling Poplar engine %s\nStarting phase: graphConstruction\nEnd compiling Poplar engine.\n"+
		"Ending phase: Loading executable (duration 600 ms; diff RSS: 0 MB)\n", module, hash, module)
}

func jaxStep(rows string) string {
	return "Compiling jit(step) with global shapes and types (ShapedArray(float32[" + rows + ",8]),). Argument mapping: (UnspecifiedValue,).\n" +
		"Finished XLA compilation of jit(step) in 0.25 sec\n"
}

const load = "Ending phase: Loading executable (duration 600 ms; diff RSS: 0 MB)\n"

func TestEvaluate(t *testing.T) {
	twice := compile("train.1", "0xa") + compile("train.2", "0xb")
	switching := compile("train.1", "0xa") + compile("eval.1", "0xc") + load + load + load
	for _, c := range []struct {
		name                 string
		log                  string
		inputs               []Input
		opt                  Options
		passed, inconclusive bool
		failures             int
		reason               string
	}{
		{"no evidence is not a pass", "step 1\nstep 2\n", nil, Options{}, false, true, 0, "no compile evidence"},
		{"no evidence, allowed", "step 1\n", nil, Options{AllowNoEvidence: true}, true, false, 0, "0 compilation(s)"},
		{"one compilation per family", compile("train.1", "0xa"), nil, Options{}, true, false, 0, "0 compilation(s) after warm-up, 0 allowed"},
		{"a family compiled again", twice, nil, Options{}, false, false, 1, "1 compilation(s) after warm-up, 0 allowed"},
		{"tolerated", twice, nil, Options{MaxRecompiles: 1}, true, false, 1, "1 compilation(s) after warm-up, 1 allowed"},
		{"an unreadable input spoils a pass", compile("train.1", "0xa"), []Input{{Path: "b.log.gz", ReadError: "unexpected EOF"}}, Options{}, false, true, 0, "b.log.gz"},
		// What an input leaves unread can add compilations, never undo one counted: FAIL.
		{"an unreadable input does not undo a counted failure", twice, []Input{{Path: "b.log.gz", ReadError: "unexpected EOF"}}, Options{}, false, false, 1,
			"1 compilation(s) after warm-up, 0 allowed (at least: b.log.gz: unexpected EOF)"},
		{"a binary input's records prove nothing", twice, []Input{{Path: "core", Binary: "an ELF executable"}}, Options{}, false, true, 1, "inconclusive: core: binary data"},
		{"loads are not judged by default", switching, nil, Options{}, true, false, 0, "0 compilation(s)"},
		{"loads judged", switching, nil, Options{Loads: true}, false, false, 3, "executable load(s) after warm-up"},
		{"TF's once-per-process line is no evidence", "I0000 00:00:1.000000 1 device_compiler.h:186] Compiled cluster using XLA!  This line is logged at most once for the lifetime of the process.\n",
			nil, Options{}, false, true, 0, "once per process"},
		{"TF's once-per-process line beside JAX's records", jaxStep("32") + "I0000 00:00:1.000000 1 device_compiler.h:186] Compiled cluster using XLA!  This line is logged at most once for the lifetime of the process.\n",
			nil, Options{}, false, true, 0, "TF compiled (its once-per-process"},
		{"TF's line beside the TF-IPU backend's records (tf2-ipu-keras-resnet50-sdk30)", "I0000 00:00:1.000000 1 device_compiler.h:186] Compiled cluster using XLA!  This line is logged at most once for the lifetime of the process.\n" +
			compile("cluster_1", "0xa"), nil, Options{}, true, false, 0, "0 compilation(s)"},
		{"TF's line beside TF's own records", "I0000 00:00:1.000000 1 device_compiler.h:186] Compiled cluster using XLA!  This line is logged at most once for the lifetime of the process.\n" +
			"I0000 00:00:1.000000 1 device_compiler.cc:1] Instantly compiling for signature: cluster_1\n", nil, Options{}, true, false, 0, "0 compilation(s)"},
		{"a log cut inside a compilation", twice + "Begin XLA compilation: train.3  (Hash: 0xc) for ordinal  0\nBegin compiling Poplar engine train.3\n",
			nil, Options{}, false, false, 2, "run.log:11: the log ends inside the compilation of train.3"}, // FAIL: two counted, more maybe
		{"a cut log, allowed", compile("train.1", "0xa") + "Begin XLA compilation: eval.1  (Hash: 0xc) for ordinal  0\nBegin compiling Poplar engine eval.1\n",
			nil, Options{AllowNoEvidence: true}, true, false, 0, "0 compilation(s)"},
		{"a log cut inside the line that begins a compilation", twice + "Begin XLA compilation: train.3  (Ha", nil, Options{}, false, false, 1,
			"run.log:11: the log ends inside a line that begins a compilation"},
		{"a JAX log cut inside its Compiling line", jaxStep("32") + "step 1\nCompiling jit(step) with global shapes and ty", nil, Options{}, false, true, 0,
			"run.log:4: the log ends inside a line that begins a compilation"},
		{"a JAX log cut at the start of its Compiling line", jaxStep("32") + "step 1\nCompil", nil, Options{}, false, true, 0, "run.log:4: the log ends inside"},
		{"a log cut inside a line of the program's own", jaxStep("32") + "step 1 loss 0.2", nil, Options{}, true, false, 0, "0 compilation(s)"},
		// JAX 0.2 logged no end of a compilation (jax#1668's mnist_vae.py: run_epoch compiled
		// twice): its last request is no open compilation, and the log fails.
		{"a JAX 0.2 log, no end records", "WARNING:absl:Compiling run_epoch for args (ShapedArray(uint32[2]), ShapedArray(float32[784,512])).\nepoch 0\n" +
			"WARNING:absl:Compiling run_epoch for args (ShapedArray(uint32[2]), ShapedArray(float32[])).\nepoch 1\n", nil, Options{}, false, false, 1,
			"1 compilation(s) after warm-up"},
		// a release that printed the same request and its end: the last one without it is open
		{"a JAX 0.3 log with end records, cut", "Compiling run_epoch (1) for args (ShapedArray(float32[8]),).\nFinished XLA compilation of run_epoch in 0.2 sec\n" +
			"Compiling eval (2) for args (ShapedArray(float32[8]),).\n", nil, Options{}, false, true, 0, "the log ends inside the compilation of jit_eval"},
		{"a binary input", compile("train.1", "0xa"), []Input{{Path: "core", Binary: "an ELF executable"}}, Options{}, false, true, 0, "core: binary data"},
	} {
		t.Run(c.name, func(t *testing.T) {
			g := Evaluate(scanReport(t, ledger.Options{}, c.log), c.inputs, c.opt)
			if g.Passed != c.passed || g.Inconclusive != c.inconclusive || len(g.Failures) != c.failures ||
				!strings.Contains(g.Reason+"\n"+strings.Join(g.Problems, "\n"), c.reason) {
				t.Errorf("passed %v inconclusive %v failures %d reason %q; want %v %v %d %q",
					g.Passed, g.Inconclusive, len(g.Failures), g.Reason, c.passed, c.inconclusive, c.failures, c.reason)
			}
			if g.Passed && g.Inconclusive {
				t.Error("a gate cannot both pass and be inconclusive")
			}
		})
	}
	g := Evaluate(scanReport(t, ledger.Options{}, twice), nil, Options{})
	if f := g.Failures[0]; f.Kind != FailCompilation || f.Family != "train" || f.Hash != "0xb" || f.File != "run.log" || f.Line == 0 {
		t.Errorf("failure %+v", f)
	}
}

// Every process must have evidence of its own: a rank whose compile logging was off does not
// pass with the others.
func TestEvidencePerProcess(t *testing.T) {
	rep := readLogs(t, ledger.Options{}, "rank0.log", compile("train.1", "0xa"), "rank1.log", "step 1\n")
	g := Evaluate(rep, nil, Options{})
	if !g.Inconclusive || !strings.Contains(g.Reason, "rank1.log: no compile evidence of its own") {
		t.Errorf("a rank without evidence: %+v", g)
	}
	if g := Evaluate(rep, nil, Options{AllowNoEvidence: true}); !g.Passed {
		t.Errorf("--allow-no-evidence: %+v", g)
	}
	opt := ledger.Options{Warmup: 3}
	rep = scanReport(t, opt, compile("train.1", "0xa")+compile("eval.1", "0xb"))
	if g := Evaluate(rep, nil, Options{}); !g.Inconclusive || !strings.Contains(g.Reason, "the warm-up never ended") {
		t.Errorf("--warmup 3 of 2 compilations: %+v", g)
	}
	opt = ledger.Options{Warmup: 2}
	rep = scanReport(t, opt, compile("train.1", "0xa")+compile("eval.1", "0xb"))
	if g := Evaluate(rep, nil, Options{}); !g.Passed {
		t.Errorf("--warmup 2 of 2 compilations: %+v", g)
	}
}

func TestBaseline(t *testing.T) {
	dir := t.TempDir()
	rep := scanReport(t, ledger.Options{}, compile("train.1", "0xb")+compile("train.2", "0xa")+compile("eval.1", "0xc"))
	b := NewBaseline(rep)
	if got := fmt.Sprint(b.Families); got != "map[eval:[0xc] train:[0xa 0xb]]" {
		t.Errorf("families %s", got)
	}
	path := filepath.Join(dir, "baseline.json")
	if err := WriteBaseline(path, b, nil); err != nil {
		t.Fatal(err)
	}
	back, err := ReadBaseline(path)
	if err != nil || fmt.Sprint(back.Families) != fmt.Sprint(b.Families) {
		t.Fatalf("read back %+v, %v", back, err)
	}
	// The baseline lets known hashes through and fails a new one.
	known := scanReport(t, ledger.Options{Baseline: back.Families}, compile("train.1", "0xa")+compile("train.2", "0xb"))
	if g := Evaluate(known, nil, Options{}); !g.Passed {
		t.Errorf("known hashes: %s", g.Reason)
	}
	unknown := scanReport(t, ledger.Options{Baseline: back.Families}, compile("train.1", "0xa")+compile("train.2", "0xd"))
	if g := Evaluate(unknown, nil, Options{}); g.Passed || g.Failures[0].Hash != "0xd" {
		t.Errorf("a new hash: %+v", g)
	}

	for name, content := range map[string]string{
		"garbage.json": "{not json", "future.json": `{"version": 2, "families": {}}`,
	} {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(content), 0o644)
		if _, err := ReadBaseline(p); err == nil || !strings.Contains(err.Error(), p) {
			t.Errorf("%s: error %v, want one naming the file", name, err)
		}
	}
}

// WriteBaseline never writes over one of its inputs, however it is spelled, and a failed write
// leaves the old file whole.
func TestWriteBaselineSafety(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "run.log")
	os.WriteFile(in, []byte("the input\n"), 0o644)
	os.Symlink(in, filepath.Join(dir, "link.log"))
	os.Link(in, filepath.Join(dir, "hard.log"))
	b := &Baseline{Version: 1, Families: map[string][]string{}}
	opened := func(p string) []Opened {
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		return []Opened{{Name: p, Info: st}}
	}
	for _, target := range []string{in, filepath.Join(dir, "link.log"), filepath.Join(dir, ".", "run.log"), filepath.Join(dir, "hard.log")} {
		if err := WriteBaseline(target, b, opened(in)); !errors.Is(err, ErrWouldOverwriteInput) {
			t.Errorf("%s: %v", target, err)
		}
	}
	if err := WriteBaseline(filepath.Join(dir, "x.json"), b, opened(filepath.Join(dir, "link.log"))); err != nil {
		t.Errorf("a new file beside the input: %v", err)
	}
	if data, _ := os.ReadFile(in); string(data) != "the input\n" {
		t.Fatalf("the input changed: %q", data)
	}
	if err := WriteBaseline(filepath.Join(dir, "missing", "b.json"), b, nil); err == nil {
		t.Error("writing into a missing folder succeeded")
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("temporary file left behind: %s", e.Name())
		}
	}
}

// OpenedInputs names the files behind the inputs: a run folder's run.log, standard input's
// file, and WriteBaseline refuses them.
func TestOpenedInputs(t *testing.T) {
	dir := t.TempDir()
	run := filepath.Join(dir, "run")
	os.Mkdir(run, 0o755)
	log := filepath.Join(run, "run.log")
	os.WriteFile(log, []byte("x\n"), 0o644)
	plain := filepath.Join(dir, "plain.log")
	os.WriteFile(plain, []byte("y\n"), 0o644)
	stdin, err := os.Open(plain)
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	got := OpenedInputs([]string{run, "-", filepath.Join(dir, "missing.log")}, stdin)
	if len(got) != 3 || got[0].Name != log || got[0].Info == nil || got[1].Name != "standard input" || got[1].Info == nil ||
		got[2].Info != nil {
		t.Fatalf("opened %+v", got)
	}
	b := &Baseline{Version: 1, Families: map[string][]string{}}
	for _, target := range []string{log, plain} {
		if err := WriteBaseline(target, b, got); !errors.Is(err, ErrWouldOverwriteInput) {
			t.Errorf("%s: %v", target, err)
		}
	}
}

// EvaluateScan judges a scan with its inputs: one that broke off or is binary spoils a pass.
func TestEvaluateScan(t *testing.T) {
	s := &ledger.Scan{Ledger: scanReport(t, ledger.Options{}, compile("train.1", "0xa"))}
	s.Inputs = []ledger.Input{{Path: "run.log"}}
	if g := EvaluateScan(s, Options{}); !g.Passed {
		t.Errorf("a clean scan: %+v", g)
	}
	s.Inputs = append(s.Inputs, ledger.Input{Path: "b.log.gz", ReadError: "unexpected EOF"})
	if g := EvaluateScan(s, Options{}); !g.Inconclusive || !strings.Contains(g.Reason, "b.log.gz") {
		t.Errorf("a broken input: %+v", g)
	}
	s.Inputs[1] = ledger.Input{Path: "core", Binary: "an ELF executable"}
	if g := EvaluateScan(s, Options{}); !g.Inconclusive || !strings.Contains(g.Reason, "core: binary data") {
		t.Errorf("a binary input: %+v", g)
	}
}

// Divergent ranks added to a coverage verdict keep its words: its count is of uncovered
// compilations, not of compilations after warm-up.
func TestDivergencesAfterCoverage(t *testing.T) {
	s := &ledger.Scan{Ledger: scanReport(t, ledger.Options{}, compile("train.1", "0xa")), Inputs: []ledger.Input{{Path: "run.log"}}}
	g := EvaluateCoverage(s, s, []Failure{{Kind: FailUncovered, Family: "train"}}, "", Options{})
	if g.Passed || g.Reason != "1 uncovered compilation(s), 0 allowed" {
		t.Fatalf("coverage: %+v", g)
	}
	g.AddDivergences([]Failure{{Kind: FailDivergence, Family: "train"}}, Options{})
	if g.Passed || !strings.HasPrefix(g.Reason, "1 uncovered compilation(s), 0 allowed; 1 rank(s) departed") {
		t.Errorf("with a divergent rank: %q", g.Reason)
	}
}

// A user's function whose name starts with an underscore is the user's program, not one of JAX's
// eager one-op programs: its recompilation (a batch of 32, then 24) fails the gate, from a
// written log and from a real one (testdata/jax-0.12-underscore-step.py run with JAX 0.12 and
// JAX_LOG_COMPILES=1, no cache-miss explanations), while JAX's own helpers stay eager.
func TestUnderscoreFunctionIsTheUsers(t *testing.T) {
	jit := func(name, shape string) string {
		return "Finished tracing " + name + " for jit in 0.006 sec\n" +
			"Compiling jit(" + name + ") with global shapes and types (ShapedArray(float32[" + shape + ",4]),). Argument mapping: (UnspecifiedValue,).\n" +
			"Finished XLA compilation of jit(" + name + ") in 0.06 sec\n"
	}
	real, err := os.ReadFile("testdata/jax-0.12-underscore-step.log")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, log string
		passed    bool
	}{
		{"written", jit("_train_step", "32") + "step 0\n" + jit("_train_step", "24"), false},
		{"real JAX 0.12", string(real), false},
		{"JAX's own helper", jit("_normal", "32") + jit("_normal", "24") + jit("_threefry_split", "2") + jit("_threefry_split", "3"), true},
	} {
		g := Evaluate(scanReport(t, ledger.Options{}, c.log), nil, Options{})
		if g.Passed != c.passed || !c.passed && (len(g.Failures) != 1 || g.Failures[0].Family != "jit__train_step") {
			t.Errorf("%s: passed %v, want %v: %+v", c.name, g.Passed, c.passed, g)
		}
	}
}

// One process's log rotated mid-run and given as two files: read as two processes each part
// passes alone, so the gate is inconclusive and says to read them as one; read as one
// (--same-process) the recompilation across the parts fails it. Logs that are not rotations of
// one name (ranks, runs, workers) stay processes of their own without a word.
func TestRotatedLog(t *testing.T) {
	read := func(same bool, logs ...string) *ledger.Scan {
		return readScan(t, ledger.ReadOptions{SameProcess: same}, logs...)
	}
	a, b := compile("train.1", "0xa"), compile("train.2", "0xb")
	for _, names := range [][2]string{{"logs/train.log.1", "logs/train.log"}, {"train.log-20261126.gz", "train.log"},
		{"w.out.2", "w.out.1"}, {"job.log.2026-11-26_23-55", "job.log.2026-11-27_00-55"}} {
		s := read(false, names[0], a, names[1], b)
		g := EvaluateScan(s, Options{})
		if g.Passed || !g.Inconclusive || !strings.Contains(g.Reason, "look like one log rotated") || !strings.Contains(g.Reason, "--same-process") {
			t.Errorf("%v: %+v", names, g)
		}
		if len(s.Inputs[0].Warnings) != 1 {
			t.Errorf("%v: warnings %+v", names, s.Inputs[0].Warnings)
		}
		if g := EvaluateScan(read(true, names[0], a, names[1], b), Options{}); g.Passed || g.Inconclusive || len(g.Failures) != 1 {
			t.Errorf("%v, one process: %+v", names, g)
		}
	}
	for _, names := range [][2]string{{"rank0.log", "rank1.log"}, {"run1.log", "run2.log"}, {"worker-1", "worker-2"}, {"a.log", "b.log"}} {
		if g := EvaluateScan(read(false, names[0], a, names[1], b), Options{}); !g.Passed {
			t.Errorf("%v: %+v", names, g)
		}
	}
}

// --warmup N counts the compilations of the program's own functions: a process that compiled
// its _train_step twice ends a warm-up of 1 and fails on the second; one that compiled only
// eager one-op programs never ended it, and the reason counts what --warmup counts.
func TestWarmupCountsOwnCompilations(t *testing.T) {
	jit := func(name, rows string) string {
		return "Compiling jit(" + name + ") with global shapes and types (ShapedArray(float32[" + rows + ",8]),). Argument mapping: (UnspecifiedValue,).\n" +
			"Finished XLA compilation of jit(" + name + ") in 0.25 sec\n"
	}
	opt := ledger.Options{Warmup: 1}
	g := Evaluate(scanReport(t, opt, jit("_train_step", "32")+jit("_train_step", "24")), nil, Options{})
	if g.Passed || g.Inconclusive || len(g.Failures) != 1 || strings.Contains(g.Reason, "never ended") {
		t.Errorf("--warmup 1 of 2 compilations: %+v", g)
	}
	g = Evaluate(scanReport(t, opt, jit("multiply", "32")+jit("multiply", "24")), nil, Options{})
	if !g.Inconclusive || !strings.Contains(g.Reason, "than the 0 of the program's own functions this process made (and 2 of eager one-op programs") {
		t.Errorf("--warmup 1 of eager compilations only: %+v", g)
	}
}

// A log split in two under names that do not say so: both parts' glog/absl records name the same
// thread (a process id) and the second follows the first in time, so they are one process. Ranks
// that ran at the same time, or processes whose ids differ or are a container's small ones, are not.
func TestSplitLogBySameThread(t *testing.T) {
	n := 0
	line := func(clock, tid string) string {
		n++ // a cluster of its own each time: nothing recompiles
		return "I1127 " + clock + " " + tid + " device_compiler.cc:1] Instantly compiling for signature: cluster_" + fmt.Sprint(n) + "\n"
	}
	read := func(a, b string) *Result {
		return EvaluateScan(readScan(t, ledger.ReadOptions{}, "first.log", a, "second.log", b), Options{})
	}
	g := read(line("10:00:00.000000", "4242"), line("10:05:00.000000", "4242"))
	if g.Passed || !g.Inconclusive || !strings.Contains(g.Reason, "first.log, second.log look like one process's log in two parts: both name thread 4242") {
		t.Errorf("one process in two parts: %+v", g)
	}
	if g := read(line("10:05:00.000000", "4242"), line("10:00:00.000000", "4242")); !strings.Contains(g.Reason, "second.log, first.log look like") {
		t.Errorf("given newest first: %+v", g)
	}
	for name, logs := range map[string][2]string{
		"ranks at the same time": {line("10:00:00.000000", "4242") + line("10:06:00.000000", "4242"), line("10:05:00.000000", "4242")},
		"two processes":          {line("10:00:00.000000", "4242"), line("10:05:00.000000", "4343")},
		"a container's pid 1":    {line("10:00:00.000000", "1"), line("10:05:00.000000", "1")},
	} {
		if g := read(logs[0], logs[1]); !g.Passed {
			t.Errorf("%s: %+v", name, g)
		}
	}
}

// A PT_XLA_DEBUG_LEVEL=1 log of a clean AdamW program (real: testdata/runs/torch-xla-2.9) cannot
// show that the step's second graph is set-up: the gate is inconclusive and says how to decide,
// even with --allow-no-evidence; with a real recompilation beside it, it fails.
func TestUndecidedIsInconclusiveNeverPassed(t *testing.T) {
	read := func(names ...string) (*ledger.Report, []Input) {
		var nameText []string
		var inputs []Input
		for _, n := range names {
			b, err := os.ReadFile(filepath.Join("../testdata/runs/torch-xla-2.9", n, "run.log"))
			if err != nil {
				t.Fatal(err)
			}
			nameText = append(nameText, n+".log", string(b))
			inputs = append(inputs, Input{Path: n + ".log"})
		}
		return readLogs(t, ledger.Options{}, nameText...), inputs
	}
	rep, in := read("adamw-clean-level1")
	for _, opt := range []Options{{}, {AllowNoEvidence: true}} {
		g := Evaluate(rep, in, opt)
		if g.Passed || !g.Inconclusive || !strings.Contains(g.Reason, "PT_XLA_DEBUG_LEVEL=2") || !strings.Contains(g.Reason, "adamw-clean-level1.log:") {
			t.Errorf("%+v: passed %v, inconclusive %v: %s", opt, g.Passed, g.Inconclusive, g.Reason)
		}
	}
	if g := Evaluate(rep, in, Options{MaxRecompiles: 1}); !g.Passed {
		t.Errorf("one recompilation allowed: %s", g.Reason)
	}
	rep, in = read("adamw-clean-level1", "batch-size-level1")
	if g := Evaluate(rep, in, Options{}); g.Passed || g.Inconclusive {
		t.Errorf("a real recompilation beside it: passed %v, inconclusive %v: %s", g.Passed, g.Inconclusive, g.Reason)
	}
	rep, in = read("batch-size-level1")
	if g := Evaluate(rep, in, Options{}); g.Passed || g.Inconclusive {
		t.Errorf("a new batch size: passed %v, inconclusive %v: %s", g.Passed, g.Inconclusive, g.Reason)
	}
}
