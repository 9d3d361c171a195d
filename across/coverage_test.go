package across

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/recomp/recomp/internal/dumptest"

	"github.com/recomp/recomp/diff"
	"github.com/recomp/recomp/explain"
	"github.com/recomp/recomp/gate"
	"github.com/recomp/recomp/ledger"
	"github.com/recomp/recomp/logscan"
)

func scanOf(t *testing.T, opt ledger.ReadOptions, logs ...ledger.Log) *ledger.Scan {
	t.Helper()
	opt.SameProcess = true
	s, err := ledger.ReadLogs(logs, opt)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// A warm-up log of its own: the run time's 32-row batch is covered, 48 rows is not (the nearest
// warm-up variant is 64, one it pads to), 128 rows is not either (its nearest is 64, which it
// does not pad to), and a program the warm-up never compiled has no nearest; the 32-row variant
// was seen used (compiled again at run time), the 64-row one was not, and JAX logs no use of a
// program it compiled, so "not seen" is all recomp says.
func TestCoverageSeparateWarmup(t *testing.T) {
	dir := t.TempDir()
	warm := dumptest.WriteFile(t, dir, "warm.log", dumptest.JAXRequest("step", "32,8")+dumptest.JAXRequest("step", "64,8"))
	run := dumptest.WriteFile(t, dir, "run.log", dumptest.JAXRequest("step", "32,8")+"step 0\n"+dumptest.JAXRequest("step", "48,8")+"noise\nstep 1 loss 0.5\n"+
		dumptest.JAXRequest("step", "128,8")+dumptest.JAXRequest("eval", "8")+"step 2\n")
	c := CoverageOf(scanOf(t, ledger.ReadOptions{}, ledger.Log{Path: warm}), scanOf(t, ledger.ReadOptions{}, ledger.Log{Path: run}),
		CoverageOptions{Warmup: warm})
	if c.By != "signature" || len(c.Variants) != 2 || c.Runtime != 4 || c.Covered != 1 || len(c.Uncovered) != 3 || c.UseKnown {
		t.Fatalf("coverage %+v, uncovered %+v", c, c.Uncovered)
	}
	u := c.Uncovered[0]
	if u.Args != "f32[48,8]" || u.Step != 1 || !u.PadTo || u.Nearest == nil || u.Nearest.Args != "f32[64,8]" || u.Cause == nil ||
		u.Cause.Kind != diff.CauseBatchSize || !strings.Contains(u.Summary, "padded to it") {
		t.Errorf("48 rows: %+v (nearest %+v, cause %+v)", u, u.Nearest, u.Cause)
	}
	u = c.Uncovered[1]
	if u.Args != "f32[128,8]" || u.Step != 2 || u.PadTo || u.Nearest == nil || u.Nearest.Args != "f32[64,8]" {
		t.Errorf("128 rows: %+v (nearest %+v)", u, u.Nearest)
	}
	if u := c.Uncovered[2]; u.Program != "jit_eval" || u.Nearest != nil || !strings.Contains(u.Summary, "never compiled jit_eval") {
		t.Errorf("a program the warm-up never compiled: %+v", u)
	}
	if un := c.Unused(); len(un) != 1 || un[0].Args != "f32[64,8]" || c.Variants[0].Uses != 1 {
		t.Errorf("unused %+v", un)
	}
	fs := CoverageFailures(c)
	if len(fs) != 3 || fs[0].Kind != gate.FailUncovered || !strings.Contains(fs[0].Message, "f32[48,8] (step 1)") {
		t.Errorf("failures %+v", fs)
	}
}

// One log split by --after: what came before the marker is the warm-up; a compilation after it
// of a shape compiled before it is covered.
func TestCoverageSplit(t *testing.T) {
	log := dumptest.JAXRequest("step", "32,8") + dumptest.JAXRequest("step", "64,8") + "warm-up done\n" + dumptest.JAXRequest("step", "64,8") + dumptest.JAXRequest("step", "16,8")
	m, err := logscan.NewLineRegexp("^warm-up done")
	if err != nil {
		t.Fatal(err)
	}
	s := scanOf(t, ledger.ReadOptions{Marker: m}, ledger.Log{Path: "run.log", Reader: strings.NewReader(log)})
	c := CoverageOf(s, s, CoverageOptions{Warmup: "run.log", Marker: "^warm-up done", Split: true})
	if len(c.Variants) != 2 || c.Runtime != 2 || c.Covered != 1 || len(c.Uncovered) != 1 || c.Uncovered[0].Args != "f32[16,8]" ||
		!c.Uncovered[0].PadTo || c.Uncovered[0].Nearest.Args != "f32[32,8]" || c.Uncovered[0].Step != -1 {
		t.Errorf("coverage %+v, uncovered %+v", c, c.Uncovered)
	}
}

// Graph hashes where the logs name no signature (TF-IPU): a run-time request served from the
// executable cache uses its variant, so an unused variant is known to be unused.
func TestCoverageByHash(t *testing.T) {
	begin := func(h string) string {
		return "I tensorflow/compiler/plugin/poplar/driver/poplar_compiler.cc:1487] Begin XLA compilation: cluster_1  (Hash: " + h + ") for ordinal  0\n"
	}
	loaded := "I tensorflow/compiler/plugin/poplar/driver/poplar_executor.cc:1800] Loaded cluster_1 from /c/1f.poplar_exec\n"
	dir := t.TempDir()
	warm := dumptest.WriteFile(t, dir, "warm.log", begin("0x1")+begin("0x2"))
	run := dumptest.WriteFile(t, dir, "run.log", begin("0x1")+loaded+begin("0x3"))
	c := CoverageOf(scanOf(t, ledger.ReadOptions{}, ledger.Log{Path: warm}), scanOf(t, ledger.ReadOptions{}, ledger.Log{Path: run}), CoverageOptions{})
	if c.By != "hash" || !c.UseKnown || len(c.Variants) != 2 || c.Runtime != 1 || len(c.Uncovered) != 1 || c.Uncovered[0].Hash != "0x3" ||
		c.Variants[0].Uses != 1 || len(c.Unused()) != 1 || c.Unused()[0].Hash != "0x2" {
		t.Errorf("coverage %+v, variants %+v, uncovered %+v", c, c.Variants, c.Uncovered)
	}
}

func TestSignatures(t *testing.T) {
	j12 := "(ShapedArray(float32[8,4]), ShapedArray(float32[32,8]), ShapedArray(float32[], weak_type=True))"
	j04 := "[ShapedArray(float32[8,4]), ShapedArray(float32[24,8]), ShapedArray(float32[])]"
	if got := explain.ShortSignature(j12); got != "f32[8,4], f32[32,8], f32[]" {
		t.Errorf("short %q", got)
	}
	if explain.ShortSignature("opaque") != "opaque" || explain.ShortSignature("") != "" {
		t.Error("an unreadable signature is kept as it is")
	}
	for _, c := range []struct {
		a, b string
		kind diff.CauseKind
		ok   bool
	}{
		{j12, j04, diff.CauseBatchSize, true},
		{"(ShapedArray(float32[4,16,8]),)", "(ShapedArray(float32[4,24,8]),)", diff.CauseInputShape, true},
		{"(ShapedArray(float32[4]),)", "(ShapedArray(bfloat16[4]),)", diff.CauseDtype, true},
		{"(ShapedArray(float32[4]),)", "(ShapedArray(float32[4]), ShapedArray(float32[4]))", diff.CauseGraphStructure, true},
		{"(ShapedArray(float32[32,8]), ShapedArray(float32[32,4]))", "(ShapedArray(float32[24,8]), ShapedArray(float32[16,4]))", diff.CauseInputShape, true},
		{j12, j12, "", false},
		{"x", j12, "", false},
	} {
		ch, ok := explain.CompareSignatures(c.a, c.b)
		if ok != c.ok || ch.Cause().Kind != c.kind {
			t.Errorf("%s → %s: %v %+v, want %s", c.a, c.b, ok, ch, c.kind)
		}
	}
	if e, ok := explain.CoversBy("(ShapedArray(float32[64,8]),)", "(ShapedArray(float32[48,8]),)"); !ok || e != 128 {
		t.Errorf("covers: %d %v", e, ok)
	}
	if _, ok := explain.CoversBy("(ShapedArray(float32[32,8]),)", "(ShapedArray(float32[48,8]),)"); ok {
		t.Error("a smaller shape covers a larger one")
	}
	if d := explain.SignatureDistance("(ShapedArray(float32[64,8]),)", "(ShapedArray(float32[48,8]),)"); d != 128 {
		t.Errorf("distance %d", d)
	}
}

// The step of a compilation is the number in the first line after it that names one; a line
// longer than the reader's buffer is matched by its start; a log that cannot be read again has
// none.
func TestStepsAfter(t *testing.T) {
	dir := t.TempDir()
	long := strings.Repeat("x", 3<<20)
	p := dumptest.WriteFile(t, dir, "run.log", "a\nstep 1\ncompile\n"+long+"\nTrain_step 4 is a name\nIteration: 7 loss 1\ncompile\nglobal_step=9\n")
	got := explain.StepsAfter(p, []int{3, 7, 7}, explain.DefaultStep.Regexp())
	if len(got) != 2 || got[3] != 7 || got[7] != 9 {
		t.Errorf("steps %v", got)
	}
	if got := explain.StepsAfter("-", []int{1}, explain.DefaultStep.Regexp()); len(got) != 0 {
		t.Errorf("stdin: %v", got)
	}
	if got := explain.StepsAfter(filepath.Join(dir, "missing"), []int{1}, explain.DefaultStep.Regexp()); len(got) != 0 {
		t.Errorf("missing: %v", got)
	}
}

// EvaluateGuard is recomp guard's pipeline: a baseline of known programs fails what it does not hold, a
// warm-up log fails what it did not cover, and with ranks a rank that departs fails too.
func TestGuard(t *testing.T) {
	dir := t.TempDir()
	good := dumptest.WriteFile(t, dir, "good.log", dumptest.JAXRequest("step", "32,8"))
	grown := dumptest.WriteFile(t, dir, "grown.log", dumptest.JAXRequest("step", "32,8")+dumptest.JAXRequest("step", "24,8"))
	other := dumptest.WriteFile(t, dir, "other.log", dumptest.JAXRequest("step", "32,8")+dumptest.JAXRequest("eval", "8"))
	s, err := explain.Logs([]string{good}, ledger.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := gate.BaselineOf(&s.Scan)
	if err != nil {
		t.Fatal(err)
	}
	base := filepath.Join(dir, "base.json")
	if err := gate.WriteBaseline(base, b, nil); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		opt  GuardOptions
		pass bool
	}{
		{"plain, one recompilation", GuardOptions{Logs: []string{grown}}, false},
		{"plain, tolerated", GuardOptions{Logs: []string{grown}, Gate: gate.Options{MaxRecompiles: 1}}, true},
		{"baseline, same program", GuardOptions{Logs: []string{good}, Baseline: base}, true},
		{"baseline, a new program", GuardOptions{Logs: []string{other}, Baseline: base}, false},
		{"covered by a warm-up that compiled it", GuardOptions{Logs: []string{good}, CoveredBy: grown}, true},
		{"covered by a warm-up that did not", GuardOptions{Logs: []string{grown}, CoveredBy: good}, false},
		{"ranks that agree", GuardOptions{Logs: []string{good, good}, Ranks: &explain.RanksOptions{}}, true},
		{"a rank that departs", GuardOptions{Logs: []string{good, grown}, Ranks: &explain.RanksOptions{}, Gate: gate.Options{MaxRecompiles: 1}}, false},
	} {
		g, err := EvaluateGuard(c.opt)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if g.Gate.Passed != c.pass || g.Gate.Inconclusive {
			t.Errorf("%s: passed %v (inconclusive %v, %s), want %v", c.name, g.Gate.Passed, g.Gate.Inconclusive, g.Gate.Reason, c.pass)
		}
		if (c.opt.Ranks != nil) != (g.Ranks != nil) || (c.opt.CoveredBy != "") != (g.Coverage != nil) {
			t.Errorf("%s: ranks %v, coverage %v", c.name, g.Ranks != nil, g.Coverage != nil)
		}
	}
	if _, err := EvaluateGuard(GuardOptions{Logs: []string{good}, Baseline: filepath.Join(dir, "missing.json")}); err == nil || !strings.Contains(err.Error(), "missing.json") {
		t.Errorf("a missing baseline: %v", err)
	}
}

// A warm-up whose log names no argument signature (JAX without JAX_LOG_COMPILES' "Compiling"
// lines) covers nothing by the program's name alone: the run time's compilations, which name
// theirs, are unmatched, the gate is inconclusive, and the note says which log lacks them.
func TestCoverageWithoutWarmupSignatures(t *testing.T) {
	dir := t.TempDir()
	warm := dumptest.WriteFile(t, dir, "warm.log", "Finished XLA compilation of jit(step) in 0.25 sec\n")
	run := dumptest.WriteFile(t, dir, "run.log", dumptest.JAXRequest("step", "32,8")+"step 0\n"+dumptest.JAXRequest("step", "48,8")+dumptest.JAXRequest("eval", "8"))
	g, err := Covered(CoveredOptions{Logs: []string{run}, Warmup: warm})
	if err != nil {
		t.Fatal(err)
	}
	c := g.Coverage
	if c.Covered != 0 || c.Unmatched != 2 || len(c.Uncovered) != 1 || c.Uncovered[0].Program != "jit_eval" || c.Runtime != 3 {
		t.Fatalf("coverage %+v, uncovered %+v", c, c.Uncovered)
	}
	notes := strings.Join(c.Notes, "\n")
	if !strings.Contains(notes, "the run time's log names their argument signatures or graph hashes, the warm-up's log ("+warm+") does not") ||
		strings.Contains(notes, "name neither") {
		t.Errorf("notes %q", c.Notes)
	}
	if g.Gate.Passed || !g.Gate.Inconclusive || !strings.Contains(g.Gate.Reason, "cannot be matched") {
		t.Errorf("gate %+v", g.Gate)
	}
	// Without the program the warm-up never compiled, nothing fails: still inconclusive, not a pass.
	run = dumptest.WriteFile(t, dir, "run2.log", dumptest.JAXRequest("step", "32,8"))
	if g, err = Covered(CoveredOptions{Logs: []string{run}, Warmup: warm}); err != nil || g.Gate.Passed || !g.Gate.Inconclusive {
		t.Errorf("one unmatched compilation: %v %+v", err, g.Gate)
	}
	if g, err = Covered(CoveredOptions{Logs: []string{run}, Warmup: warm, Gate: gate.Options{AllowNoEvidence: true}}); err != nil || !g.Gate.Passed {
		t.Errorf("--allow-no-evidence: %v %+v", err, g.Gate)
	}
}

// A run folder whose manifest says the run was cut (recomp run was killed before it ended) is
// no pass: what its run.log leaves out may have compiled. --allow-no-evidence passes it.
func TestGuardOfACutRun(t *testing.T) {
	dir := t.TempDir()
	run := filepath.Join(dir, "run")
	dumptest.WriteFile(t, run, "run.log", dumptest.JAXRequest("step", "32,8"))
	for _, c := range []struct {
		manifest           string
		allow, pass, doubt bool
	}{
		{`{"running": false}`, false, true, false},
		{`{"running": true}`, false, false, true},
		{`{"running": true}`, true, true, false},
	} {
		dumptest.WriteFile(t, run, "manifest.json", c.manifest)
		g, err := EvaluateGuard(GuardOptions{Logs: []string{run}, Gate: gate.Options{AllowNoEvidence: c.allow}})
		if err != nil {
			t.Fatal(err)
		}
		if g.Gate.Passed != c.pass || g.Gate.Inconclusive != c.doubt || c.doubt && !strings.Contains(g.Gate.Reason, "the run was cut") {
			t.Errorf("%s (allow %v): passed %v, inconclusive %v: %s", c.manifest, c.allow, g.Gate.Passed, g.Gate.Inconclusive, g.Gate.Reason)
		}
	}
}
