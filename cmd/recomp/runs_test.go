package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"html"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/recomp/recomp/frameworks"
	"github.com/recomp/recomp/gate"
	"github.com/recomp/recomp/internal/skipped"
	"github.com/recomp/recomp/report"
	"github.com/recomp/recomp/runner"
)

// The runs under testdata/runs/<matrix>/<scenario> are real programs run with real JAX,
// TensorFlow/Keras and PyTorch/XLA versions (testdata/runs/gen). Each truth.json says what
// the run really did, counted by the program through the framework's own API, and what recomp
// must say about it. These tests hold recomp to it, on the committed runs and, when the
// frameworks are installed (RECOMP_LIVE_<MATRIX> names a Python that has them), on fresh ones.

type truth struct {
	Matrix      string        `json:"matrix"`
	Scenario    string        `json:"scenario"`
	Description string        `json:"description"`
	Logs        []string      `json:"logs"`
	Evidence    truthEvidence `json:"evidence"`
	Recompiled  []string      `json:"recompiled"`
	NotRecomp   []string      `json:"not_recompiled"`
	GuardFails  bool          `json:"guard_fails"`
	// GuardInconclusive is what guard on the logs alone must ask for when they cannot tell
	// set-up from a recompilation: it exits 2 (never 0) and says it.
	GuardInconclusive string            `json:"guard_inconclusive"`
	Cause             *string           `json:"cause"`
	Causes            map[string]string `json:"causes"`
	Reason            string            `json:"reason"`
	// Compiles are the compilations of the programs a newer scenario is about, each with the
	// causes the program knows it introduced and the earlier dump it differs from only by them.
	Compiles []truthCompile       `json:"compiles"`
	Roles    map[string]truthRole `json:"roles"`
	// Data is the kind of dataset the program fed its Keras calls ("tf.data"; "" for arrays).
	Data      string         `json:"data"`
	Processes []truthProcess `json:"processes"`
	// CompileSeconds is the sum of the framework's own per-compilation durations; CallSites the
	// user's lines (FILE:LINE, FILE its base name) of each recompiled identity's recompilations;
	// Spread the sizes fed to one program and the one size that covers them.
	CompileSeconds *float64            `json:"compile_seconds"`
	CallSites      map[string][]string `json:"call_sites"`
	Spread         *truthSpread        `json:"spread"`
	// Two runs sharing a cache, the ranks of a job, a run time held against its warm-up.
	CacheMiss *truthCacheMiss `json:"cache_miss"`
	Ranks     *truthRanks     `json:"ranks"`
	Uncovered *truthUncovered `json:"uncovered"`
	// ValueCauses are the Python values read at trace time that the program changed (a static
	// argument), and how many compilations each explains (values_runs_test.go).
	ValueCauses []truthValueCause `json:"value_causes"`
	// A Python number the program changed that the framework baked into the graph.
	PythonNumber *truthNumber `json:"python_number"`
	// Cadence is when a program compiled, by the program's own count of its steps and epochs.
	Cadence *truthCadence `json:"cadence"`
	// Silenced is a run whose stack's compile logging the user switched off: its log alone is no
	// evidence; the probe's records and the dump are (testdata/runs/gen/README.md).
	Silenced *truthSilenced `json:"silenced"`
	// CountUnnamed is the setting that would let the dump name a loop count the program changed,
	// where the run's dump cannot (its ops carry no source lines).
	CountUnnamed string `json:"count_unnamed"`
	// LoopCount is a Python loop the program ran a new number of times (its counts in the order
	// they compiled, the loop's line); GrowingCache a buffer its step grew by concatenation and was
	// called with again (the sizes compiled, in order, and the step).
	LoopCount    *truthLoopCount    `json:"loop_count"`
	GrowingCache *truthGrowingCache `json:"growing_cache"`
	// Inference says the recompiled program's graph computes no gradient (a scoring or evaluation
	// loop): its remedy must lose no data.
	Inference bool `json:"inference"`
	// OpGrowth is the program's own line whose op count (the dump's op metadata) changed by the same
	// number at each recompilation, and its counts, where a loop's passes are not whole blocks.
	OpGrowth *struct {
		Site   string `json:"site"`
		Counts []int  `json:"counts"`
	} `json:"op_growth"`
	// OwnLines are the program's own lines that made it compile, where a library's frames
	// (Library, a path part) come before them in the framework's list.
	OwnLines *struct {
		Sites   []string `json:"sites"`
		Library string   `json:"library"`
	} `json:"own_lines"`
	// Stated is the construct the program changed as the stack states it (values_runs_test.go).
	Stated *truthStated `json:"stated"`
	// Stopped is where recomp run --fail-on-recompile's stop found the program (stopped_test.go).
	Stopped *truthStopped `json:"stopped"`
}

// truthNumber is a Python number a program changed (its values, in order), the line of the op
// that took it, and the steps that compiled: every_steps apart, compiled_at_steps of steps.
type truthLoopCount struct {
	Identity string `json:"identity"`
	Counts   []int  `json:"counts"`
	Site     string `json:"site"`
}

type truthGrowingCache struct {
	Identity  string `json:"identity"`
	Sizes     []int  `json:"sizes"`
	Step      int    `json:"step"`
	Dimension int    `json:"dimension"`
}

type truthNumber struct {
	Identity        string    `json:"identity"`
	Values          []float64 `json:"values"`
	Site            string    `json:"site"`
	Steps           int       `json:"steps"`
	CompiledAtSteps []int     `json:"compiled_at_steps"`
	EverySteps      int       `json:"every_steps"`
}

// truthCadence is when a program compiled (compiled_at_steps of steps, 1 for the first), the steps
// ended when each epoch began, and how many times it compiled in each epoch when as many in
// every one (0 otherwise); values are what the program set at each compilation.
type truthCadence struct {
	Identity        string `json:"identity"`
	Steps           int    `json:"steps"`
	CompiledAtSteps []int  `json:"compiled_at_steps"`
	EpochStarts     []int  `json:"epoch_starts"`
	EveryEpoch      int    `json:"every_epoch"`
	Values          []int  `json:"values"`
}

type truthSpread struct {
	Identity string `json:"identity"`
	Compiled []int  `json:"compiled"`
	PadTo    int    `json:"pad_to"`
}

type truthProcess struct {
	Log  string            `json:"log"`
	Dump string            `json:"dump"`
	Env  map[string]string `json:"env"`
}

type truthCompile struct {
	Identity string   `json:"identity"`
	Seconds  float64  `json:"seconds"`
	Log      string   `json:"log"`
	Dump     string   `json:"dump"`
	Input    string   `json:"input"`
	Causes   []string `json:"causes"`
	Against  string   `json:"against"`
	Function string   `json:"function"`
	Role     string   `json:"role"`
	// Merged marks the earlier graph with another computation's pending ops merged in.
	Merged bool `json:"merged"`
}

// truthRole is a Keras step: the traced functions that are it and their dumps.
type truthRole struct {
	Functions []string `json:"functions"`
	Dumps     []string `json:"dumps"`
}

type truthCacheMiss struct {
	Log          string `json:"log"`
	Identity     string `json:"identity"`
	Reason       string `json:"reason"`
	Changed      string `json:"changed"`
	Quote        string `json:"quote"`
	QuoteLog     string `json:"quote_log"`
	CacheEntries int    `json:"cache_entries"`
}

type truthRanks struct {
	Processes int      `json:"processes"`
	Logs      []string `json:"logs"`
	Tagged    string   `json:"tagged"` // every rank's lines in one log, tagged by a launcher
	Diverged  []struct {
		Rank     int      `json:"rank"`
		Step     int      `json:"step"`
		Identity string   `json:"identity"`
		Causes   []string `json:"causes"`
	} `json:"diverged"`
}

type truthUncovered struct {
	Log    string   `json:"log"`
	Marker string   `json:"marker"`
	Warmed []string `json:"warmed"`
	Shapes []struct {
		Identity string `json:"identity"`
		Input    string `json:"input"`
		Step     int    `json:"step"`
	} `json:"shapes"`
}

type truthEvidence struct {
	Compilations int `json:"compilations"`
	CacheHits    int `json:"cache_hits"`
}

// matrix lists testdata/runs/gen/matrix.txt: matrix name, requirements file, generator.
func matrix(t *testing.T) [][3]string {
	f, err := os.Open("../../testdata/runs/gen/matrix.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out [][3]string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) == 3 && !strings.HasPrefix(fields[0], "#") {
			out = append(out, [3]string{fields[0], fields[1], fields[2]})
		}
	}
	return out
}

func TestCommittedRuns(t *testing.T) {
	for _, m := range matrix(t) {
		t.Run(m[0], func(t *testing.T) { checkMatrix(t, filepath.Join("../../testdata/runs", m[0])) })
	}
}

