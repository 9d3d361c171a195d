//go:build unix

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/recomp/recomp/internal/skipped"
)

// TestLiveRecompileRealFrameworks runs real JAX, TF and PyTorch/XLA training loops that
// recompile after warm-up and would run on for a minute (testdata/runs/gen/live/*_running.py)
// through recomp run --fail-on-recompile in a terminal, with the frameworks' own venvs
// (RECOMP_LIVE_<MATRIX>): the live line says the recompilation before the program's next line,
// recomp stops the program long before its end and exits 4, and the run folder says why.
func TestLiveRecompileRealFrameworks(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	for _, c := range []struct {
		env, program string
		extra        []string
		family       string
		said         string // what the live line says after the program's name: what changed, the user's line
	}{
		{"RECOMP_LIVE_JAX_0_12", "jax_running.py", []string{"JAX_PLATFORMS=cpu"}, "jit_train_step", ": batch size, x: f32[32,8] → f32[24,8], at jax_running.py:21 (<module>), "},
		{"RECOMP_LIVE_TF_2_21", "tf_running.py", []string{"CUDA_VISIBLE_DEVICES="}, "__inference_train_step_N", ", at tf_running.py:16 (<module>), "},
		{"RECOMP_LIVE_TORCH_XLA_2_9", "torch_xla_running.py", []string{"PJRT_DEVICE=CPU"}, "torch_xla_running.py:18 (train_step)", `: a new graph run by the program's own torch_xla.sync (torch-xla said: user torch_xla.sync), at torch_xla_running.py:18 (train_step)`},
	} {
		t.Run(c.program, func(t *testing.T) {
			py := os.Getenv(c.env)
			if py == "" {
				skipped.Skip(t, skipped.Live, c.env, fmt.Sprintf("%s is not set: %s was not run through recomp run --fail-on-recompile (.ci/run sets it when the venv installs)", c.env, c.program))
			}
			dir := filepath.Join(t.TempDir(), "run")
			prog, _ := filepath.Abs(filepath.Join("../../testdata/runs/gen/live", c.program))
			start := time.Now()
			code, got := inTerminal(t, 5*time.Minute, c.extra, "run", "--out", dir, "--fail-on-recompile", "--", py, prog)
			if code != exitStopped {
				t.Errorf("exit %d, want %d; the terminal shows:\n%s", code, exitStopped, got)
			}
			live := "recomp run: ✗ " + c.family + " compiled after warm-up (compilation 2)" + c.said
			i, j := strings.Index(got, "step 2 batch 32\n"), strings.Index(got, live)
			k := strings.Index(got, "batch 24\n")
			if i < 0 || j < i || (k >= 0 && k < j) {
				t.Errorf("the live line %q is not between the last step at batch 32 and the first at 24:\n%s", live, got)
			}
			if strings.Contains(got, "step 600 ") {
				t.Errorf("the program was not stopped:\n%s", got)
			}
			m := runManifest(t, dir)
			if !strings.HasPrefix(m.Stopped, c.family+" compiled after warm-up") {
				t.Errorf("manifest stopped %q", m.Stopped)
			}
			t.Logf("stopped after %v", time.Since(start))
		})
	}
}
