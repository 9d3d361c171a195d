package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recomp/recomp/report"
	"github.com/recomp/recomp/runfolder"
)

// stoppedLog is run.log of a JAX program recomp stopped at its compilation after warm-up (line
// 4), then the KeyboardInterrupt traceback the stop made it print, through JAX's compile path.
const stoppedLog = `2026-12-02T00:52:40.100000000Z WARNING:jax._src.dispatch:Finished XLA compilation of jit(step) in 0.300000000 sec
2026-12-02T00:52:41.000000000Z step 0
2026-12-02T00:52:43.000000000Z WARNING:jax._src.pjit:TRACING CACHE MISS at /tmp/lead/stop.py:12:8 (<module>):
2026-12-02T00:52:43.000000000Z   for step defined at /tmp/lead/stop.py:5
2026-12-02T00:52:43.000000000Z   all previously seen cache keys differ. For the closest previous key:
2026-12-02T00:52:43.000000000Z   different input types:
2026-12-02T00:52:43.000000000Z   * at x, now f32[24,64] and before f32[32,64]
2026-12-02T00:52:43.300000000Z WARNING:jax._src.dispatch:Finished XLA compilation of jit(step) in 0.289312124 sec
2026-12-02T00:52:43.323149662Z Traceback (most recent call last):
2026-12-02T00:52:43.323149662Z   File "/tmp/lead/stop.py", line 12, in <module>
2026-12-02T00:52:43.323314967Z     w = step(w, np.ones((n, 64), np.float32))
2026-12-02T00:52:43.323568257Z   File "/v/lib/python3.12/site-packages/jax/_src/pjit.py", line 272, in cache_miss
2026-12-02T00:52:43.323642229Z     executable, pgle_profiler, const_args) = _run_python_pjit(
2026-12-02T00:52:43.323714911Z   File "/v/lib/python3.12/site-packages/jax/_src/pjit.py", line 149, in _run_python_pjit
2026-12-02T00:52:43.323735611Z     out_flat, compiled, profiler, const_args = _pjit_call_impl_python(
2026-12-02T00:52:43.323783747Z   File "/v/lib/python3.12/site-packages/jax/_src/pjit.py", line 1172, in _pjit_call_impl_python
2026-12-02T00:52:43.323987542Z     return (compiled.unsafe_call(*sharded_const_args, *args),
2026-12-02T00:52:43.324010358Z KeyboardInterrupt
`

// TestStoppedRunJudgedBeforeTheStop: a run recomp stopped is judged on what its log held when
// recomp decided to stop it (manifest stopped_line): the traceback the stop caused is no compile
// record recomp could not read, and guard fails on the recompilation, never "incomplete".
func TestStoppedRunJudgedBeforeTheStop(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, runfolder.LogName), []byte(stoppedLog), 0o644); err != nil {
		t.Fatal(err)
	}
	m := &runfolder.Manifest{Version: 1, Command: []string{"python", "stop.py"}, ExitCode: 130, Signal: "interrupt",
		Stopped: "jit_step compiled after warm-up at stop.py:12 (<module>)", StoppedLine: 8}
	if err := runfolder.WriteManifest(dir, m); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"guard", dir}, {"scan", dir}} {
		code, out, stderr := runIn(t, "", args...)
		if args[0] == "guard" && code != exitFound {
			t.Errorf("guard exit %d, want %d (a recompilation after warm-up):\n%s%s", code, exitFound, out, stderr)
		}
		for _, bad := range []string{"could not read", "incomplete", "inconclusive"} {
			if strings.Contains(out, bad) {
				t.Errorf("%s says %q of the stop's traceback:\n%s", args[0], bad, out)
			}
		}
		if !strings.Contains(out, "jit_step compiled 2×") {
			t.Errorf("%s does not name the recompilation:\n%s", args[0], out)
		}
	}
	// The same log without the stop's line: the traceback reads as a record recomp could not
	// read (what the stop line is for).
	m.StoppedLine = 0
	if err := runfolder.WriteManifest(dir, m); err != nil {
		t.Fatal(err)
	}
	if _, out, _ := runIn(t, "", "scan", dir); !strings.Contains(out, "could not read") {
		t.Errorf("without stopped_line the traceback is not read as a compile record: the test shows nothing\n%s", out)
	}
}

