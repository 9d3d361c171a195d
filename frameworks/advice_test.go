package frameworks_test

import (
	"slices"
	"testing"

	"github.com/recomp/recomp/diff"
	"github.com/recomp/recomp/frameworks"
	"github.com/recomp/recomp/frameworks/cause"
	"github.com/recomp/recomp/frameworks/keras"
	"github.com/recomp/recomp/verdict"
)

// Advice by cause is keyed by the cause kinds diff names (and those only a framework's words
// show: function_rebuilt, static_argument, pytree_change, python_scalar and python_value): a key
// no cause has would never be said. The front ends are found by the name the probe's records give.
func TestAdviceKeysAreCauseKinds(t *testing.T) {
	check := func(who string, causes map[cause.Kind]string) {
		for kind, adv := range causes {
			words := slices.Contains(cause.Worded, kind)
			if diff.AdviceFor(kind) == "" && !words || adv == "" {
				t.Errorf("%s: advice for %q, which is no cause kind (or says nothing)", who, kind)
			}
		}
	}
	for _, k := range cause.Dumped {
		if diff.AdviceFor(k) == "" {
			t.Errorf("diff has no advice for %q", k)
		}
	}
	for _, k := range []cause.Kind{verdict.KindFunctionRebuilt, verdict.KindStaticArgument, verdict.KindPytree, verdict.KindPythonScalar, verdict.KindPythonValue} {
		if !slices.Contains(cause.Worded, k) {
			t.Errorf("verdict's kind %q is not in cause.Worded", k)
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
