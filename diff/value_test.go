package diff

import (
	"fmt"
	"strings"
	"testing"

	"github.com/recomp/recomp/hlo"
)

// powModule is a graph that raises x to a Python float p and, as pow's backward does, to p - 1:
// one value of the program, two constants of the graph. The forward's constant names the line
// that took it; the backward's names none.
func powModule(t *testing.T, p, q float64) *hlo.Module {
	t.Helper()
	src := fmt.Sprintf(`HloModule m
ENTRY e {
  x = f32[4]{0} parameter(0)
  p = f32[] constant(%v), metadata={op_type="prim__Constant" op_name="prim__Constant" source_file="/u/train.py" source_line=12}
  pb = f32[4]{0} broadcast(p), dimensions={}
  y = f32[4]{0} power(x, pb)
  h = f32[] constant(0.5), metadata={op_type="aten__gelu" op_name="aten__gelu"}
  hb = f32[4]{0} broadcast(h), dimensions={}
  z = f32[4]{0} multiply(y, hb)
  q = f32[] constant(%v), metadata={op_type="prim__Constant" op_name="prim__Constant"}
  qb = f32[4]{0} broadcast(q), dimensions={}
  g = f32[4]{0} power(x, qb)
  ROOT out = (f32[4]{0}, f32[4]{0}) tuple(z, g)
}
`, p, q)
	m, err := hlo.Parse("m", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestOneValueAndItsDerived: a Python float and the constant its backward derives from it
// (p - 1) change by the same step: one value of the program, named by the constant of the line
// that took it, whatever values the two versions' constants happen to share.
func TestOneValueAndItsDerived(t *testing.T) {
	for _, c := range []struct {
		p0, p1 float64
		old    string
		new    string
	}{
		{2.5, 3, "2.5", "3"},     // no value in common
		{2.5, 3.5, "2.5", "3.5"}, // the new p - 1 is the old p: a pairing by value mixes them up
		{0.5, 1, "0.5", "1"},     // p - 1 crosses 0
	} {
		r := Compare(powModule(t, c.p0, c.p0-1), powModule(t, c.p1, c.p1-1))
		if len(r.Causes) != 1 || r.Causes[0].Kind != CauseConstant {
			t.Fatalf("p %v → %v: causes %s", c.p0, c.p1, causeKinds(r.Causes))
		}
		k := r.Causes[0].Constant
		if k == nil || k.Old != c.old || k.New != c.new || k.Source != "/u/train.py:12" {
			t.Errorf("p %v → %v: the value %+v, want %s → %s at /u/train.py:12 (%s)", c.p0, c.p1, k, c.old, c.new, r.Causes[0].Summary)
		}
		if !strings.Contains(r.Causes[0].Summary, c.old+" → "+c.new) {
			t.Errorf("p %v → %v: summary %q", c.p0, c.p1, r.Causes[0].Summary)
		}
	}
	// Two numbers that moved by different steps are two values: none is named.
	r := Compare(powModule(t, 2.5, 1.5), powModule(t, 3, 2.25))
	if len(r.Causes) != 1 || r.Causes[0].Constant != nil {
		t.Errorf("two values: %+v", r.Causes)
	}
}

// TestFocalGammaValue: the committed focal-gamma run's gamma (1.5, 2.5, 3.5, pow's exponent;
// its backward bakes gamma - 1 too) is named by its values and its line, module by module.
func TestFocalGammaValue(t *testing.T) {
	dir := "../testdata/runs/torch-xla-2.9/focal-gamma/dump/"
	a := parseFile(t, dir+"module_0000.SyncTensorsGraph.300.before_optimizations.txt")
	b := parseFile(t, dir+"module_0001.SyncTensorsGraph.303.before_optimizations.txt")
	r := Compare(a, b)
	if len(r.Causes) != 1 || r.Causes[0].Constant == nil {
		t.Fatalf("causes %+v", r.Causes)
	}
	if k := r.Causes[0].Constant; k.Old != "1.5" || k.New != "2.5" || !strings.HasSuffix(k.Source, "torch_xla_runs.py:556") {
		t.Errorf("gamma %+v, want 1.5 → 2.5 at torch_xla_runs.py:556", k)
	}
}