// TestLiveRuns regenerates every matrix whose Python is given (RECOMP_LIVE_JAX_0_12 for
// jax-0.12 and so on: .ci/run builds them with testdata/runs/gen/venv.sh) and checks the fresh
// runs the same way. A matrix without one skips, and says so.
func TestLiveRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: not regenerating the runs")
	}
	for _, m := range matrix(t) {
		t.Run(m[0], func(t *testing.T) {
			env := "RECOMP_LIVE_" + strings.NewReplacer("-", "_", ".", "_").Replace(strings.ToUpper(m[0]))
			py := os.Getenv(env)
			if py == "" {
				skipped.Skip(t, skipped.Live, env, fmt.Sprintf("%s is not set: the %s runs are not regenerated (.ci/run sets it when the venv of %s installs)", env, m[0], m[1]))
			}
			out := t.TempDir()
			gen, _ := filepath.Abs("../../testdata/runs/gen/" + m[2])
			// recomp run's probe as recomp run assembles it, for the scenarios run under it
			probe, err := runner.WriteProbe(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			// recomp itself, for the scenarios run under recomp run: this test binary (TestMain)
			bin := filepath.Join(t.TempDir(), "recomp")
			if err := os.Symlink(os.Args[0], bin); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(py, gen, "--out", out)
			cmd.Env = append(os.Environ(), "RECOMP_PROBE_DIR="+probe.Dir, "RECOMP_BIN="+bin)
			if b, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("%s: %v\n%s", m[2], err, b)
			}
			checkMatrix(t, out)
		})
	}
}

func checkMatrix(t *testing.T, dir string) {
	files, _ := filepath.Glob(filepath.Join(dir, "*", "truth.json"))
	if len(files) == 0 {
		t.Fatalf("no runs in %s", dir)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var tr truth
		if err := json.Unmarshal(b, &tr); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		t.Run(filepath.Base(filepath.Dir(f)), func(t *testing.T) { checkRun(t, filepath.Dir(f), tr) })
	}
}

func checkRun(t *testing.T, dir string, tr truth) {
	var logs []string
	for _, l := range tr.Logs {
		logs = append(logs, filepath.Join(dir, l))
	}
	files := logs
	if tr.Silenced != nil {
		checkSilenced(t, dir, logs, tr)
		logs = []string{dir} // the evidence is the run folder's: its probe's records and its dump
	}
	code, stdout, stderr := runRecomp(append([]string{"scan", "--format", "json"}, logs...)...)
	if code != 0 {
		t.Fatalf("scan exit %d: %s", code, stderr)
	}
	var doc report.ScanJSON
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatal(err)
	}
	if got, want := [2]int{doc.Summary.Compilations, doc.Summary.CacheHits}, [2]int{tr.Evidence.Compilations, tr.Evidence.CacheHits}; got != want {
		t.Errorf("compilations, cache hits = %v, the framework's own evidence says %v", got, want)
	}
	// The truth names programs as the dump does; the log may name them otherwise (TF logs
	// __inference_f_12 for a_inference_f_12__XlaMustCompile_…, PyTorch/XLA's unnamed graphs are
	// SyncTensorsGraph in the dump): they meet by function key.
	byKey := map[string][]report.ModuleJSON{}
	var recompiled []string
	for _, m := range doc.Modules {
		k := programName(m.Family)
		byKey[k] = append(byKey[k], m)
		if m.Recompiled && m.Undecided != "" && tr.GuardInconclusive != "" {
			continue // the log alone cannot tell it from set-up, and says so (checked with guard below)
		}
		if m.Recompiled {
			recompiled = append(recompiled, k)
		}
	}
	var want []string
	for _, n := range tr.Recompiled {
		want = append(want, programName(n))
	}
	sort.Strings(recompiled)
	sort.Strings(want)
	recompiled, want = slices.Compact(recompiled), slices.Compact(want)
	if !slices.Equal(recompiled, want) {
		t.Errorf("recompiled %q, want %q", recompiled, want)
	}
	for _, n := range tr.NotRecomp {
		compiled, again := 0, false
		for _, m := range byKey[programName(n)] {
			compiled += m.Compilations
			again = again || m.Recompiled
		}
		undecided := len(byKey[programName(n)]) > 0 && byKey[programName(n)][0].Undecided != "" && tr.GuardInconclusive != ""
		if compiled < 2 || again && !undecided {
			t.Errorf("%s: compiled %d times, recompiled %v; want several compilations, not a recompilation", n, compiled, again)
		}
	}
	if tr.Reason != "" {
		found := false
		names := tr.Recompiled
		if len(names) == 0 { // the reason of a compilation that is not a recompilation
			for _, m := range doc.Modules {
				names = append(names, m.Family)
			}
		}
		for _, n := range names {
			for _, m := range byKey[programName(n)] {
				for _, r := range m.Reasons {
					found = found || strings.Contains(r, tr.Reason)
				}
			}
		}
		if !found {
			t.Errorf("no reason of %q carries the framework's %q", tr.Recompiled, tr.Reason)
		}
	}
	checkRoles(t, doc, tr)
	checkLogRoles(t, files, doc, tr)
	if _, err := os.Stat(filepath.Join(dir, "probe.jsonl")); err != nil {
		checkCost(t, doc, tr) // else from the run folder below: the probe may give the times
	}
	if _, err := os.Stat(filepath.Join(dir, "probe.jsonl")); err == nil {
		// run under recomp run's probe: the run folder is the input, as recomp run leaves it
		// (the probe names the program's lines a log names none of)
		_, out, _ := runRecomp("scan", "--format", "json", dir)
		var folder report.ScanJSON
		if err := json.Unmarshal([]byte(out), &folder); err != nil {
			t.Fatalf("scan %s: %v", dir, err)
		}
		checkVerdict(t, dir, folder, tr)
		checkCost(t, folder, tr)
		if tr.Cadence != nil {
			checkCadence(t, dir, folder, tr)
		}
	} else {
		checkVerdict(t, dir, doc, tr)
	}
	gcode, gout, _ := runRecomp(append([]string{"guard"}, logs...)...)
	if wantCode := map[bool]int{true: 1, false: 0}[tr.GuardFails]; tr.GuardInconclusive == "" && gcode != wantCode {
		t.Errorf("guard exit %d, want %d:\n%s", gcode, wantCode, gout)
	}
	for _, p := range doc.Verdict.Programs {
		if tr.GuardInconclusive != "" && !strings.Contains(p.Action, tr.GuardInconclusive) {
			t.Errorf("%s: the action does not say how to decide (%q): %s", p.Program, tr.GuardInconclusive, p.Action)
		}
	}
	if tr.GuardInconclusive != "" && (gcode != 2 || !strings.Contains(gout, "inconclusive") || !strings.Contains(gout, tr.GuardInconclusive)) {
		t.Errorf("guard exit %d, want 2, inconclusive, asking for %q:\n%s", gcode, tr.GuardInconclusive, gout)
	}
	checkExplain(t, dir, logs, tr)
	if tr.CacheMiss != nil {
		checkCacheMiss(t, dir, tr)
	}
	if tr.Ranks != nil {
		checkRanks(t, dir, tr)
	}
	if tr.Uncovered != nil {
		checkUncovered(t, dir, tr)
	}
	if len(tr.ValueCauses) > 0 {
		checkValueCauses(t, dir, tr)
	}
	if tr.PythonNumber != nil {
		checkNumber(t, dir, doc, tr)
	}
	if tr.OwnLines != nil {
		checkOwnLines(t, dir, doc, tr)
	}
	checkMerged(t, dir, tr)
	if tr.CountUnnamed != "" {
		checkCountUnnamed(t, dir, tr)
	}
	if tr.OpGrowth != nil {
		checkOpGrowth(t, dir, tr)
	}

	if tr.LoopCount != nil {
		checkLoopCount(t, dir, tr)
	}
	if tr.GrowingCache != nil {
		checkGrowingCache(t, dir, tr)
	}
	if tr.Inference {
		checkInference(t, dir, tr)
	}
	if tr.Stated != nil {
		checkStated(t, dir, tr)
	}
	if tr.Stopped != nil {
		checkStopped(t, dir, tr)
	}
}

// checkInference holds a loop whose graph computes no gradient (scoring, evaluation) to a remedy
// that loses no data, in every format: pad the last batch and drop the padded rows' outputs,
// never the training loop's drop_last.
func checkInference(t *testing.T, dir string, tr truth) {
	t.Helper()
	const keep, lose = "do not drop the last partial batch", "drop the last partial batch (DataLoader(drop_last=True)), or"
	p, _ := explainVerdict(t, dir, tr.Recompiled[0])
	if !strings.Contains(p.Action, keep) || strings.Contains(p.Action, lose) {
		t.Errorf("action %q: want %q, never %q", p.Action, keep, lose)
	}
	for _, format := range []string{"text", "markdown", "html"} {
		if _, out, _ := runRecomp("explain", "--format", format, dir); !strings.Contains(out, keep) || strings.Contains(out, lose) {
			t.Errorf("explain --format %s does not say %q, or tells to drop the batch", format, keep)
		}
	}
}

