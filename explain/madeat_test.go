package explain

import (
	"strings"
	"testing"

	"github.com/recomp/recomp/ledger"
)

// JAX's dumps name no source line on an op, only a stack frame (stack_frame_id into the module's
// StackFrames table), and its constants carry no metadata: the line of the program whose op took
// a Python value is the innermost frame, in the user's file, of the constant's first user. The
// verdict says it beside the line that called the program (the lines are those of jax_runs.py
// when the runs were made: `return w - lr * jax.grad(...)`, `w - lr * g`, `jax.nn.dropout`'s
// rate, the nnx module's `x / self.temperature`).
//
// JAX 0.4's dumps have no stack tables: each op names its own source_file and source_line, and a
// constant none, so the line is its first user's (no line of a library's is taken).
func TestMadeAtTheValuesLine(t *testing.T) {
	for run, want := range map[string]string{
		"jax-0.12/closed-constant": "closing over 0.1 → 0.05 (baked into the graph at jax_runs.py:180) at testdata/runs/gen/jax_runs.py:188",
		"jax-0.12/rebuilt-jit":     "closing over 0.1 → 0.05 → 0.025 (baked into the graph at jax_runs.py:678), the cause of 4 recompilations at testdata/runs/gen/jax_runs.py:732",
		"jax-0.12/static-anneal":   "(baked into the graph at jax_runs.py:1101), the cause of 6 recompilations at testdata/runs/gen/jax_runs.py:1122",
		"jax-0.12/nnx-attribute":   "(a plain Python attribute of the module: static to its jit) (baked into the graph at jax_runs.py:1151) (jax said",
		"jax-0.4/closed-constant":  "closing over 0.1 → 0.05 (baked into the graph at jax_runs.py:180) at testdata/runs/gen/jax_runs.py:188",
		"jax-0.4/rebuilt-jit":      "closing over 0.1 → 0.05 → 0.025 (baked into the graph at jax_runs.py:678), the cause of 4 recompilations at testdata/runs/gen/jax_runs.py:732",
	} {
		d, err := Dump("../testdata/runs/"+run, nil, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if d.Verdict == nil || len(d.Verdict.Verdicts) == 0 {
			t.Fatalf("%s: no verdict", run)
		}
		v := d.Verdict.Verdicts[0]
		if got := v.Sentence(); !strings.Contains(got, want) {
			t.Errorf("%s: %q lacks %q", run, got, want)
		}
		if v.Causes[0].Source == "" {
			t.Errorf("%s: the lead cause names no source", run)
		}
	}
}

// TF names only the parameters of each new trace; held against the trace before (the ledger's
// join), a log with no dump says what changed in the verdict's words: a Python number's values
// in order (one cause, not one per change), a batch that took many sizes with the sizes to pad
// to, a dtype.
func TestTFLogAloneSaysWhatChanged(t *testing.T) {
	for run, want := range map[string]string{
		"python-scalar": "constant value, lr: 0.1 → 0.09 → 0.081 → 0.0729 → 0.06561 → 0.059049, the cause of 5 recompilations",
		"logfmt":        "the batch (leading dimension) took 6 sizes, 12 to 32, the cause of 5 recompilations",
		"dtype":         "dtype, w: f32[8,4] → f16[8,4]",
	} {
		s, err := Logs([]string{"../testdata/runs/tf-2.21/" + run + "/run.log"}, ledger.ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if s.Verdict == nil || len(s.Verdict.Verdicts) != 1 {
			t.Fatalf("%s: verdict %+v", run, s.Verdict)
		}
		if got := s.Verdict.Verdicts[0].Sentence(); !strings.Contains(got, want) {
			t.Errorf("%s: %q lacks %q", run, got, want)
		}
	}
}
