package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/recomp/recomp/report"
)

// The example runs under testdata/runs were made by testdata/runs/gen/scenarios.py with real
// JAX and TensorFlow. Each was built to recompile for one reason; these tests hold recomp to
// naming it, on the committed runs and (when the frameworks are installed) on fresh ones.

type runExpect struct {
	name         string
	logs         []string
	compilations int
	hits, misses int
	writes       int
	retraces     int
	findings     []string // finding kinds, sorted
	cause        string   // the first cause of every consecutive pair of dumps ("" = one dump)
	reason       string   // a substring of the framework's own explanation, when it gives one
	onlyCause    bool     // cause is the only cause of every pair
}

var runExpects = []runExpect{
	// The mean's 1/128 → 1/96 follows the batch size: not a constant_value cause of its own.
	{name: "jax-partial-batch", compilations: 2, retraces: 2, findings: []string{"recompiled"}, cause: "batch_size",
		reason: "at x, now f32[24,8] and before f32[32,8]", onlyCause: true},
	{name: "jax-closed-constant", compilations: 2, retraces: 2, findings: []string{"recompiled"}, cause: "constant_value",
		reason: "maybe the function is"},
	{name: "jax-dtype", compilations: 2, retraces: 2, findings: []string{"recompiled"}, cause: "dtype",
		reason: "now bf16[32,8] and before f32[32,8]"},
	{name: "jax-static-arg", compilations: 2, retraces: 2, findings: []string{"recompiled"}, cause: "graph_structure",
		reason: "inner_steps"},
	{name: "jax-redefined", compilations: 3, retraces: 3, findings: []string{"recompiled"}, cause: "identical",
		reason: "being re-defined repeatedly"},
	{name: "jax-persistent-cache", logs: []string{"run1.log"}, compilations: 1, misses: 1, writes: 1, retraces: 1,
		findings: []string{}},
	{name: "jax-persistent-cache", logs: []string{"run2.log"}, compilations: 0, hits: 1, retraces: 1, findings: []string{}},
	{name: "jax-persistent-cache", logs: []string{"run1.log", "run2.log"}, compilations: 1, hits: 1, misses: 1, writes: 1,
		retraces: 2, findings: []string{}},
	{name: "tf-varying-shapes", compilations: 6, retraces: 2, findings: []string{"frequent_retracing", "recompiled"},
		cause: "batch_size", onlyCause: true},
	{name: "tf-python-scalar", compilations: 6, retraces: 2, findings: []string{"frequent_retracing", "recompiled"},
		cause: "constant_value", onlyCause: true},
	{name: "tf-fixed", compilations: 1, findings: []string{}},
}

func TestCommittedRuns(t *testing.T) {
	checkRuns(t, "../../testdata/runs")
}

// TestLiveRuns regenerates the runs with the installed frameworks and asserts the same. The
// Python comes from RECOMP_PYTHON (.ci/run sets it to its virtual environment); without one
// that imports jax and tensorflow, the test skips and says why.
func TestLiveRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: not regenerating the runs")
	}
	py := os.Getenv("RECOMP_PYTHON")
	if py == "" {
		t.Skip("RECOMP_PYTHON is not set: not regenerating the runs with JAX and TensorFlow (.ci/run sets it)")
	}
	if out, err := exec.Command(py, "-c", "import jax, tensorflow").CombinedOutput(); err != nil {
		t.Skipf("%s cannot import jax and tensorflow: %v\n%s", py, err, out)
	}
	out := t.TempDir()
	gen, _ := filepath.Abs("../../testdata/runs/gen/scenarios.py")
	cmd := exec.Command(py, gen, "--out", out)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("scenarios.py: %v\n%s", err, b)
	}
	checkRuns(t, out)
}

func checkRuns(t *testing.T, root string) {
	for _, x := range runExpects {
		logs := x.logs
		if logs == nil {
			logs = []string{"run.log"}
		}
		t.Run(x.name+"/"+strings.Join(logs, "+"), func(t *testing.T) {
			dir := filepath.Join(root, x.name)
			var args []string
			for _, l := range logs {
				args = append(args, filepath.Join(dir, l))
			}
			code, stdout, stderr := runRecomp(append([]string{"scan", "--format", "json"}, args...)...)
			if code != 0 {
				t.Fatalf("scan exit %d: %s", code, stderr)
			}
			var doc report.ScanJSON
			if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
				t.Fatal(err)
			}
			s := doc.Summary
			got := []int{s.Compilations, s.CacheHits, s.CacheMisses, s.CacheWrites, s.Retraces}
			want := []int{x.compilations, x.hits, x.misses, x.writes, x.retraces}
			if !slices.Equal(got, want) {
				t.Errorf("compilations, hits, misses, writes, retraces = %v, want %v", got, want)
			}
			kinds := []string{}
			for _, f := range doc.Findings {
				kinds = append(kinds, f.Kind)
			}
			sort.Strings(kinds)
			if !slices.Equal(kinds, x.findings) {
				t.Errorf("findings %v, want %v", kinds, x.findings)
			}
			if x.reason != "" {
				found := false
				for _, m := range doc.Modules {
					for _, r := range m.Reasons {
						found = found || strings.Contains(r, x.reason)
					}
				}
				if !found {
					t.Errorf("no module reason carries %q: %+v", x.reason, doc.Modules)
				}
				for _, f := range doc.Findings {
					if !strings.Contains(f.Message, "said: ") {
						t.Errorf("finding %s does not quote the framework's reason: %s", f.Kind, f.Message)
					}
				}
			}
			if strings.HasPrefix(x.name, "jax-") && x.compilations > 1 {
				if n := len(doc.Modules[0].Signatures); n == 0 {
					t.Errorf("no argument signatures for %s", doc.Modules[0].Family)
				}
			}
			if x.cause != "" {
				checkExplain(t, filepath.Join(dir, "dump"), args[0], x.cause, x.onlyCause, x.compilations)
			}
		})
	}
}