// explainVerdict is explain's JSON answer on a run folder: its verdict of the program identity,
// and each comparison of that program's dumps.
func explainVerdict(t *testing.T, dir, identity string) (report.ProgramVerdictJSON, []report.PairJSON) {
	t.Helper()
	_, out, _ := runRecomp("explain", "--format", "json", dir)
	var doc report.DiffJSON
	if err := json.Unmarshal([]byte(out), &doc); err != nil || doc.Verdict == nil {
		t.Fatalf("explain %s: %v", dir, err)
	}
	for _, p := range doc.Verdict.Programs {
		if programName(p.Program) == programName(identity) {
			return p, doc.Pairs
		}
	}
	t.Fatalf("no verdict of %s: %+v", identity, doc.Verdict.Programs)
	return report.ProgramVerdictJSON{}, nil
}

// checkLoopCount holds the answer to a Python loop that ran a new number of times: the loop count
// leads, at the loop's line, with the counts in order, in every format; what the new ops brought
// with them (a mean's divisor that follows the count, their element types and layouts) is no cause
// of the verdict nor the lead of any comparison.
func checkLoopCount(t *testing.T, dir string, tr truth) {
	t.Helper()
	var counts []string
	for _, n := range tr.LoopCount.Counts {
		counts = append(counts, strconv.Itoa(n))
	}
	want := strings.Join(counts, " → ")
	p, pairs := explainVerdict(t, dir, tr.LoopCount.Identity)
	if len(p.Causes) != 1 || p.Causes[0].Kind != "graph_structure" || p.Causes[0].Source != tr.LoopCount.Site || !strings.Contains(p.Causes[0].Change, want) {
		t.Errorf("causes %+v, want the loop at %s alone, %s", p.Causes, tr.LoopCount.Site, want)
	}
	for _, pr := range pairs {
		for k, c := range pr.Causes {
			if k == 0 && c.Kind != "graph_structure" || c.Kind == "constant_value" || c.Kind == "dtype" || c.Kind == "layout" {
				t.Errorf("%s → %s: cause %d is %s: %s", filepath.Base(pr.A), filepath.Base(pr.B), k, c.Kind, c.Summary)
			}
		}
	}
	for _, format := range []string{"text", "markdown", "html"} {
		if _, out, _ := runRecomp("explain", "--format", format, dir); !strings.Contains(out, want) || !strings.Contains(out, tr.LoopCount.Site) {
			t.Errorf("explain --format %s does not say %s at %s", format, want, tr.LoopCount.Site)
		}
	}
}

// checkGrowingCache holds the answer to a buffer grown by concatenation at each step and fed back:
// the action is the stack's preallocated cache written in place, not buckets to pad to, in every
// format.
func checkGrowingCache(t *testing.T, dir string, tr truth) {
	t.Helper()
	g := tr.GrowingCache
	grows := fmt.Sprintf("dimension %d grows by %d at each call (%d → %d)", g.Dimension, g.Step, g.Sizes[0], g.Sizes[len(g.Sizes)-1])
	p, _ := explainVerdict(t, dir, g.Identity)
	if p.Sizes == nil || !slices.Equal(p.Sizes.Seen, g.Sizes) || !strings.Contains(p.Action, grows) || !strings.Contains(p.Action, "index_copy_") ||
		strings.Contains(p.Action, "pad dimension") {
		t.Errorf("sizes %+v, action %q: want %s and a cache written in place", p.Sizes, p.Action, grows)
	}
	for _, format := range []string{"text", "markdown", "html"} {
		if _, out, _ := runRecomp("explain", "--format", format, dir); !strings.Contains(out, grows) || !strings.Contains(out, "index_copy_") ||
			strings.Contains(out, "pad dimension") {
			t.Errorf("explain --format %s does not say %s and index_copy_, or proposes padding", format, grows)
		}
	}
}

// checkOpGrowth holds the verdict of a loop whose passes are not whole blocks to the line and op
// counts the dump's metadata shows: named with them in every format, its count not named.
func checkOpGrowth(t *testing.T, dir string, tr truth) {
	t.Helper()
	var seen []string
	for _, n := range tr.OpGrowth.Counts {
		seen = append(seen, strconv.Itoa(n))
	}
	want := tr.OpGrowth.Site + " " + strings.Join(seen, " → ")
	_, out, _ := runRecomp("scan", "--format", "json", dir)
	var scan report.ScanJSON
	if err := json.Unmarshal([]byte(out), &scan); err != nil {
		t.Fatalf("scan %s: %v", dir, err)
	}
	for _, p := range scan.Verdict.Programs {
		if programName(p.Program) != programName(tr.Cadence.Identity) {
			continue
		}
		if len(p.Causes) != 1 || p.Causes[0].Source != tr.OpGrowth.Site || !strings.Contains(p.Causes[0].Change, want) || len(p.Causes[0].Values) != 0 {
			t.Errorf("causes %+v, want one naming %s and no count", p.Causes, want)
		}
	}
	for _, format := range []string{"text", "markdown", "html", "json"} {
		if _, out, _ := runRecomp("explain", "--format", format, dir); !strings.Contains(out, want) || !strings.Contains(out, "not the loop") {
			t.Errorf("explain --format %s does not name %s, or says it names the loop's count", format, want)
		}
	}
}

// checkCountUnnamed holds the answer to a loop count the dump cannot show (no source lines): no
// count is named, and every format says which setting would name it.
func checkCountUnnamed(t *testing.T, dir string, tr truth) {
	t.Helper()
	for _, format := range []string{"text", "markdown", "html", "json"} {
		_, out, _ := runRecomp("explain", "--format", format, dir)
		if strings.Contains(out, "loop count unrolled") || !strings.Contains(out, "carry no source lines") ||
			!strings.Contains(out, tr.CountUnnamed) {
			t.Errorf("explain --format %s names a loop count, or not that %s would name it", format, tr.CountUnnamed)
		}
	}
}

// checkMerged holds what explain says of a graph that is an earlier one with pending ops of other
// code merged in (truth `merged`): compared with that graph (checkCompiles), its cause says so in
// JSON (`merged`) and in every other format, with no other cause.
func checkMerged(t *testing.T, dir string, tr truth) {
	t.Helper()
	for _, c := range tr.Compiles {
		if !c.Merged {
			continue
		}
		_, out, _ := runRecomp("explain", "--format", "json", dir)
		var doc report.DiffJSON
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatalf("explain %s: %v", dir, err)
		}
		found := false
		for _, p := range doc.Pairs {
			if p.B == filepath.Join(dir, c.Dump) {
				found = true
				if len(p.Causes) != 1 || !p.Causes[0].Merged || p.A != filepath.Join(dir, c.Against) {
					t.Errorf("%s: compared with %s, causes %+v; want one cause, merged, against %s", c.Dump, p.A, p.Causes, c.Against)
				}
			}
		}
		if !found {
			t.Errorf("%s is compared with nothing", c.Dump)
		}
		for _, format := range []string{"text", "markdown", "html"} {
			if _, out, _ := runRecomp("explain", "--format", format, dir); !strings.Contains(out, "pending ops merged in") ||
				!strings.Contains(out, "a graph of its own") || strings.Contains(out, "dtype") {
				t.Errorf("explain --format %s does not name the merged ops and their advice (or names a dtype)", format)
			}
		}
	}
}

// checkOwnLines holds "your lines" to the program's own: the verdict's lines (scan, explain in
// every format) are the program's lines that called the library, none of the library's.
func checkOwnLines(t *testing.T, dir string, scan report.ScanJSON, tr truth) {
	t.Helper()
	var got []string
	for _, s := range scan.Verdict.CallSites {
		got = append(got, strings.SplitN(s.Site, " (", 2)[0])
	}
	if !slices.Equal(got, tr.OwnLines.Sites) {
		t.Errorf("the verdict's lines %q, the program's own %q", got, tr.OwnLines.Sites)
	}
	library := regexp.MustCompile(`site-packages|minitrainer|parallel_loader|torch_xla/|torch/`)
	for _, format := range []string{"text", "markdown", "html", "json"} {
		_, out, _ := runRecomp("explain", "--format", format, dir)
		i := strings.Index(out, "Your lines")
		if format == "json" {
			i = strings.Index(out, `"call_sites"`)
		}
		if i < 0 {
			t.Errorf("explain --format %s has no lines of the program", format)
			continue
		}
		section := out[i:]
		if j := strings.Index(section, "Programs in the dump"); j > 0 {
			section = section[:j]
		}
		if j := strings.Index(section, "]"); format == "json" && j > 0 {
			section = section[:j]
		}
		if w := library.FindString(section); w != "" || !strings.Contains(section, tr.OwnLines.Sites[0]) {
			t.Errorf("explain --format %s: the program's lines name %q, or not %s:\n%s", format, w, tr.OwnLines.Sites[0], section)
		}
	}
}

