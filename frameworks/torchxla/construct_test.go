package torchxla

import (
	"strings"
	"testing"

	"github.com/recomp/recomp/frameworks/cause"
)

func TestSpecialScalarNamesTheRule(t *testing.T) {
	what, adv, ok := specialScalar("constant_value", "parameter(0) → 1")
	if !ok || !strings.Contains(what, "became 1") || !strings.Contains(adv, "XLA_NO_SPECIAL_SCALARS=1") {
		t.Errorf("%v %q %q", ok, what, adv)
	}
	if _, _, ok := specialScalar("constant_value", "parameter(2) → 0.0"); !ok {
		t.Error("0.0 is a special scalar too")
	}
	for _, c := range [][2]string{{"constant_value", "parameter(0) → 0.5"}, {"constant_value", "0.1 → 0.05"},
		{"graph_structure", "parameter(0) → 1"}, {"constant_value", "parameter(0) → 10"}} {
		if _, _, ok := specialScalar(cause.Kind(c[0]), c[1]); ok {
			t.Errorf("%v is no special scalar", c)
		}
	}
}

func TestBakedNumberNamesTheOpAndTheRule(t *testing.T) {
	what, adv, ok := specialScalar("constant_value", "a number baked into the graph as a constant took 3 values: -4 → -6 → -8 (aten__triu at train.py:465)")
	if !ok || what != "a Python number baked in as a constant: -4 → -6 → -8 at train.py:465 (aten__triu)" ||
		!strings.Contains(adv, "triu's number argument") || !strings.Contains(adv, "torch.tensor(v, device=dev)") {
		t.Errorf("%v %q %q", ok, what, adv)
	}
	if what, _, ok := specialScalar("constant_value", "a number baked into the graph as a constant took 2 values: 2 → 3"); !ok ||
		what != "a Python number baked in as a constant: 2 → 3" {
		t.Errorf("no op, no line: %v %q", ok, what)
	}
	if what, adv, ok := specialScalar("constant_value", "a number baked into the graph as a constant changed 2 times: 0.5 → 2.5; 1.5 → 3.5 (prim__Constant at t.py:9)"); !ok ||
		what != "a Python number baked in as a constant: 0.5 → 2.5; 1.5 → 3.5 at t.py:9 (prim__Constant)" || !strings.Contains(adv, "an op's number argument") {
		t.Errorf("changes that do not chain: %v %q %q", ok, what, adv)
	}
	if _, _, ok := specialScalar("graph_structure", "a number baked into the graph as a constant took 2 values: 2 → 3"); ok {
		t.Error("only a constant is a baked number")
	}
}

// A step ends at the program's sync, at MpDeviceLoader's after each batch and at a profiler
// StepTrace region's end, in 2.9's words and older ones; a host read or dynamo's sync does not.
func TestStepEnd(t *testing.T) {
	for _, r := range []string{"user torch_xla.sync", "user mark_step", "torch_xla.sync in parallel loader at step end",
		"mark_step in parallel loader at step end", "torch_xla.sync when exiting a profiler StepTrace region"} {
		if !Framework.StepEnd(r) {
			t.Errorf("%q ends a step", r)
		}
	}
	for _, r := range []string{"most likely user code trying to access tensor value before torch_xla.sync",
		"torch_xla.sync when dynamo processing input graphs", "dynamo is compiling a FX graph to HLO"} {
		if Framework.StepEnd(r) {
			t.Errorf("%q ends no step", r)
		}
	}
}

// A loop count the verdict found unrolled into the graph is said as torch_xla's Python loop, with
// torch_xla's ways to keep one graph; a structure change it did not find is left alone.
func TestLoopCountNamesTheLoop(t *testing.T) {
	what, adv, ok := Framework.Construct("graph_structure", "a loop count unrolled into the graph: the ops of train.py:86 ran 1 → 2 → 3 times (15 ops each)")
	if !ok || what != "a Python loop count unrolled into the graph: the ops of train.py:86 ran 1 → 2 → 3 times (15 ops each)" ||
		!strings.Contains(adv, "fori_loop") || !strings.Contains(adv, "scan_layers") || !strings.Contains(adv, "keep the count fixed") {
		t.Errorf("%q, %q, %v", what, adv, ok)
	}
	if _, _, ok := Framework.Construct("graph_structure", "the graph's structure changed: 203 instruction(s) added"); ok {
		t.Error("a structure change with no loop count named one")
	}
	if _, _, ok := Framework.Construct("constant_value", "a loop count unrolled into the graph: x"); ok {
		t.Error("another kind named a loop count")
	}
}
