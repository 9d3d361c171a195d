//go:build unix

package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// TestRunInATerminal runs the recomp binary as a user does, in a terminal (a pseudo-terminal of
// 30 rows and 100 columns): the program's own output and its progress bar's frames reach the
// terminal unchanged, the compile logging recomp switched on does not (run.log has it), and
// the report at the end leads with the answer — the program that compiled again, the user's
// line, the action.
func TestRunInATerminal(t *testing.T) {
	// A JAX-like program: its prints, a progress bar drawn with \r, and the lines JAX prints
	// when recomp switches JAX_LOG_COMPILES and JAX_EXPLAIN_CACHE_MISSES on.
	script := `[ "$JAX_LOG_COMPILES" = 1 ] || { echo "recomp did not switch JAX's logging on"; exit 3; }
echo "epoch 1"
echo "WARNING:jax._src.interpreters.pxla:Compiling jit(train_step) with global shapes and types (ShapedArray(float32[32,8]),). Argument mapping: (UnspecifiedValue,)." >&2
echo "WARNING:jax._src.dispatch:Finished XLA compilation of jit(train_step) in 0.200000000 sec" >&2
printf '  1/2 [==>   ]\r  2/2 [=====]\n'
echo "epoch 2"
printf 'WARNING:jax._src.pjit:TRACING CACHE MISS at /home/me/train.py:64:12 (main):\n  for train_step defined at /home/me/train.py:20\n  all previously seen cache keys differ. For the closest previous key:\n  different input types:\n  * at x, now f32[24,8] and before f32[32,8]\n' >&2
echo "WARNING:jax._src.interpreters.pxla:Compiling jit(train_step) with global shapes and types (ShapedArray(float32[24,8]),). Argument mapping: (UnspecifiedValue,)." >&2
echo "WARNING:jax._src.dispatch:Finished XLA compilation of jit(train_step) in 0.100000000 sec" >&2
printf '  1/1 [=====]\n'
echo "done"`
	dir := filepath.Join(t.TempDir(), "run")
	code, got := inTerminal(t, 60*time.Second, nil, "run", "--out", dir, "--no-probe", "--", "sh", "-c", script)
	if code != 0 {
		t.Errorf("exit %d; the terminal shows:\n%s", code, got)
	}
	// the verdict's lines are wrapped to the terminal's 100 columns: read them joined
	flat := regexp.MustCompile(`\n +`).ReplaceAllString(got, " ")
	for _, want := range []string{
		"epoch 1\n", "  1/2 [==>   ]\r  2/2 [=====]\n", "epoch 2\n", "  1/1 [=====]\ndone\n",
		"✗ jit_train_step compiled 2× (1 after warm-up",
		"at /home/me/train.py:64 (main)",
		"→ the last batch of each pass has 24 rows, the others 32",
	} {
		if !strings.Contains(got, want) && !strings.Contains(flat, want) {
			t.Errorf("the terminal lacks %q; it shows:\n%s", want, got)
		}
	}
	for _, l := range strings.Split(got, "\n") {
		if strings.HasPrefix(l, "✗ ") || strings.HasPrefix(l, "    → ") {
			if n := utf8.RuneCountInString(strings.TrimRight(l, "\r")); n > 100 {
				t.Errorf("a verdict line of %d columns on a terminal of 100: %q", n, l)
			}
		}
	}
	for _, unwanted := range []string{"Compiling jit(train_step)", "Finished XLA compilation", "TRACING CACHE MISS", "different input types"} {
		if strings.Contains(got, unwanted) {
			t.Errorf("the compile logging recomp switched on reached the terminal (%q):\n%s", unwanted, got)
		}
	}
	if i, j := strings.Index(got, "done\n"), strings.Index(got, "✗ jit_train_step compiled 2×"); i < 0 || j < i {
		t.Errorf("the answer is not after the program's output:\n%s", got)
	}
	// The compilation after warm-up is said as it happens: after the program's line before it,
	// before the program's next line, on a line of its own.
	live := "epoch 2\nrecomp run: ✗ jit_train_step compiled after warm-up (compilation 2): batch size, x: f32[32,8] → f32[24,8], at train.py:64 (main), 0.10 s compiling\n  1/1 [=====]\n"
	if !strings.Contains(got, live) {
		t.Errorf("the live line is not between the program's lines (want %q):\n%s", live, got)
	}
	log, err := os.ReadFile(filepath.Join(dir, "run.log"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Compiling jit(train_step)", "TRACING CACHE MISS at /home/me/train.py:64:12 (main):", "epoch 2"} {
		if !bytes.Contains(log, []byte(want)) {
			t.Errorf("run.log lacks %q", want)
		}
	}
}

// TestNoColor: colour on a terminal is turned off by a NO_COLOR that is set and not empty
// (no-color.org); an empty NO_COLOR leaves it on.
func TestNoColor(t *testing.T) {
	log := "../../testdata/runs/ipu-partial-batch/run.log"
	for _, c := range []struct {
		noColor string
		colour  bool
	}{{"NO_COLOR=", true}, {"NO_COLOR=1", false}} {
		code, got := inTerminal(t, 30*time.Second, []string{c.noColor}, "scan", log)
		if code != 0 {
			t.Fatalf("%s recomp scan: exit %d; the terminal shows:\n%s", c.noColor, code, got)
		}
		if strings.Contains(got, "\x1b[") != c.colour {
			t.Errorf("%s: colour %v, want %v; the terminal shows:\n%q", c.noColor, !c.colour, c.colour, got)
		}
	}
}