// checkCadence holds the verdict of a run folder to when the program compiled, by the program's
// own count: the steps (from recomp run's probe where the log counts none), the epochs, and
// "recurs every epoch" with the cost of an epoch in every format. The cost is compared as JSON
// numbers within rounding (the text rounds it).
func checkCadence(t *testing.T, dir string, scan report.ScanJSON, tr truth) {
	t.Helper()
	want := tr.Cadence
	var p *report.ProgramVerdictJSON
	for i := range scan.Verdict.Programs {
		if programName(scan.Verdict.Programs[i].Program) == programName(want.Identity) {
			p = &scan.Verdict.Programs[i]
		}
	}
	if p == nil {
		t.Fatalf("no verdict of %s: %+v", want.Identity, scan.Verdict.Programs)
	}
	c := p.Cadence
	if c == nil || !slices.Equal(c.Steps, want.CompiledAtSteps) || c.Of != want.Steps || c.EpochsOf != len(want.EpochStarts) ||
		c.EveryEpoch != want.EveryEpoch {
		t.Fatalf("cadence %+v, the program compiled at steps %v of %d, %d epochs from steps %v, every epoch %d",
			c, want.CompiledAtSteps, want.Steps, len(want.EpochStarts), want.EpochStarts, want.EveryEpoch)
	}
	for i, s := range want.CompiledAtSteps {
		k := 0
		for k < len(want.EpochStarts) && want.EpochStarts[k] < s {
			k++
		}
		if c.Epochs[i] != k {
			t.Errorf("compilation %d at step %d: epoch %d, the program's %d", i+1, s, c.Epochs[i], k)
		}
	}
	if len(want.Values) > 0 { // a loop count the program changed: named with its values, from the dump
		var seen []string
		for _, v := range want.Values {
			seen = append(seen, strconv.Itoa(v))
		}
		chain := strings.Join(seen, " → ")
		if c := p.Causes; len(c) != 1 || len(c[0].Values) != 1 || !slices.Equal(c[0].Values[0].Seen, seen) || !strings.Contains(c[0].Change, "loop count") {
			t.Errorf("causes %+v, want one loop count with the values %v", c, want.Values)
		}
		for _, format := range []string{"text", "markdown", "html"} {
			if _, out, _ := runRecomp("explain", "--format", format, dir); !strings.Contains(out, "loop count") || !strings.Contains(out, chain) {
				t.Errorf("explain --format %s does not name the loop count %s", format, chain)
			}
		}
	}
	if want.EveryEpoch == 0 {
		return
	}
	// the cost of an epoch: the compilations of an epoch at the framework's own per-compilation figures
	var secs float64
	for _, cm := range tr.Compiles {
		if cm.Identity == want.Identity { // (programName is the file's: an evaluation in it is another program)
			secs += cm.Seconds
		}
	}
	if got := p.Seconds; math.Abs(got-secs) > max(0.01*secs, 0.002) {
		t.Errorf("%s: compile time %.3f s, the framework's figures sum to %.4f s", want.Identity, got, secs)
	}
	for _, format := range []string{"text", "markdown", "html"} {
		_, out, _ := runRecomp("explain", "--format", format, dir)
		if !strings.Contains(out, "recurs every epoch") || !regexp.MustCompile(`≈ [0-9.]+m?s an epoch`).MatchString(out) {
			t.Errorf("explain --format %s does not say it recurs every epoch, with the cost of an epoch", format)
		}
	}
}

// checkNumber holds the verdict to a Python number baked into the graph: from the log, when the
// program compiled (every every_steps steps, to the end of the run); from the run folder (its
// dump), the number's values over the compilations, one per value the program gave it, and
// the line of the op that took it.
func checkNumber(t *testing.T, dir string, scan report.ScanJSON, tr truth) {
	t.Helper()
	n := tr.PythonNumber
	program := func(v *report.VerdictJSON) *report.ProgramVerdictJSON {
		for i := range v.Programs {
			if programName(v.Programs[i].Program) == programName(n.Identity) {
				return &v.Programs[i]
			}
		}
		t.Fatalf("no verdict of %s: %+v", n.Identity, v.Programs)
		return nil
	}
	p := program(scan.Verdict)
	if c := p.Cadence; c == nil || !slices.Equal(c.Steps, n.CompiledAtSteps) || c.Of != n.Steps || c.Every != n.EverySteps || c.Quiet != 0 {
		t.Errorf("cadence %+v, the program compiled at steps %v of %d, every %d", c, n.CompiledAtSteps, n.Steps, n.EverySteps)
	}
	_, out, _ := runRecomp("explain", "--format", "json", dir)
	var doc report.DiffJSON
	if err := json.Unmarshal([]byte(out), &doc); err != nil || doc.Verdict == nil {
		t.Fatalf("explain %s: %v", dir, err)
	}
	p = program(doc.Verdict)
	if len(p.Causes) != 1 {
		t.Fatalf("causes %+v, want the number alone", p.Causes)
	}
	// The number's values in order, the program's own: where the graph holds values derived from
	// it too (pow's exponent p and its gradient's p - 1), p's. Only an int that an op turns into
	// its argument (triu's diagonal -window - 1) leaves no trace of the program's value: then
	// each value is the program's moved by one offset, the sign turned or not.
	c := p.Causes[0]
	var seen []string // the number's values: one entry of values, with no name
	if len(c.Values) == 1 && c.Values[0].Name == "" {
		seen = c.Values[0].Seen
	}
	values := false
	for _, sign := range []float64{1, -1} {
		exact, moved := len(seen) == len(n.Values), len(seen) == len(n.Values)
		for i := 0; i < len(seen) && exact || i < len(seen) && moved; i++ {
			v, err := strconv.ParseFloat(seen[i], 64)
			exact = exact && err == nil && v == n.Values[i]
			moved = moved && err == nil && n.Values[i] == math.Trunc(n.Values[i]) && sign*v-n.Values[i] == sign*seenAt(seen, 0)-n.Values[0]
		}
		values = values || exact || moved
	}
	if c.Kind != "constant_value" || !values || c.Source != n.Site {
		t.Errorf("cause %+v: want %d values of the number the program set to %v, taken at %s", c, len(n.Values), n.Values, n.Site)
	}
	said := strings.Join(seen, " → ")
	for _, row := range doc.Verdict.CallSites {
		if said != "" && row.Site == n.Identity && row.Example != said {
			t.Errorf("the line %s's example is %q, not the number's values %q", row.Site, row.Example, said)
		}
	}
	if said == "" {
		said = c.Change[strings.Index(c.Change, ": ")+2:]
	}
	for _, want := range []string{said, n.Site, fmt.Sprintf("every %d steps", n.EverySteps)} {
		for _, format := range []string{"text", "markdown", "html"} {
			_, out, _ := runRecomp("explain", "--format", format, dir)
			if !strings.Contains(out, want) {
				t.Errorf("explain --format %s does not say %q", format, want)
			}
		}
	}
}

// seenAt is the i-th value seen as a number (NaN when it is none).
func seenAt(seen []string, i int) float64 {
	v, err := strconv.ParseFloat(seen[i], 64)
	if err != nil {
		return math.NaN()
	}
	return v
}

