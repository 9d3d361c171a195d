package torchxla

import (
	"strings"
	"testing"
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
		if _, _, ok := specialScalar(c[0], c[1]); ok {
			t.Errorf("%v is no special scalar", c)
		}
	}
}
