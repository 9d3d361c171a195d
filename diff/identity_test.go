package diff

import (
	"strings"
	"testing"

	"github.com/recomp/recomp/hlo"
)

// A convert to the type its operand already has carries no value of its own: PyTorch/XLA
// emits one for a computed f32 but not for device data, so the first step of AdamW, whose
// state the graph built and the next step reads as inputs, loses one. The pair is still the
// optimizer's state (expected once), not the program's structure changing.
func TestIdentityOpsAreNotLostValues(t *testing.T) {
	parse := func(src string) *hlo.Module {
		m, err := hlo.Parse("m", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	first := func(conv string) *hlo.Module {
		return parse(`HloModule a
ENTRY e {
  w = f32[4]{0} parameter(0)
  x = f32[4]{0} parameter(1)
  g = f32[4]{0} multiply(w, x)
  gc = ` + conv + `
  z = f32[] constant(0)
  m0 = f32[4]{0} broadcast(z), dimensions={}
  m1 = f32[4]{0} add(m0, gc)
  w1 = f32[4]{0} subtract(w, m1)
  ROOT t = (f32[4]{0}, f32[4]{0}) tuple(w1, m1)
}
`)
	}
	second := parse(`HloModule b
ENTRY e {
  w = f32[4]{0} parameter(0)
  x = f32[4]{0} parameter(1)
  m = f32[4]{0} parameter(2)
  g = f32[4]{0} multiply(w, x)
  m1 = f32[4]{0} add(m, g)
  w1 = f32[4]{0} subtract(w, m1)
  ROOT t = (f32[4]{0}, f32[4]{0}) tuple(w1, m1)
}
`)
	r := Compare(first("f32[4]{0} convert(g)"), second)
	if len(r.Causes) != 1 || r.Causes[0].Kind != CauseGraphStructure || !strings.HasPrefix(r.Causes[0].Advice, "expected once") {
		t.Errorf("a no-op convert lost: causes %+v", r.Causes)
	}
	// A convert that changes the type is a value of its own: the structure changed.
	r = Compare(first("f16[4]{0} convert(g)"), second)
	if len(r.Causes) == 0 || strings.HasPrefix(r.Causes[0].Advice, "expected once") {
		t.Errorf("a real convert lost: causes %+v", r.Causes)
	}
}