// checkExplain asserts what explain, with the run's logs, says of the run's dump (or of each
// process's dump with its log): each compilation truth.json lists with causes is compared with
// the dump it names as `against` and named exactly those causes, in recomp's rank order; a
// first compilation is compared with nothing. Of the other pairs, each recompiled program's true
// cause is the only one named, and nothing differs where nothing recompiled.
func checkExplain(t *testing.T, dir string, logs []string, tr truth) {
	type explained struct{ dump, log string }
	var runs []explained
	if _, err := os.Stat(filepath.Join(dir, "dump")); err == nil {
		runs = append(runs, explained{dump: "dump"})
	} else {
		for _, p := range tr.Processes {
			runs = append(runs, explained{dump: p.Dump, log: p.Log})
		}
	}
	causes := tr.Causes
	if causes == nil {
		causes = map[string]string{}
		if tr.Cause != nil {
			for _, n := range tr.Recompiled {
				causes[n] = *tr.Cause
			}
		}
	}
	seen := map[string]bool{}
	for _, run := range runs {
		args := []string{"explain", "--format", "json", filepath.Join(dir, run.dump)}
		if run.log != "" {
			args = append(args, "--log", filepath.Join(dir, run.log))
		} else {
			for _, l := range logs {
				args = append(args, "--log", l)
			}
		}
		code, stdout, stderr := runRecomp(args...)
		var doc report.DiffJSON
		if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
			t.Fatalf("explain exit %d: %v\n%s", code, err, stderr)
		}
		if len(doc.Problems) > 0 {
			t.Errorf("explain could not read %d module(s): %+v", len(doc.Problems), doc.Problems)
		}
		covered := checkCompiles(t, dir, run.dump, doc, tr)
		for _, p := range doc.Pairs {
			fam := p.Family
			for n := range causes {
				if explainedAs(p, n, doc.Families) {
					fam = n
				}
			}
			if covered[p.B] {
				seen[fam] = true
				continue
			}
			want, ok := causes[fam]
			if !ok {
				if !p.Identical {
					t.Errorf("explain compares %s with %s (%s) and finds %v: nothing recompiled there", filepath.Base(p.A), filepath.Base(p.B), p.Family, kinds(p.Causes))
				}
				continue
			}
			seen[fam] = true
			if got := kinds(p.Causes); len(got) != 1 || got[0] != want {
				t.Errorf("%s: %s vs %s: causes %v, want [%s]", fam, filepath.Base(p.A), filepath.Base(p.B), got, want)
			}
		}
		if len(tr.Roles) > 0 {
			checkExplainRoles(t, dir, doc, tr)
		}
		if len(tr.Processes) == 0 {
			if wantCode := map[bool]int{true: 1, false: 0}[len(causes) > 0 && !allIdentical(causes)]; code != wantCode {
				t.Errorf("explain exit %d, want %d", code, wantCode)
			}
		}
	}
	for n := range causes {
		if !seen[n] && len(runs) > 0 && !otherProcess(tr, n) {
			t.Errorf("%s: explain compared none of its dumps", n)
		}
	}
}

// otherProcess says whether every recompilation of a program is compared with another process's
// compilation (a persistent cache's second run): recomp diff's question, not explain's.
func otherProcess(tr truth, name string) bool {
	found := false
	for _, c := range tr.Compiles {
		if len(c.Causes) > 0 && programName(c.Identity) == programName(name) {
			if filepath.Dir(c.Dump) == filepath.Dir(c.Against) {
				return false
			}
			found = true
		}
	}
	return found
}

// rank is recomp's order of causes (diff's rules), the one truth's causes are compared in.
var rank = []string{"dtype", "sharding", "batch_size", "input_shape", "constant_value", "module_config", "layout", "graph_structure", "identical"}

// checkCompiles holds an explanation of the dump folder dumpDir to the truth's compiles of that
// folder, and returns the later dumps of the pairs it checked.
func checkCompiles(t *testing.T, dir, dumpDir string, doc report.DiffJSON, tr truth) map[string]bool {
	covered := map[string]bool{}
	byB := map[string]report.PairJSON{}
	for _, p := range doc.Pairs {
		byB[p.B] = p
	}
	for _, c := range tr.Compiles {
		if filepath.Dir(c.Dump) != dumpDir {
			continue
		}
		b := filepath.Join(dir, c.Dump)
		covered[b] = true
		p, ok := byB[b]
		if len(c.Causes) == 0 {
			if ok {
				t.Errorf("%s, a first compilation, is compared with %s: %v", c.Dump, filepath.Base(p.A), kinds(p.Causes))
			}
			continue
		}
		if filepath.Dir(c.Against) != dumpDir {
			continue // compared with another process's compilation: recomp diff's question
		}
		if !ok {
			t.Errorf("%s (%v against %s) is compared with nothing", c.Dump, c.Causes, c.Against)
			continue
		}
		want := slices.Clone(c.Causes)
		slices.SortStableFunc(want, func(x, y string) int { return slices.Index(rank, x) - slices.Index(rank, y) })
		if got := kinds(p.Causes); !slices.Equal(got, want) {
			t.Errorf("%s vs %s: causes %v, want %v", filepath.Base(p.A), filepath.Base(p.B), got, want)
		}
		against := filepath.Join(dir, c.Against)
		if p.A == against {
			continue
		}
		// Several earlier compilations may differ from this one by exactly its causes (a warm-up
		// of 32, 64 and 128 rows before a 48-row batch): recomp compares with the latest of
		// equally close ones, the truth names one of them.
		_, out, _ := runRecomp("diff", "--format", "json", against, b)
		var d report.DiffJSON
		if err := json.Unmarshal([]byte(out), &d); err != nil || len(d.Pairs) != 1 {
			t.Fatalf("diff %s %s: %v", c.Against, c.Dump, err)
		}
		if got := kinds(d.Pairs[0].Causes); !slices.Equal(got, want) || p.A < against {
			t.Errorf("%s is compared with %s, not with %s (which differs from it by %v, want %v)",
				filepath.Base(b), filepath.Base(p.A), filepath.Base(against), got, want)
		}
	}
	return covered
}

// checkRoles asserts that Keras's train and validation steps are separate families in scan.
func checkRoles(t *testing.T, doc report.ScanJSON, tr truth) {
	family := map[string]string{} // traced function → family
	for _, m := range doc.Modules {
		for _, n := range m.Names {
			family[n] = m.Family
		}
	}
	for _, m := range doc.Modules {
		family[m.Family] = m.Family // a program named apart within its module name (a lambda: jit__lambda [trainer.py:270])
	}
	byRole := map[string]string{}
	for role, r := range tr.Roles {
		for _, fn := range r.Functions {
			f, ok := family[fn]
			switch {
			case !ok:
				t.Errorf("scan: the %s step %s is in no family", role, fn)
			case byRole[role] != "" && byRole[role] != f:
				t.Errorf("scan: the %s step is in families %s and %s", role, byRole[role], f)
			}
			byRole[role] = f
		}
	}
	if byRole["train"] == byRole["validation"] && len(tr.Roles) > 1 {
		t.Errorf("scan: the train and validation steps share the family %s", byRole["train"])
	}
}

// checkLogRoles holds scan of the logs alone (no dump, no probe) to the Keras steps Keras's own
// progress lines tell (its epochs and bars, verbose 1 or 2): each step that compiled again leads
// its verdict line with its role in text, Markdown, HTML and JSON. fit's validation is told where
// no silent evaluate ran the test step besides (the runs' evaluate prints no bar but keras-bars':
// its loop is open); keras-bars's evaluate, with its bar, reads "(validation in fit, and evaluate)".
func checkLogRoles(t *testing.T, logs []string, doc report.ScanJSON, tr truth) {
	progress := false
	for _, l := range logs {
		b, err := os.ReadFile(l)
		if err != nil {
			t.Fatal(err)
		}
		progress = progress || bytes.Contains(b, []byte("/step"))
	}
	if !progress || doc.Verdict == nil {
		return
	}
	_, evaluated := tr.Roles["evaluate"]
	var want []string
	for role, r := range tr.Roles {
		if len(r.Dumps) < 2 {
			continue // compiled once: no verdict line
		}
		switch {
		case role == "train", role == "predict":
			want = append(want, stepName[role])
		case role == "validation" && !evaluated:
			want = append(want, "test step (validation in fit")
		}
	}
	var roles []string
	for _, p := range doc.Verdict.Programs {
		roles = append(roles, p.Role)
	}
	if strings.HasSuffix(filepath.Dir(logs[0]), "keras-bars") && !slices.Contains(roles, "test step (validation in fit, and evaluate)") {
		t.Errorf("scan of the log alone: the test step's evaluate, under its bar, is not named: %q", roles)
	}
	_, text, _ := runRecomp(append([]string{"scan"}, logs...)...)
	_, md, _ := runRecomp(append([]string{"scan", "--format", "markdown"}, logs...)...)
	_, page, _ := runRecomp(append([]string{"scan", "--format", "html"}, logs...)...)
	md = mdUnescape(md)
	for _, w := range want {
		if !slices.ContainsFunc(roles, func(r string) bool { return strings.HasPrefix(r, w) }) {
			t.Errorf("scan of the log alone: no program is the Keras %s (roles %q)", w, roles)
		}
		if !strings.Contains(text, "✗ Keras "+w) || !strings.Contains(md, "Keras "+w) || !strings.Contains(page, html.EscapeString("Keras "+w)) {
			t.Errorf("scan of the log alone: the Keras %s does not lead its line in text, Markdown and HTML:\n%s", w, text)
		}
	}
}

