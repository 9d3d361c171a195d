package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/recomp/recomp/runfolder"
)

// jaxLines are what JAX prints, with the logging recomp run switches on, for a program that
// compiles train_step at batch 32 and again at batch 24 (the second after warm-up).
const jaxLines = `echo "WARNING:jax._src.interpreters.pxla:Compiling jit(train_step) with global shapes and types (ShapedArray(float32[32,8]),). Argument mapping: (UnspecifiedValue,)." >&2
echo "WARNING:jax._src.dispatch:Finished XLA compilation of jit(train_step) in 0.200000000 sec" >&2
echo "step 0"
printf 'WARNING:jax._src.pjit:TRACING CACHE MISS at /home/me/train.py:64:12 (main):\n  for train_step defined at /home/me/train.py:20\n  all previously seen cache keys differ. For the closest previous key:\n  different input types:\n  * at x, now f32[24,8] and before f32[32,8]\n' >&2
echo "WARNING:jax._src.interpreters.pxla:Compiling jit(train_step) with global shapes and types (ShapedArray(float32[24,8]),). Argument mapping: (UnspecifiedValue,)." >&2
echo "WARNING:jax._src.dispatch:Finished XLA compilation of jit(train_step) in 2.500000000 sec" >&2
`

// runStopped reads a run folder's manifest.
func runManifest(t *testing.T, dir string) *runfolder.Manifest {
	t.Helper()
	m, err := runfolder.ReadManifest(filepath.Join(dir, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// --fail-on-recompile stops a command that would run on at its first compilation after warm-up:
// recomp exits 4, the run folder holds its reports, and they say it was stopped and why. A count
// not reached, or a compile-time budget not spent, lets the command run to its end.
func TestFailOnRecompile(t *testing.T) {
	forever := jaxLines + `i=0; while [ $i -lt 400 ]; do echo "step $i"; sleep 0.05; i=$((i+1)); done`
	for _, c := range []struct {
		name  string
		flags []string
		want  int
		why   string
	}{
		{"first", []string{"--fail-on-recompile"}, exitStopped, "jit_train_step compiled after warm-up at train.py:64 (main)"},
		{"count not reached", []string{"--fail-on-recompile=2"}, exitOK, ""},
		{"budget spent", []string{"--compile-budget", "2s"}, exitStopped, "compile time after warm-up 2.50 s passed the budget of 2s"},
		{"budget left", []string{"--compile-budget", "1m"}, exitOK, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			script := forever
			if c.want == exitOK {
				script = jaxLines + `echo "step 1"`
			}
			dir := filepath.Join(t.TempDir(), "run")
			start := time.Now()
			args := append([]string{"run", "--out", dir, "--no-probe", "--stop-grace", "1s"}, c.flags...)
			code, _, stderr := runIn(t, "", append(args, "--", "sh", "-c", script)...)
			if code != c.want || time.Since(start) > 15*time.Second {
				t.Fatalf("exit %d after %v, want %d:\n%s", code, time.Since(start), c.want, stderr)
			}
			m := runManifest(t, dir)
			if !strings.Contains(m.Stopped, c.why) || (c.why == "") != (m.Stopped == "") {
				t.Errorf("manifest says stopped %q, want %q", m.Stopped, c.why)
			}
			if c.why != "" {
				// the stop line is where the Live had read to: the compilation's last line
				b, _ := os.ReadFile(filepath.Join(dir, "run.log"))
				lines := strings.Split(string(b), "\n")
				if m.StoppedLine < 1 || int(m.StoppedLine) > len(lines) || !strings.Contains(lines[m.StoppedLine-1], "Finished XLA compilation of jit(train_step) in 2.5") {
					t.Errorf("manifest's stopped_line %d is not the stopping compilation's line", m.StoppedLine)
				}
			}
			b, err := os.ReadFile(filepath.Join(dir, "report.json"))
			if err != nil {
				t.Fatal(err)
			}
			var doc struct {
				Manifest struct {
					Stopped string `json:"stopped"`
				} `json:"manifest"`
			}
			if err := json.Unmarshal(b, &doc); err != nil || doc.Manifest.Stopped != m.Stopped {
				t.Errorf("report.json says stopped %q (%v)", doc.Manifest.Stopped, err)
			}
			if c.why != "" && (!strings.Contains(stderr, "stopping the command: jit_train_step compiled after warm-up") || !strings.Contains(stderr, c.why) || !strings.Contains(stderr, "stopped by recomp at")) {
				t.Errorf("the terminal does not say the command was stopped:\n%s", stderr)
			}
			if !strings.Contains(stderr, "recomp run: ✗ jit_train_step compiled after warm-up (compilation 2): batch size, x: f32[32,8] → f32[24,8], at train.py:64 (main), 2.50 s compiling") {
				t.Errorf("no live line:\n%s", stderr)
			}
		})
	}
	if code, _, stderr := runIn(t, "", "run", "--fail-on-recompile=0", "--", "true"); code != exitUsage {
		t.Errorf("--fail-on-recompile=0: exit %d %s", code, stderr)
	}
}

// --no-live keeps the terminal as it was: no live line.
func TestNoLive(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	code, _, stderr := runIn(t, "", "run", "--out", dir, "--no-probe", "--no-live", "--", "sh", "-c", jaxLines)
	if code != 0 || strings.Contains(stderr, "compiled after warm-up (compilation 2)") {
		t.Errorf("exit %d:\n%s", code, stderr)
	}
}
