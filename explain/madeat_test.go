package explain

import (
	"strings"
	"testing"
)

// JAX's dumps name no source line on an op, only a stack frame (stack_frame_id into the module's
// StackFrames table), and its constants carry no metadata: the line of the program whose op took
// a Python value is the innermost frame, in the user's file, of the constant's first user. The
// verdict says it beside the line that called the program (the lines are those of jax_runs.py
// when the runs were made: `return w - lr * jax.grad(...)`, `w - lr * g`, `jax.nn.dropout`'s
// rate, the nnx module's `x / self.temperature`).
func TestMadeAtTheValuesLine(t *testing.T) {
	for run, want := range map[string]string{
		"closed-constant": "closing over 0.1 → 0.05 (baked into the graph at jax_runs.py:180) at testdata/runs/gen/jax_runs.py:188",
		"rebuilt-jit":     "closing over 0.1 → 0.05 → 0.025 (baked into the graph at jax_runs.py:678), the cause of 4 recompilations at testdata/runs/gen/jax_runs.py:732",
		"static-anneal":   "(baked into the graph at jax_runs.py:1101), the cause of 6 recompilations at testdata/runs/gen/jax_runs.py:1122",
		"nnx-attribute":   "(a plain Python attribute of the module: static to its jit) (baked into the graph at jax_runs.py:1151) (jax said",
	} {
		d, err := Dump("../testdata/runs/jax-0.12/"+run, nil, Options{})
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