// checkExplainRoles asserts that explain groups each Keras step's dumps, and only them, into a
// family named by its role (the validation step is Keras's test step).
func checkExplainRoles(t *testing.T, dir string, doc report.DiffJSON, tr truth) {
	for role, r := range tr.Roles {
		var want []string
		for _, d := range r.Dumps {
			want = append(want, filepath.Join(dir, d))
		}
		found := false
		for _, f := range doc.Families {
			if slices.Equal(f.Files, want) {
				found = true
				// TF compiles every step under one function name: the role names it apart. Keras on
				// JAX jits each step as a function of its own (jit_train_step): its name is the family.
				// A lambda's program (jit__lambda [trainer.py:270]) takes its role too: its name does not say it.
				want := ""
				if len(r.Functions) == 1 {
					want = r.Functions[0]
					if base, site, ok := strings.Cut(strings.TrimSuffix(want, "]"), " ["); ok {
						want = base + " [" + stepName[role] + ", " + site + "]"
					}
				}
				if tf := strings.HasPrefix(tr.Matrix, "tf-"); tf && !strings.Contains(f.Family, "["+stepName[role]) ||
					!tf && f.Family != want {
					t.Errorf("explain: the %s step's family is %q", role, f.Family)
				}
			}
		}
		if !found {
			t.Errorf("explain: no family holds exactly the %s step's dumps %v (families %v)", role, r.Dumps, familyNames(doc.Families))
		}
	}
	checkVerdictRoles(t, dir, doc, tr)
}

// stepName is the Keras step a truth's role is (fit's validation and evaluate run the test step).
var stepName = map[string]string{"train": "train step", "validation": "test step", "evaluate": "test step", "predict": "predict step"}

// checkVerdictRoles holds the verdict to the steps that compiled again: each Keras step with
// more than one dump is a program of the verdict whose role names the step first (in JSON and
// leading its line in text), and whose action fits its loop: only the train step is told to drop
// its last partial batch; an evaluation or a prediction must not lose samples.
func checkVerdictRoles(t *testing.T, dir string, doc report.DiffJSON, tr truth) {
	if doc.Verdict == nil {
		t.Fatal("explain: no verdict")
	}
	_, text, _ := runRecomp("explain", dir)
	// the run folder as one input (log, dump and, under recomp run's probe, probe.jsonl): the
	// role each format names
	_, folderJSON, _ := runRecomp("explain", "--format", "json", dir)
	var folder report.DiffJSON
	if err := json.Unmarshal([]byte(folderJSON), &folder); err != nil || folder.Verdict == nil {
		t.Fatalf("explain --format json %s: %v", dir, err)
	}
	_, md, _ := runRecomp("explain", "--format", "markdown", dir)
	_, page, _ := runRecomp("explain", "--format", "html", dir)
	md = mdUnescape(md)
	_, probed := os.Stat(filepath.Join(dir, "probe.jsonl"))
	for role, r := range tr.Roles {
		if len(r.Dumps) < 2 {
			continue
		}
		var p, fp *report.ProgramVerdictJSON
		for i := range doc.Verdict.Programs {
			if strings.HasPrefix(doc.Verdict.Programs[i].Role, stepName[role]) {
				p = &doc.Verdict.Programs[i]
			}
		}
		for i := range folder.Verdict.Programs {
			if strings.HasPrefix(folder.Verdict.Programs[i].Role, stepName[role]) {
				fp = &folder.Verdict.Programs[i]
			}
		}
		if p == nil || fp == nil {
			t.Errorf("verdict: no program is the %s step: %+v", role, doc.Verdict.Programs)
			continue
		}
		if fp.FrontEnd != "keras" || !strings.Contains(text, "✗ Keras "+fp.Role+" · ") {
			t.Errorf("verdict: the %s step (%s, front end %q) does not lead its line:\n%s", role, fp.Role, fp.FrontEnd, text)
		}
		if !strings.Contains(md, "Keras "+fp.Role) || !strings.Contains(page, html.EscapeString("Keras "+fp.Role)) {
			t.Errorf("verdict: the %s step's role %q is not in the Markdown or the HTML report", role, fp.Role)
		}
		// the loop that ran the test step, as far as the evidence goes: the probe sees fit's
		// validation as an evaluate inside fit
		_, evaluated := tr.Roles["evaluate"]
		_, validated := tr.Roles["validation"]
		if want := map[[2]bool]string{{true, false}: "test step (validation in fit)", {false, true}: "test step (evaluate)",
			{true, true}: "test step (validation in fit, and evaluate)"}[[2]bool{validated, evaluated}]; probed == nil &&
			stepName[role] == "test step" && fp.Role != want {
			t.Errorf("verdict under the probe: the %s step is %q, want %q", role, fp.Role, want)
		}
		// without the probe, Keras on JAX's dumped stack frames name the loop (fit's validation runs
		// evaluate inside fit); a TF dump does not
		if want := map[string]string{"validation": "validation in fit", "evaluate": "evaluate)"}[role]; want != "" &&
			!strings.HasPrefix(tr.Matrix, "tf-") && !strings.Contains(p.Role, want) {
			t.Errorf("verdict from the log and the dump: the %s step is %q, want it to say %q", role, p.Role, want)
		}
		var causes []string
		for _, c := range tr.Compiles {
			if c.Role == role {
				causes = append(causes, c.Causes...)
			}
		}
		batch := slices.Contains(causes, "batch_size")
		drop := strings.Contains(p.Action, "drop_remainder=True") || strings.Contains(p.Action, "drop its last partial batch")
		if drop != (batch && role == "train") {
			t.Errorf("verdict: the %s step's action says drop the last batch %v: %s", role, drop, p.Action)
		}
		if !strings.HasPrefix(tr.Matrix, "tf-") && tr.Data != "tf.data" && strings.Contains(p.Action, "tf.data") {
			t.Errorf("verdict: the %s step of a program without tf.data is told about tf.data: %s", role, p.Action)
		}
		// a program fed by tf.data, on any backend, is told tf.data's remedy, from the probe's record of its calls
		if fa := fp.Action; probed == nil && tr.Data == "tf.data" && batch && role == "train" && !strings.Contains(fa, "drop_remainder=True") {
			t.Errorf("verdict: the %s step fed by tf.data is not told drop_remainder: %s", role, fa)
		}
		if slices.Contains(causes, "input_shape") && (!strings.Contains(p.Action, "padded_shapes") ||
			!strings.Contains(p.Action, "bucket_by_sequence_length") || strings.Contains(p.Action, "input_signature with None for")) {
			t.Errorf("verdict: the %s step's sequence lengths are not told to pad to fixed lengths: %s", role, p.Action)
		}
	}
}

// programName is how a family is compared with a truth's name: by frameworks.FunctionKey, a program
// that explain labels "FAMILY [inputs]" by its family, an auto-clustering cluster by its
// group (the truth may name it cluster_N).
func programName(family string) string {
	family, _, _ = strings.Cut(family, " [")
	k := frameworks.FunctionKey(family)
	if strings.HasPrefix(k, "tf cluster ") || strings.HasPrefix(family, "cluster_N") {
		return "tf cluster"
	}
	return k
}

// explainedAs says whether a pair belongs to the program a truth names: by family, or (for a
// program explain grouped by the log's identity) by the family entry that lists its files.
func explainedAs(p report.PairJSON, name string, fams []report.FamilyJSON) bool {
	if programName(p.Family) == programName(name) {
		return true
	}
	for _, f := range fams {
		if programName(f.Family) == programName(name) && slices.Contains(f.Files, p.B) {
			return true
		}
	}
	return false
}

func allIdentical(causes map[string]string) bool {
	for _, c := range causes {
		if c != "identical" {
			return false
		}
	}
	return true
}

func kinds(cs []report.CauseJSON) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Kind)
	}
	return out
}

func familyNames(fs []report.FamilyJSON) []string {
	var out []string
	for _, f := range fs {
		out = append(out, fmt.Sprintf("%s(%d)", f.Family, len(f.Files)))
	}
	return out
}

// checkCost holds recomp's compile time to the framework's own per-compilation figures: the
// total over the logs, and each identity's that truth.json lists every compilation of, within
// 1% (2 ms for the millisecond rounding of small totals).
func checkCost(t *testing.T, doc report.ScanJSON, tr truth) {
	t.Helper()
	near := func(got, want float64) bool { return math.Abs(got-want) <= max(0.01*want, 0.002) }
	if tr.CompileSeconds != nil && !near(doc.Summary.CompileSeconds, *tr.CompileSeconds) {
		t.Errorf("compile time %.3f s, the framework's own per-compilation figures sum to %.4f s", doc.Summary.CompileSeconds, *tr.CompileSeconds)
	}
	want := map[string]float64{}
	for _, c := range tr.Compiles {
		if c.Seconds > 0 && len(tr.Processes) == 0 {
			want[programName(c.Identity)] += c.Seconds
		}
	}
	for id, w := range want {
		got := 0.0
		for _, m := range doc.Modules {
			if programName(m.Family) == id {
				got += m.CompileSeconds
			}
		}
		if !near(got, w) {
			t.Errorf("%s: compile time %.3f s, the framework's figures of its compilations sum to %.4f s", id, got, w)
		}
	}
}

