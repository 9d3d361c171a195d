package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/recomp/recomp/frameworks"
	"github.com/recomp/recomp/report"
)

// The runs under testdata/runs/<matrix>/<scenario> are real programs run with real JAX,
// TensorFlow/Keras and PyTorch/XLA versions (testdata/runs/gen). Each truth.json says what
// the run really did, counted by the program through the framework's own API, and what recomp
// must say about it. These tests hold recomp to it, on the committed runs and, when the
// frameworks are installed (RECOMP_LIVE_<MATRIX> names a Python that has them), on fresh ones.

type truth struct {
	Matrix      string            `json:"matrix"`
	Scenario    string            `json:"scenario"`
	Description string            `json:"description"`
	Logs        []string          `json:"logs"`
	Evidence    truthEvidence     `json:"evidence"`
	Recompiled  []string          `json:"recompiled"`
	NotRecomp   []string          `json:"not_recompiled"`
	GuardFails  bool              `json:"guard_fails"`
	Cause       *string           `json:"cause"`
	Causes      map[string]string `json:"causes"`
	Reason      string            `json:"reason"`
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
				t.Skipf("SKIP LOUDLY: %s is not set: the %s runs are not regenerated (.ci/run sets it when the venv of %s installs)", env, m[0], m[1])
			}
			out := t.TempDir()
			gen, _ := filepath.Abs("../../testdata/runs/gen/" + m[2])
			cmd := exec.Command(py, gen, "--out", out)
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
		if compiled < 2 || again {
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
	gcode, gout, _ := runRecomp(append([]string{"guard"}, logs...)...)
	if wantCode := map[bool]int{true: 1, false: 0}[tr.GuardFails]; gcode != wantCode {
		t.Errorf("guard exit %d, want %d:\n%s", gcode, wantCode, gout)
	}
	checkExplain(t, dir, logs, tr)
}

// checkExplain asserts that explain, with the run's logs, names each recompiled program's true
// cause first and no other cause, and finds no recompilation where there is none.
func checkExplain(t *testing.T, dir string, logs []string, tr truth) {
	dump := filepath.Join(dir, "dump")
	if _, err := os.Stat(dump); err != nil {
		return
	}
	args := []string{"explain", "--format", "json", dump}
	for _, l := range logs {
		args = append(args, "--log", l)
	}
	code, stdout, stderr := runRecomp(args...)
	var doc report.DiffJSON
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatalf("explain exit %d: %v\n%s", code, err, stderr)
	}
	if len(doc.Problems) > 0 {
		t.Errorf("explain could not read %d module(s): %+v", len(doc.Problems), doc.Problems)
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
	for _, p := range doc.Pairs {
		fam := p.Family
		for n := range causes {
			if explainedAs(p, n, doc.Families) {
				fam = n
			}
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
	for n := range causes {
		if !seen[n] {
			t.Errorf("%s: explain compared none of its dumps (families %v)", n, familyNames(doc.Families))
		}
	}
	if wantCode := map[bool]int{true: 1, false: 0}[len(causes) > 0 && !allIdentical(causes)]; code != wantCode {
		t.Errorf("explain exit %d, want %d", code, wantCode)
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
