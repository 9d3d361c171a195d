package verdict

import (
	"strings"
	"testing"

	"github.com/recomp/recomp/diff"
	"github.com/recomp/recomp/ledger"
)

func TestConstructCauseNamesWhatJAXSaid(t *testing.T) {
	for _, tc := range []struct {
		why, kind, change, said string
	}{
		{"for train_step defined at t.py:3\nall previously seen cache keys differ. For the closest previous key:\ncache miss explanation unavailable",
			KindStaticArgument, "a static argument took a new value", "cache miss explanation unavailable"},
		{"for p.<locals>.run defined at t.py:3\nexplanation unavailable! please open an issue at https://github.com/jax-ml/jax",
			KindStaticArgument, "a static argument", "explanation unavailable!"},
		{"different input pytree:\n  * at input path [0][1], now <class 'dict'> with 3 children and before <class 'dict'> with 2 children, so the numbers of children do not match, with the symmetric difference of key sets: {'weights'}",
			KindPytree, "input path [0][1] (positional argument 1, counted from 0): key {'weights'} added", "{'weights'}"},
		{"different input pytree:\n  * at input path [0][0], now <class 'dict'> with 9 children and before <class 'dict'> with 10 children, so the numbers of children do not match, with the symmetric difference of key sets: {'mask'}",
			KindPytree, "key {'mask'} removed", "with 10 children"},
		{"different input pytree:\n  * at input path [0][1], now <class 'tuple'> and before <class 'NoneType'>, so the node types differ",
			KindPytree, "input path [0][1] (positional argument 1, counted from 0): NoneType → tuple", "now <class 'tuple'>"},
	} {
		kind, ch, said, ok := constructCause(tc.why)
		if !ok || kind != tc.kind || !strings.Contains(ch, tc.change) || !strings.Contains(said, tc.said) {
			t.Errorf("%q: %v %q %q %q", tc.why, ok, kind, ch, said)
		}
	}
	for _, why := range []string{"", "different input types:\n  * at x, now f32[24,8] and before f32[32,8]", "never seen function:\n f id=1 defined at t.py:1"} {
		if _, _, _, ok := constructCause(why); ok {
			t.Errorf("%q names no construct", why)
		}
	}
}

func TestConstructOverridesOnlyTheGraphsEffect(t *testing.T) {
	if !overrides(KindStaticArgument, diff.CauseConstant) || !overrides(KindPytree, diff.CauseGraphStructure) ||
		!overrides(KindStaticArgument, diff.CauseIdentical) {
		t.Error("a construct the framework names says more than a constant, a structure change or identical graphs")
	}
	if overrides(KindPytree, diff.CauseInputShape) || overrides(KindPytree, diff.CauseConstant) || overrides(KindStaticArgument, diff.CauseDtype) {
		t.Error("a shape, dtype or constant the comparison names stays the main cause")
	}
}

func TestDynamoGuardOnAPythonValue(t *testing.T) {
	for _, why := range []string{
		"temperature == 1.0                                       # return torch.softmax(model(x) / temperature, dim=-1)  # t.py:444 in f",
		"triggered by the following guard failure(s):\n    - 0/0: L['temperature'] == 1.0  # t.py:3",
	} {
		kind, ch, said, ok := constructCause(why)
		if !ok || kind != KindPythonScalar || !strings.Contains(ch, "temperature changed from 1.0") || !strings.Contains(said, "temperature'] == 1.0") && !strings.HasPrefix(said, "temperature == 1.0") {
			t.Errorf("%q: %v %q %q %q", why, ok, kind, ch, said)
		}
	}
	if _, _, _, ok := constructCause("tensor 'x' size mismatch at index 1. expected 16, actual 24"); ok {
		t.Error("a size guard is a shape, not a Python value")
	}
}

func TestVariantsTellOnceFromRecurring(t *testing.T) {
	u := func(hash string, input int) *ledger.Unit {
		return &ledger.Unit{Hash: hash, Input: input, Compiled: true}
	}
	if d, r := variants([]*ledger.Unit{u("a", 0), u("b", 0), u("c", 0)}); d != 3 || r != 0 {
		t.Errorf("three shapes, each once: %d %d", d, r)
	}
	if d, r := variants([]*ledger.Unit{u("a", 0), u("a", 0), u("a", 0)}); d != 1 || r != 2 {
		t.Errorf("the same graph compiled again: %d %d", d, r)
	}
	if d, r := variants([]*ledger.Unit{u("a", 0), u("a", 1)}); d != 1 || r != 0 {
		t.Errorf("one graph in each of two processes is no recurrence: %d %d", d, r)
	}
	if d, r := variants([]*ledger.Unit{u("a", 0), u("", 0)}); d != 0 || r != 0 {
		t.Errorf("a compilation that names no variant: %d %d", d, r)
	}
}

// FuzzConstructCause: any text, no panic; what it reads is a construct kind, and JAX's words
// come from the text.
func FuzzConstructCause(f *testing.F) {
	for _, s := range []string{"cache miss explanation unavailable", "explanation unavailable!",
		"different input pytree:\n  * at input path [0][1], now <class 'dict'> with 3 children and before <class 'dict'> with 2 children, so the numbers of children do not match, with the symmetric difference of key sets: {'weights'}",
		"different input pytree:\n  * at input path [0][1], now <class 'tuple'> and before <class 'NoneType'>, so the node types differ",
		"- 0/0: L['temperature'] == 1.0  # t.py:3", "temperature == 1.0   # x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, why string) {
		kind, _, said, ok := constructCause(why)
		if !ok {
			return
		}
		switch kind {
		case KindStaticArgument, KindPytree, KindPythonScalar:
		default:
			t.Fatalf("kind %q", kind)
		}
		if kind == KindPythonScalar && !strings.Contains(why, said) {
			t.Fatalf("said %q is not in %q", said, why)
		}
	})
}