// checkCacheMiss asserts that recomp diff of the two runs says why run 2 missed run 1's cache,
// with the reason the scenario built it for: the graph differs by the cause the program knows
// it introduced; the key changed outside the graph by the XLA flags run 2 added (named flag by
// flag); run 1 never wrote the entry, quoting JAX's own line where it said so.
func checkCacheMiss(t *testing.T, dir string, tr truth) {
	cm := tr.CacheMiss
	var a, b *truthProcess
	for i := range tr.Processes {
		if tr.Processes[i].Log == cm.Log {
			b = &tr.Processes[i]
		} else if a == nil {
			a = &tr.Processes[i]
		}
	}
	if a == nil || b == nil {
		t.Fatalf("cache_miss: no processes for %s in %+v", cm.Log, tr.Processes)
	}
	args := []string{"diff", "--format", "json", "--log-a", filepath.Join(dir, a.Log), "--log-b", filepath.Join(dir, b.Log)}
	if st, err := os.Stat(filepath.Join(dir, "cache")); err == nil && st.IsDir() {
		args = append(args, "--cache", filepath.Join(dir, "cache"))
	}
	args = append(args, filepath.Join(dir, a.Dump), filepath.Join(dir, b.Dump))
	code, stdout, stderr := runRecomp(args...)
	var doc report.RunsDiffJSON
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatalf("diff of the runs: exit %d: %v\n%s", code, err, stderr)
	}
	if code != 1 {
		t.Errorf("diff of the runs: exit %d, want 1 (run 2 compiled)", code)
	}
	if doc.Summary.Served != tr.Evidence.CacheHits {
		t.Errorf("diff of the runs: %d served from the cache, JAX counted %d hits", doc.Summary.Served, tr.Evidence.CacheHits)
	}
	var missed []report.ProgramJSON
	for _, p := range doc.Programs {
		if !p.Served && programName(p.Program) == programName(cm.Identity) {
			missed = append(missed, p)
		}
	}
	if len(missed) != 1 {
		t.Fatalf("diff of the runs: %d missed requests of %s, want 1: %+v", len(missed), cm.Identity, doc.Programs)
	}
	p := missed[0]
	if p.Reason != cm.Reason {
		t.Errorf("diff of the runs: %s missed for %q (%s), the run was built for %q (%s)", cm.Identity, p.Reason, p.Summary, cm.Reason, cm.Changed)
	}
	switch cm.Reason {
	case "graph_differs":
		var want []string
		for _, c := range tr.Compiles {
			if c.Log == cm.Log && programName(c.Identity) == programName(cm.Identity) {
				want = c.Causes
			}
		}
		if p.Cause == nil || len(want) == 0 || p.Cause.Kind != want[0] || p.CauseFrom != "dump" {
			t.Errorf("diff of the runs: cause %+v from %q, the program changed %v", p.Cause, p.CauseFrom, want)
		}
	case "key_changed_outside_graph":
		if strings.HasPrefix(tr.Matrix, "torch-xla") {
			// PyTorch/XLA logs no part of its key and these runs have no manifest: recomp can say
			// from the dumps that the graph is the same, and name what else torch_xla hashes.
			if p.Component != "" || !strings.Contains(p.Summary, "dumps compared") || !strings.Contains(p.Summary, "XLA_FLAGS") ||
				strings.Contains(p.Summary+p.Advice, "JAX") {
				t.Errorf("diff of the runs: component %q, summary %q, advice %q", p.Component, p.Summary, p.Advice)
			}
			break
		}
		added := xlaFlagsAdded(a.Env["XLA_FLAGS"], b.Env["XLA_FLAGS"])
		if len(added) == 0 {
			t.Fatalf("the truth's processes add no XLA flag: %+v", tr.Processes)
		}
		if !strings.Contains(p.Component, "XLA flags") {
			t.Errorf("diff of the runs: component %q, want the XLA flags", p.Component)
		}
		for _, f := range added {
			if !slices.ContainsFunc(p.Changed, func(c string) bool { return strings.Contains(c, f) && strings.Contains(c, "added") }) {
				t.Errorf("diff of the runs: changed %q does not name the added flag %s", p.Changed, f)
			}
		}
	case "never_written":
		q := p.Quote
		if q == nil || filepath.Base(q.File) != cm.QuoteLog || q.Line == 0 {
			t.Fatalf("diff of the runs: quote %+v, want a line of %s", q, cm.QuoteLog)
		}
		line := logLine(t, q.File, q.Line)
		if strings.TrimSpace(line) != cm.Quote || !strings.HasSuffix(cm.Quote, q.Text) || !strings.HasPrefix(q.Text, "Not writing") {
			t.Errorf("diff of the runs: quotes %q at %s:%d (%q), JAX said %q", q.Text, q.File, q.Line, line, cm.Quote)
		}
	}
}

// checkVerdict holds the verdict to the user's lines and the sizes: each recompiled identity's
// call sites are among the lines the verdict ranks (a TF log names no line: the probe of recomp
// run does), and a spread of sizes gets the sizes it compiled and the one size that covers them.
func checkVerdict(t *testing.T, dir string, doc report.ScanJSON, tr truth) {
	t.Helper()
	v := doc.Verdict
	if v == nil {
		t.Fatal("scan wrote no verdict")
	}
	if tr.Spread != nil && strings.HasPrefix(tr.Matrix, "tf-") {
		// a TF log names no argument shapes recomp reads: the sizes come from the run's dump
		_, out, _ := runRecomp("explain", "--format", "json", dir)
		var d report.DiffJSON
		if err := json.Unmarshal([]byte(out), &d); err != nil || d.Verdict == nil {
			t.Fatalf("explain %s: %v", dir, err)
		}
		v = d.Verdict
	}
	tf := tr.Matrix != "" && strings.HasPrefix(tr.Matrix, "tf-") // a TF log alone names no line of the program's own (TestLiveRecompRun checks the probe's)
	for id, sites := range tr.CallSites {
		if tf {
			break
		}
		for _, want := range sites {
			found := false
			for _, s := range v.CallSites {
				found = found || strings.HasPrefix(filepath.Base(strings.SplitN(s.Site, " (", 2)[0]), want)
			}
			if !found {
				t.Errorf("%s: the call site %s is not among the verdict's lines %+v", id, want, v.CallSites)
			}
		}
	}
	if sp := tr.Spread; sp != nil {
		var p *report.ProgramVerdictJSON
		for i := range v.Programs {
			if programName(v.Programs[i].Program) == programName(sp.Identity) {
				p = &v.Programs[i]
			}
		}
		if p == nil || p.Sizes == nil {
			t.Fatalf("no sizes to pad %s to: %+v", sp.Identity, v.Programs)
		}
		seen := slices.Clone(p.Sizes.Seen)
		slices.Sort(seen)
		if !slices.Equal(slices.Compact(seen), sp.Compiled) {
			t.Errorf("sizes compiled %v, the program fed and compiled %v", seen, sp.Compiled)
		}
		// the one size that covers them all, or a bucket set whose largest bucket it is
		if !strings.Contains(p.Action, fmt.Sprintf(" to %d", sp.PadTo)) && !regexp.MustCompile(fmt.Sprintf(` to [\d, ]*, %d \(`, sp.PadTo)).MatchString(p.Action) {
			t.Errorf("the action does not pad to %d: %s", sp.PadTo, p.Action)
		}
	}
}

// xlaFlagsAdded are the flags of b's XLA_FLAGS that a's lacks, less the dump flags (JAX leaves
// them out of its cache keys).
func xlaFlagsAdded(a, b string) []string {
	var out []string
	for _, f := range strings.Fields(b) {
		if !strings.HasPrefix(f, "--xla_dump") && !slices.Contains(strings.Fields(a), f) {
			out = append(out, f)
		}
	}
	return out
}

func logLine(t *testing.T, path string, n int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	if n < 1 || n > len(lines) {
		t.Fatalf("%s has no line %d", path, n)
	}
	return lines[n-1]
}

