package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// replayRun is a command that replays a committed run under recomp run: it writes the run's
// probe records where recomp run's probe writes them and its dump where XLA dumps, prints its
// log (without the stamps recomp run adds again), then, with more, prints a step every 50 ms
// for 20 s (a command that runs on until it is stopped).
func replayRun(t *testing.T, run string, more bool) []string {
	t.Helper()
	src, err := filepath.Abs(run)
	if err != nil {
		t.Fatal(err)
	}
	script := `cp "$SRC/probe.jsonl" "$RECOMP_PROBE_OUT"
d=${XLA_FLAGS##*--xla_dump_to=}; d=${d%% *}; mkdir -p "$d"; cp "$SRC"/dump/* "$d"/
sed 's/^[^ ]* //' "$SRC/run.log"
`
	if more {
		script += `i=0; while [ $i -lt 400 ]; do echo "step $i"; sleep 0.05; i=$((i+1)); done
`
	}
	t.Setenv("SRC", src)
	return []string{"--", "sh", "-c", script}
}

// A program run under recomp run with the user's own JAX_LOG_COMPILES=0 leaves no compile line
// in its log: the opening line says JAX's logging was left off as the user set it, and the
// probe's records stand for the lines. A recompilation then stops the command live
// (--fail-on-recompile: exit 4) and fails --guard (exit 1), and the report says what JAX was
// judged on; a clean program passes. Logging switched off where recomp cannot see it (in the
// program's code) stops nothing live, but the report at the end sees the recompilation in the
// probe's records, and --fail-on-recompile fails the run (exit 1).
func TestRunLogsOff(t *testing.T) {
	const runs = "../../testdata/runs/jax-0.12/"
	for _, c := range []struct {
		name, run string
		flags     []string
		more      bool
		want      int
		inCode    bool // the program switched JAX's logging off itself: the environment says nothing
	}{
		{"stopped", "logs-off", []string{"--fail-on-recompile", "--stop-grace", "1s"}, true, exitStopped, false},
		{"guard", "logs-off", []string{"--guard"}, false, exitFound, false},
		{"clean stop", "logs-off-fixed", []string{"--fail-on-recompile"}, false, exitOK, false},
		{"clean guard", "logs-off-fixed", []string{"--guard"}, false, exitOK, false},
		{"off in code", "logs-off", []string{"--fail-on-recompile", "--no-live"}, false, exitFound, true},
		{"off in code, clean", "logs-off-fixed", []string{"--fail-on-recompile", "--no-live"}, false, exitOK, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv("JAX_LOG_COMPILES", "0")
			if c.inCode {
				os.Unsetenv("JAX_LOG_COMPILES") // (t.Setenv restores it)
			}
			dir := filepath.Join(t.TempDir(), "run")
			args := append(append([]string{"run", "--out", dir, "--framework", "jax"}, c.flags...), replayRun(t, runs+c.run, c.more)...)
			code, _, stderr := runIn(t, "", args...)
			if code != c.want {
				t.Fatalf("exit %d, want %d:\n%s", code, c.want, stderr)
			}
			b, err := os.ReadFile(filepath.Join(dir, "report.md"))
			if err != nil {
				t.Fatal(err)
			}
			first, _, _ := strings.Cut(stderr, "\n")
			switch {
			case c.inCode:
				if !strings.Contains(string(b), "JAX's log holds no record of its compilations (its compile logging was off): judged on the probe's") {
					t.Errorf("report.md does not say JAX was judged on the probe's records:\n%s", b)
				}
				if missed := strings.Contains(stderr, "which the command was not stopped at: --fail-on-recompile fails the run"); missed != (c.want == exitFound) {
					t.Errorf("says the run fails on a recompilation not stopped at: %v, want %v:\n%s", missed, c.want == exitFound, stderr)
				}
			case strings.Contains(first, "compile logging on for jax") ||
				!strings.Contains(first, "left off as you set it for jax (JAX_LOG_COMPILES=0): their compilations are judged on the probe's records and the dump"):
				t.Errorf("the opening line does not say JAX's logging was left off: %s", first)
			case !strings.Contains(string(b), "JAX's compile logging was off (JAX_LOG_COMPILES=0, set by you): judged on the probe's"):
				t.Errorf("report.md does not say JAX was judged on the probe's records:\n%s", b)
			}
			if c.want == exitStopped && !strings.Contains(stderr, "stopping the command: jit_train_step compiled after warm-up") {
				t.Errorf("no live stop at the recompilation:\n%s", stderr)
			}
		})
	}
}

// Six TF retrace warnings without a record of TF's compilations are inconclusive alone, and stay
// so beside a clean JAX log in the same process: another stack's records are no evidence of TF's.
func TestRetracesBesideAnotherStack(t *testing.T) {
	var tf strings.Builder
	for i := 5; i <= 10; i++ {
		fmt.Fprintf(&tf, "WARNING:tensorflow:%d out of the last %d calls to <function train_step at 0x7f32e55c1940> triggered tf.function retracing. "+
			"Tracing is expensive and the excessive number of tracings could be due to (1) creating @tf.function repeatedly in a loop, (2) passing tensors "+
			"with different shapes, (3) passing Python objects instead of tensors.\n", i, i+1)
	}
	const jax = "WARNING:jax._src.interpreters.pxla:Compiling jit(train_step) with global shapes and types (ShapedArray(float32[32,8]),). Argument mapping: (UnspecifiedValue,).\n" +
		"WARNING:jax._src.dispatch:Finished XLA compilation of jit(train_step) in 0.200000000 sec\n"
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, c := range []struct {
		name, log string
		want      int
		says      string
	}{
		{"tf alone", tf.String(), exitUsage, "inconclusive: no compile evidence"},
		{"tf beside jax", jax + tf.String(), exitUsage, "TF retraced 6 time(s) but logged none of its compilations, beside another stack's records"},
		{"jax alone", jax, exitOK, "PASS"},
	} {
		code, out, _ := runRecomp("guard", write(strings.ReplaceAll(c.name, " ", "-")+".log", c.log))
		if code != c.want || !strings.Contains(out, c.says) {
			t.Errorf("%s: exit %d, want %d saying %q:\n%s", c.name, code, c.want, c.says, out)
		}
	}
}
