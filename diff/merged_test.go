package diff

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/recomp/recomp/hlo"
)

// stepModule is a step (x*w, tanh, its sum) returning (loss, w'); with metric, it also computes a
// metric from an input of its own (v) and the weight, returned as one more output; with inner, an
// op is inserted inside the step (a change of the step, not ops merged in). Parameters are
// numbered as PyTorch/XLA numbers them: the merged-in computation's inputs first.
func stepModule(t *testing.T, metric, inner bool) *hlo.Module {
	t.Helper()
	var b strings.Builder
	b.WriteString("HloModule m\nadd { a = f32[] parameter(0)\n b = f32[] parameter(1)\n ROOT s = f32[] add(a, b) }\nENTRY e {\n")
	n := 0
	if metric {
		b.WriteString("  v = f32[16,4]{1,0} parameter(0)\n")
		n = 1
	}
	b.WriteString("  w = f32[4,4]{1,0} parameter(" + string(rune('0'+n)) + ")\n  x = f32[8,4]{1,0} parameter(" + string(rune('1'+n)) + ")\n")
	b.WriteString("  h = f32[8,4]{1,0} dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n")
	if inner {
		b.WriteString("  h2 = f32[8,4]{1,0} negate(h)\n  t = f32[8,4]{1,0} tanh(h2)\n")
	} else {
		b.WriteString("  t = f32[8,4]{1,0} tanh(h)\n")
	}
	b.WriteString("  z = f32[] constant(0)\n  loss = f32[] reduce(t, z), dimensions={0,1}, to_apply=add\n  w2 = f32[4,4]{1,0} negate(w)\n")
	if metric {
		b.WriteString("  mh = f32[16,4]{1,0} dot(v, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n" +
			"  acc = f32[] reduce(mh, z), dimensions={0,1}, to_apply=add\n  ROOT r = (f32[], f32[], f32[4,4]{1,0}) tuple(acc, loss, w2)\n}\n")
	} else {
		b.WriteString("  ROOT r = (f32[], f32[4,4]{1,0}) tuple(loss, w2)\n}\n")
	}
	m, err := hlo.Parse("m", []byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// A graph that is an earlier one plus another computation's ops (PyTorch/XLA's pending ops merged
// into a step) is named so, either way round; an op inserted inside the step is not.
func TestMergedRule(t *testing.T) {
	step, merged, changed := stepModule(t, false, false), stepModule(t, true, false), stepModule(t, false, true)
	r := Compare(step, merged)
	if len(r.Causes) != 1 || !r.Causes[0].Merged || !strings.Contains(r.Causes[0].Summary, "merged in") ||
		!strings.Contains(strings.Join(r.Causes[0].Evidence, "\n"), "f32[16,4]") || !r.Causes[0].OwnAdvice() {
		t.Errorf("step → step with a metric: %+v", r.Causes)
	}
	if r := Compare(merged, step); len(r.Causes) != 1 || !r.Causes[0].Merged || !strings.Contains(r.Causes[0].Summary, "without") {
		t.Errorf("step with a metric → step: %+v", r.Causes)
	}
	if r := Compare(step, changed); len(r.Causes) == 0 || r.Causes[0].Merged {
		t.Errorf("an op inserted inside the step is named merged: %+v", r.Causes)
	}
}

// PyTorch/XLA's epoch-end accuracy merged into the next epoch's first step (a real run): the
// merged graph is compared with the step's steady graph, not with step 1's (AdamW's state built
// inside it), which numbers its inputs alike but differs in structure.
func TestMergedGraphPairsWithTheStep(t *testing.T) {
	dir := "../testdata/runs/torch-xla-2.9/metric-merged/dump/"
	d, err := LoadDump(dir, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, h := range ExplainBy(d, func(f *DumpFile) string { return f.Family }, Options{}) {
		for _, p := range h.Steps {
			if filepath.Base(p.B.Path) != "module_0003.SyncTensorsGraph.543.before_optimizations.txt" {
				continue
			}
			found = true
			if a := filepath.Base(p.A.Path); a != "module_0001.SyncTensorsGraph.419.before_optimizations.txt" ||
				len(p.Result.Causes) != 1 || !p.Result.Causes[0].Merged {
				t.Errorf("the merged step is compared with %s: %+v", a, p.Result.Causes)
			}
		}
	}
	if !found {
		t.Fatal("the merged step is compared with nothing")
	}
}

// PyTorch/XLA numbers a graph's inputs in the order its trace first used them: the same inputs
// numbered anew (their donation and layouts too) are paired by what they are, not read as shapes
// that changed; two inputs that kept their numbers and changed shapes still are.
func TestReorderedInputs(t *testing.T) {
	parse := func(text string) *hlo.Module {
		m, err := hlo.Parse("m", []byte(text))
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	a := parse(`HloModule m, buffer_donor={ (1, {}) }, entry_computation_layout={(f32[4]{0}, f32[2,2]{1,0})->(f32[4]{0}, f32[2,2]{1,0})}
ENTRY e {
  v = f32[4]{0} parameter(0)
  w = f32[2,2]{1,0} parameter(1)
  n = f32[4]{0} negate(v)
  t = f32[2,2]{1,0} negate(w)
  ROOT r = (f32[4]{0}, f32[2,2]{1,0}) tuple(n, t)
}
`)
	b := parse(`HloModule m, buffer_donor={ (0, {}) }, entry_computation_layout={(f32[2,2]{1,0}, f32[4]{0})->(f32[4]{0}, f32[2,2]{1,0})}
ENTRY e {
  w = f32[2,2]{1,0} parameter(0)
  v = f32[4]{0} parameter(1)
  n = f32[4]{0} negate(v)
  t = f32[2,2]{1,0} negate(w)
  ROOT r = (f32[4]{0}, f32[2,2]{1,0}) tuple(n, t)
}
`)
	if r := Compare(a, b); len(r.Causes) != 1 || r.Causes[0].Kind != CauseIdentical {
		t.Errorf("inputs numbered anew: %+v", r.Causes)
	}
	c := parse(`HloModule m
ENTRY e {
  v = f32[8]{0} parameter(0)
  w = f32[2,2]{1,0} parameter(1)
  n = f32[8]{0} negate(v)
  t = f32[2,2]{1,0} negate(w)
  ROOT r = (f32[8]{0}, f32[2,2]{1,0}) tuple(n, t)
}
`)
	if r := Compare(a, c); len(r.Causes) == 0 || r.Causes[0].Kind == CauseIdentical {
		t.Errorf("a shape that changed: %+v", r.Causes)
	}
}