// checkRanks asserts that recomp ranks finds the rank that diverged, at its step, with the
// program and cause the scenario built (from the ranks' dumps, and from the logs alone), and that
// guard --ranks-consistent fails on it.
func checkRanks(t *testing.T, dir string, tr truth) {
	var logs []string
	for _, l := range tr.Ranks.Logs {
		logs = append(logs, filepath.Join(dir, l))
	}
	inputs := [][]string{{dir}, logs} // the folder (its rank logs and dump-rankN folders), the logs alone
	if tr.Ranks.Tagged != "" {
		inputs = append(inputs, []string{filepath.Join(dir, tr.Ranks.Tagged)}, []string{"scan", filepath.Join(dir, tr.Ranks.Tagged)})
	}
	for i, in := range inputs {
		withDumps := i == 0
		args := []string{"ranks", "--format", "json"}
		if in[0] == "scan" { // a launcher's tagged log, scanned: the scan's ranks
			args, in = []string{"scan", "--format", "json"}, in[1:]
		}
		code, stdout, stderr := runRecomp(append(args, in...)...)
		var doc report.RanksJSON
		if args[0] == "scan" {
			var sc report.ScanJSON
			if err := json.Unmarshal([]byte(stdout), &sc); err != nil || sc.Ranks == nil {
				t.Fatalf("scan %v: exit %d: %v\n%s", in, code, err, stderr)
			}
			doc, code = *sc.Ranks, map[bool]int{true: 0, false: 1}[sc.Ranks.Consistent]
		} else if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
			t.Fatalf("ranks: exit %d: %v\n%s", code, err, stderr)
		}
		if len(doc.Ranks) != tr.Ranks.Processes {
			t.Errorf("ranks: %d ranks, the job had %d processes", len(doc.Ranks), tr.Ranks.Processes)
		}
		if wantCode := map[bool]int{true: 1, false: 0}[len(tr.Ranks.Diverged) > 0]; code != wantCode || doc.Consistent == (wantCode == 1) {
			t.Errorf("ranks: exit %d, consistent %v, want exit %d", code, doc.Consistent, wantCode)
		}
		if len(doc.Divergences) != len(tr.Ranks.Diverged) {
			t.Errorf("ranks: %d divergences, want %d: %+v", len(doc.Divergences), len(tr.Ranks.Diverged), doc.Divergences)
		}
		for _, want := range tr.Ranks.Diverged {
			found := false
			for _, d := range doc.Divergences {
				if d.Rank != strconv.Itoa(want.Rank) {
					continue
				}
				found = true
				from := map[bool]string{true: "dump", false: "signature"}[withDumps]
				if len(want.Causes) == 0 { // a program only this rank runs: no cause against the others'
					if d.Step == nil || *d.Step != want.Step || programName(d.Program) != programName(want.Identity) || !d.Compiled ||
						d.Cause != nil || d.Kind != "extra_compilation" {
						t.Errorf("ranks %v: rank %d diverged %+v, want step %d, %s compiled, no cause", in, want.Rank, d, want.Step, want.Identity)
					}
					continue
				}
				if d.Step == nil || *d.Step != want.Step || programName(d.Program) != programName(want.Identity) || !d.Compiled ||
					d.Cause == nil || d.Cause.Kind != want.Causes[0] || d.CauseFrom != from {
					t.Errorf("ranks (dumps %v): rank %d diverged %+v (cause %+v), want step %d, %s compiled, cause %s from the %s",
						withDumps, want.Rank, d, d.Cause, want.Step, want.Identity, want.Causes[0], from)
				}
			}
			if !found {
				t.Errorf("ranks (dumps %v): rank %d's divergence not found: %+v", withDumps, want.Rank, doc.Divergences)
			}
		}
	}
	code, stdout, _ := runRecomp("guard", "--format", "json", "--ranks-consistent", dir)
	var g report.ScanJSON
	if err := json.Unmarshal([]byte(stdout), &g); err != nil || g.Gate == nil || g.Ranks == nil {
		t.Fatalf("guard --ranks-consistent: exit %d: %v\n%s", code, err, stdout)
	}
	n := 0
	for _, f := range g.Gate.Failures {
		if f.Kind == string(gate.FailDivergence) {
			n++
		}
	}
	if code != 1 || n != len(tr.Ranks.Diverged) {
		t.Errorf("guard --ranks-consistent: exit %d, %d divergence failures, want 1 and %d", code, n, len(tr.Ranks.Diverged))
	}
}

var reShape = regexp.MustCompile(`[a-z]+[0-9]*\[[0-9,]*\]`)

// checkUncovered asserts that guard --covered-by, on the log split at the scenario's marker,
// fails on exactly the run-time compilations the warm-up did not compile, with their shapes,
// steps and causes, and counts each warm-up shape as a variant.
func checkUncovered(t *testing.T, dir string, tr truth) {
	u := tr.Uncovered
	log := filepath.Join(dir, u.Log)
	code, stdout, stderr := runRecomp("guard", "--format", "json", "--after", regexp.QuoteMeta(u.Marker), "--covered-by", log)
	var g report.ScanJSON
	if err := json.Unmarshal([]byte(stdout), &g); err != nil || g.Coverage == nil {
		t.Fatalf("guard --covered-by: exit %d: %v\n%s%s", code, err, stdout, stderr)
	}
	c := g.Coverage
	if wantCode := map[bool]int{true: 1, false: 0}[len(u.Shapes) > 0]; code != wantCode {
		t.Errorf("guard --covered-by: exit %d, want %d", code, wantCode)
	}
	if len(c.Uncovered) != len(u.Shapes) || c.Runtime < len(u.Shapes) || c.Covered != c.Runtime-len(c.Uncovered) || c.By != "signature" {
		t.Errorf("guard --covered-by: %d of %d covered (by %s), uncovered %+v; want uncovered %+v", c.Covered, c.Runtime, c.By, c.Uncovered, u.Shapes)
	}
	for i, want := range u.Shapes {
		if i >= len(c.Uncovered) {
			break
		}
		got := c.Uncovered[i]
		var causes []string
		for _, cp := range tr.Compiles {
			if cp.Input == want.Input && programName(cp.Identity) == programName(want.Identity) {
				causes = cp.Causes
			}
		}
		if programName(got.Program) != programName(want.Identity) || got.Step == nil || *got.Step != want.Step ||
			got.Cause == nil || len(causes) == 0 || got.Cause.Kind != causes[0] || got.Nearest == nil {
			t.Errorf("uncovered %d: %+v (cause %+v), want %s %s at step %d, cause %v", i, got, got.Cause, want.Identity, want.Input, want.Step, causes)
		}
		for _, shape := range reShape.FindAllString(want.Input, -1) {
			if !strings.Contains(got.Args, shape) {
				t.Errorf("uncovered %d: arguments %q lack %s (%s)", i, got.Args, shape, want.Input)
			}
		}
	}
	for _, w := range u.Warmed {
		if !slices.ContainsFunc(c.Variants, func(v report.VariantJSON) bool {
			for _, shape := range reShape.FindAllString(w, -1) {
				if !strings.Contains(v.Args, shape) {
					return false
				}
			}
			return true
		}) {
			t.Errorf("no warm-up variant has %s: %+v", w, c.Variants)
		}
	}
	if len(c.Variants) != len(u.Warmed) {
		t.Errorf("%d warm-up variants, the warm-up compiled %d shapes", len(c.Variants), len(u.Warmed))
	}
}

// truthSilenced says which setting of the user's switched the stack's compile logging off, and
// where the evidence of the run's compilations is instead.
type truthSilenced struct {
	Setting  string   `json:"setting"`
	Evidence []string `json:"evidence"`
}

// checkSilenced holds a run whose compile logging the user switched off to its evidence: its log
// alone cannot pass the gate (inconclusive, exit 2); the run folder (log, probe's records, dump)
// is judged as a log with the records would be, --allow-no-evidence changes nothing of that, and
// the report says the stack was judged on the probe's records.
func checkSilenced(t *testing.T, dir string, logs []string, tr truth) {
	t.Helper()
	if code, out, _ := runRecomp(append([]string{"guard"}, logs...)...); code != exitUsage || !strings.Contains(out, "inconclusive") {
		t.Errorf("guard on the log alone (its compile logging off): exit %d, want %d, inconclusive:\n%s", code, exitUsage, out)
	}
	want := map[bool]int{true: exitFound, false: exitOK}[tr.GuardFails]
	for _, args := range [][]string{{"guard", dir}, {"guard", "--allow-no-evidence", dir}} {
		if code, out, _ := runRecomp(args...); code != want {
			t.Errorf("%s: exit %d, want %d:\n%s", strings.Join(args, " "), code, want, out)
		}
	}
	_, out, _ := runRecomp("scan", "--format", "json", dir)
	var doc report.ScanJSON
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("scan %s: %v", dir, err)
	}
	said := false
	for _, f := range doc.Findings {
		said = said || f.Kind == "compile_logging_off" && strings.Contains(f.Message, "judged on the probe's") && strings.Contains(f.Message, "the dump")
	}
	if !said {
		t.Errorf("scan %s does not say the stack was judged on the probe's records and the dump: %+v", dir, doc.Findings)
	}
}
