package frameworks_test

import (
	"testing"

	"github.com/recomp/recomp/diff"
	"github.com/recomp/recomp/frameworks"
	"github.com/recomp/recomp/frameworks/keras"
	"github.com/recomp/recomp/verdict"
)

// Advice by cause is keyed by the cause kinds diff names (and the verdict's function_rebuilt,
// static_argument, pytree_change, python_scalar and python_value, which only a framework's words show): a key no cause has would never be said. The front ends are found by the name the probe's records give.
func TestAdviceKeysAreCauseKinds(t *testing.T) {
	check := func(who string, causes map[string]string) {
		for kind, adv := range causes {
			words := kind == verdict.KindFunctionRebuilt || kind == verdict.KindStaticArgument || kind == verdict.KindPytree ||
				kind == verdict.KindPythonScalar || kind == verdict.KindPythonValue
			if diff.AdviceFor(diff.CauseKind(kind)) == "" && !words || adv == "" {
				t.Errorf("%s: advice for %q, which is no cause kind (or says nothing)", who, kind)
			}
		}
	}
	withCauses := 0
	for _, f := range frameworks.All() {
		check(f.Name, f.Advice.Causes)
		if len(f.Advice.Causes) > 0 {
			withCauses++
		}
	}
	if withCauses == 0 {
		t.Error("no stack gives advice by cause: the keys above were never checked")
	}
	fe := frameworks.FrontEnd(keras.Name)
	if fe == nil || len(fe.Causes) == 0 {
		t.Fatalf("no front end %q", keras.Name)
	}
	check(fe.Name, fe.Causes)
	if frameworks.FrontEnd("") != nil || frameworks.FrontEnd("jax") != nil {
		t.Error("a stack or nothing is taken for a front end")
	}
}