// checkExplain asserts that explain names cause first for every consecutive pair of the dump,
// that it links the dump's family with the log's compilations, and that diff of the first two
// files agrees.
func checkExplain(t *testing.T, dump, log, cause string, only bool, compilations int) {
	t.Helper()
	code, stdout, stderr := runRecomp("explain", "--format", "json", dump, "--log", log)
	if code != 1 && !(code == 0 && cause == "identical") {
		t.Fatalf("explain exit %d: %s", code, stderr)
	}
	var doc report.DiffJSON
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Pairs) == 0 {
		t.Fatalf("explain compared no pairs")
	}
	if len(doc.Families) != 1 || doc.Families[0].LogCompilations != compilations {
		t.Errorf("families %+v: want one, compiled %d times in the log", doc.Families, compilations)
	}
	for _, p := range doc.Pairs {
		if len(p.Causes) == 0 || p.Causes[0].Kind != cause || (only && len(p.Causes) != 1) {
			t.Errorf("%s vs %s: causes %+v, want %s first (only: %v)", p.A, p.B, p.Causes, cause, only)
		}
	}
	files, _ := filepath.Glob(filepath.Join(dump, "*.before_optimizations.txt"))
	sort.Strings(files)
	_, stdout, stderr = runRecomp("diff", "--format", "json", files[0], files[1])
	var d report.DiffJSON
	if err := json.Unmarshal([]byte(stdout), &d); err != nil {
		t.Fatalf("diff: %v (%s)", err, stderr)
	}
	if len(d.Pairs) != 1 || len(d.Pairs[0].Causes) == 0 || d.Pairs[0].Causes[0].Kind != cause {
		t.Errorf("diff %s %s: %+v, want cause %s", files[0], files[1], d.Pairs, cause)
	}
}

// The JAX cache folder the persistent-cache run left: run 2 was served from it.
func TestCommittedJAXCache(t *testing.T) {
	dir := "../../testdata/runs/jax-persistent-cache"
	code, stdout, stderr := runRecomp("cache", "--format", "json", dir+"/cache", "--log", dir+"/run1.log", "--log", dir+"/run2.log")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var doc report.CacheJSON
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Entries != 1 || doc.ByKind["jax"] != 1 || doc.UnusedEntries != 0 || len(doc.MissingMisses) != 0 ||
		len(doc.Listed) != 1 || doc.Listed[0].Status != "hit" {
		t.Errorf("%+v", doc)
	}
}

// guard on a real JAX run fails on the recompilation and carries JAX's own reason.
func TestGuardOnJAXRun(t *testing.T) {
	code, stdout, _ := runRecomp("guard", "--format", "json", "../../testdata/runs/jax-partial-batch/run.log")
	var doc report.ScanJSON
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatal(err)
	}
	if code != 1 || doc.Gate == nil || doc.Gate.Passed || len(doc.Gate.Failures) != 1 ||
		!strings.Contains(doc.Gate.Failures[0].Reason, "jax said: different input types: * at x, now f32[24,8] and before f32[32,8]") {
		t.Errorf("exit %d, gate %+v", code, doc.Gate)
	}
	if code, _, _ := runRecomp("guard", "../../testdata/runs/tf-fixed/run.log"); code != 0 {
		t.Errorf("tf-fixed: guard exit %d, want 0", code)
	}
}

// The outputs README.md shows are the outputs these commands print.
func TestREADMEExamples(t *testing.T) {
	t.Chdir("../..")
	t.Setenv("NO_COLOR", "1")
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"scan", "testdata/runs/ipu-partial-batch/run.log"},
		{"explain", "testdata/runs/ipu-partial-batch/dump", "--log", "testdata/runs/ipu-partial-batch/run.log"},
		{"scan", "testdata/runs/jax-partial-batch/run.log"},
		{"explain", "testdata/runs/jax-partial-batch/dump", "--log", "testdata/runs/jax-partial-batch/run.log"},
	} {
		_, stdout, stderr := runRecomp(args...)
		if stdout == "" || !strings.Contains(string(readme), "```text\n"+stdout+"```") {
			t.Errorf("README.md does not show the output of recomp %s:\n%s%s", strings.Join(args, " "), stdout, stderr)
		}
	}
}