// truthStopped is where recomp run's stop found a program, by the program's own record: the call
// it was in, the compilations its stack had finished, and the frames of its KeyboardInterrupt's
// traceback in the stack's own code.
type truthStopped struct {
	Identity      string   `json:"identity"`
	Step          int      `json:"step"`
	Input         string   `json:"input"`
	CallSite      string   `json:"call_site"`
	Compilations  int      `json:"compilations"`
	InterruptedIn []string `json:"interrupted_in"`
}

// checkStopped holds a run recomp run --fail-on-recompile stopped (testdata/runs/*/stopped) to
// what it recorded before the stop, whether the run folder or its run.log is named: the
// KeyboardInterrupt's traceback through the stack's call path after the stop line is no compile
// record recomp could not read, guard fails on the recompilation and never says the evidence is
// incomplete, in every format; the answer names the program's batch size at its line.
func checkStopped(t *testing.T, dir string, tr truth) {
	t.Helper()
	st := tr.Stopped
	m := runManifest(t, dir)
	b, err := os.ReadFile(filepath.Join(dir, runfolder.LogName))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	if m.Stopped == "" || m.StoppedLine < 1 || int(m.StoppedLine) >= len(lines) {
		t.Fatalf("the manifest says no stop (%q, line %d)", m.Stopped, m.StoppedLine)
	}
	after := strings.Join(lines[m.StoppedLine:], "\n")
	if !strings.Contains(after, "KeyboardInterrupt") || len(st.InterruptedIn) == 0 {
		t.Fatalf("no KeyboardInterrupt after the stop line %d: the run shows nothing", m.StoppedLine)
	}
	for _, in := range []string{dir, filepath.Join(dir, runfolder.LogName)} {
		for _, c := range [][]string{{"scan", "text"}, {"scan", "markdown"}, {"scan", "html"}, {"scan", "json"},
			{"guard", "text"}, {"guard", "markdown"}, {"guard", "html"}, {"guard", "json"}, {"guard", "github"}, {"guard", "junit"}} {
			code, out, stderr := runRecomp(c[0], "--format", c[1], in)
			if want := map[string]int{"scan": exitOK, "guard": exitFound}[c[0]]; code != want {
				t.Errorf("%s --format %s %s: exit %d, want %d: %s", c[0], c[1], in, code, want, stderr)
			}
			bad := []string{"could not read", "evidence is incomplete"}
			if c[1] != "json" {
				bad = append(bad, "inconclusive") // JSON's gate has the field, false
			}
			for _, s := range bad {
				if strings.Contains(out, s) {
					t.Errorf("%s --format %s %s says %q of what the stop caused", c[0], c[1], in, s)
				}
			}
			if c[1] == "json" {
				var doc report.ScanJSON
				if err := json.Unmarshal([]byte(out), &doc); err != nil {
					t.Fatal(err)
				}
				if doc.Summary.UnreadRecords != 0 || doc.Summary.Compilations != st.Compilations {
					t.Errorf("%s %s: %d unread records, %d compilations; the program finished %d before the stop", c[0], in,
						doc.Summary.UnreadRecords, doc.Summary.Compilations, st.Compilations)
				}
			}
		}
	}
	p, _ := explainVerdict(t, dir, st.Identity)
	if len(p.Causes) == 0 || p.Causes[0].Kind != "batch_size" {
		t.Errorf("causes %+v, want batch_size first", p.Causes)
	}
	for _, format := range []string{"text", "markdown", "html"} {
		if _, out, _ := runRecomp("explain", "--format", format, dir); !strings.Contains(out, st.CallSite) || strings.Contains(out, "could not read") {
			t.Errorf("explain --format %s does not name the call at %s, or reads the stop's traceback", format, st.CallSite)
		}
	}
}
