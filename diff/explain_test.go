package diff

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// otherProgram is a small module named like smallModule that is another program: an accuracy
// read (.item()) next to a training step, both SyncTensorsGraph in a PyTorch/XLA dump.
func otherProgram(n int) string {
	return fmt.Sprintf(`HloModule jit_step

%%max (x: f32[], y: f32[]) -> f32[] {
  %%x = f32[] parameter(0)
  %%y = f32[] parameter(1)
  ROOT %%m = f32[] maximum(f32[] %%x, f32[] %%y)
}

ENTRY %%main (l: s64[%[1]d], p: f32[%[1]d,4]) -> f32[] {
  %%l = s64[%[1]d]{0} parameter(0)
  %%p = f32[%[1]d,4]{1,0} parameter(1)
  %%z = f32[] constant(0)
  %%r = f32[%[1]d]{0} reduce(f32[%[1]d,4]{1,0} %%p, f32[] %%z), dimensions={1}, to_apply=%%max
  %%c = f32[%[1]d]{0} convert(s64[%[1]d]{0} %%l)
  %%e = pred[%[1]d]{0} compare(f32[%[1]d]{0} %%r, f32[%[1]d]{0} %%c), direction=EQ
  %%f = f32[%[1]d]{0} convert(pred[%[1]d]{0} %%e)
  ROOT %%s = f32[] reduce(f32[%[1]d]{0} %%f, f32[] %%z), dimensions={0}, to_apply=%%max
}
`, n)
}

func writeModules(t *testing.T, mods ...string) *Dump {
	t.Helper()
	dir := t.TempDir()
	for i, m := range mods {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("module_%04d.jit_step.before_optimizations.txt", i)), []byte(m), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	d, err := LoadDump(dir, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func steps(h *History) string {
	var out []string
	for _, p := range h.Steps {
		out = append(out, fmt.Sprintf("%d-%d %s %s", p.A.ID, p.B.ID, p.PairedBy, causeKinds(p.Result.Causes)))
	}
	return strings.Join(out, "; ")
}

// TestExplainClosestVariant: a step rebuilt each epoch with a new constant and fed batches that
// alternate between 64 and 40 rows compiles each variant again; each recompilation is compared
// with the variant it repeats (the constant changed), not with the one just before (the batch
// and the constant changed), and says why that one could not be reused. The same graph compiled
// again is compared with its twin, found by fingerprint however far back.
func TestExplainClosestVariant(t *testing.T) {
	d := writeModules(t, smallModule(1, 64), smallModule(1, 40), smallModule(2, 64), smallModule(2, 40),
		smallModule(3, 64), smallModule(3, 40), smallModule(1, 64))
	hs := Explain(d, Options{})
	if len(hs) != 1 {
		t.Fatalf("%d histories", len(hs))
	}
	want := "0-1 order [batch_size]; 0-2 similarity [constant_value]; 1-3 similarity [constant_value]; " +
		"2-4 similarity [constant_value]; 3-5 similarity [constant_value]; 0-6 fingerprint [identical]"
	if got := steps(hs[0]); got != want {
		t.Errorf("steps\n%s\nwant\n%s", got, want)
	}
	p := hs[0].Steps[2]
	if ch := p.Result.Changes; len(ch) != 1 || ch[0].Old != "1" || ch[0].New != "2" {
		t.Errorf("the evidence pairs the wrong constants: %+v", ch)
	}
	if n := strings.Join(p.Result.Notes, "\n"); !strings.Contains(n, "compared with module_0001.jit_step.before_optimizations.txt, its closest earlier version, not with module_0002") ||
		!strings.Contains(n, "compiled for the same inputs and could not be reused: 1 constant(s) baked into the graph changed: 1 → 2") {
		t.Errorf("note %q", n)
	}
	if n := strings.Join(hs[0].Steps[5].Result.Notes, "\n"); !strings.Contains(n, "the graph is the same, so what differed is outside it") {
		t.Errorf("identical: note %q", n)
	}
	if n := hs[0].Steps[0].Result.Notes; len(n) != 0 {
		t.Errorf("a step compared with the one before has notes %q", n)
	}
}

// TestExplainOtherProgram: two programs that share a name (a step and an accuracy read, both
// SyncTensorsGraph) are not one recompiled: the other starts a history of its own, and its next
// version is compared with it.
func TestExplainOtherProgram(t *testing.T) {
	d := writeModules(t, smallModule(1, 32), otherProgram(32), smallModule(1, 24), otherProgram(24))
	hs := Explain(d, Options{})
	if len(hs) != 2 || hs[0].Family != "jit_step" || hs[1].Family != "jit_step #2" {
		t.Fatalf("histories %+v", hs)
	}
	if got := steps(hs[0]); got != "0-2 order [batch_size]" {
		t.Errorf("jit_step: %s", got)
	}
	if got := steps(hs[1]); got != "1-3 order [batch_size]" {
		t.Errorf("jit_step #2: %s", got)
	}
	if len(hs[0].Files) != 2 || len(hs[1].Files) != 2 {
		t.Errorf("files %d, %d", len(hs[0].Files), len(hs[1].Files))
	}
	if hs := Explain(writeModules(t, smallModule(1, 32), otherProgram(32)), Options{}); len(hs) != 2 || len(hs[0].Steps)+len(hs[1].Steps) != 0 {
		t.Errorf("a step and an accuracy read are compared: %+v", hs)
	}
}
