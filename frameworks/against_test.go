package frameworks

import (
	"slices"
	"strings"
	"testing"

	"github.com/recomp/recomp/frameworks/cause"
)

// A retrace whose stack names only what each argument was called with now is held against the
// trace before: what changed gets old → new and its kind, what did not is left out; facts that
// say what changed already, or with no trace before, stay as they are.
func TestAgainst(t *testing.T) {
	before := []cause.Fact{{Arg: "x", New: "f32[32,8]"}, {Arg: "lr", New: "0.1", Kind: cause.Constant}, {Arg: "flag", New: "True"}}
	now := []cause.Fact{{Arg: "x", New: "f32[24,8]"}, {Arg: "lr", New: "0.1", Kind: cause.Constant}, {Arg: "flag", New: "False"}, {Arg: "y", New: "s32[4]"}}
	got := Against(before, now)
	want := []cause.Fact{
		{Kind: cause.BatchSize, Arg: "x", Old: "f32[32,8]", New: "f32[24,8]", Change: "x: f32[32,8] → f32[24,8]"},
		{Arg: "flag", Old: "True", New: "False", Change: "flag: True → False"},
		{Arg: "y", New: "s32[4]"},
	}
	if len(got) != len(want) {
		t.Fatalf("%+v, want %+v", got, want)
	}
	for i := range want {
		if got[i].Kind != want[i].Kind || got[i].Arg != want[i].Arg || got[i].Old != want[i].Old || got[i].New != want[i].New || got[i].Change != want[i].Change {
			t.Errorf("fact %d: %+v, want %+v", i, got[i], want[i])
		}
	}
	jax := []cause.Fact{{Kind: cause.BatchSize, Arg: "x", Old: "f32[32,8]", New: "f32[24,8]", Change: "x: f32[32,8] → f32[24,8]"}}
	if g := Against(before, jax); len(g) != 1 || g[0].Old != jax[0].Old || g[0].Kind != jax[0].Kind {
		t.Errorf("a fact that says what changed became %+v", g)
	}
	if g := Against(nil, now); len(g) != len(now) {
		t.Errorf("with no trace before: %+v", g)
	}
	if k := cause.TypeKind("f32[32,8]", "f16[32,8]"); k != cause.Dtype {
		t.Errorf("TypeKind dtype: %q", k)
	}
}

// JAX names the function object it traced (its id): traced again as never seen, the same object
// is the same function whose caches went (jax.clear_caches()), not one made anew; another id
// (a lambda made in a loop) stays a function made anew.
func TestSameObject(t *testing.T) {
	first := Facts("TRACING CACHE MISS at t.py:7 (<module>):\n  never seen function:\n    step id=140707654246752 defined at /tmp/t.py:2")
	again := Facts(again0())
	got := SameObject(first, again)
	i := slices.IndexFunc(got, func(f cause.Fact) bool { return f.Kind == cause.FunctionRebuilt })
	if i < 0 || !strings.HasPrefix(got[i].Change, "the same step traced again as never seen: caches cleared") {
		t.Fatalf("same object: %+v", got)
	}
	if j := slices.IndexFunc(again, func(f cause.Fact) bool { return f.Kind == cause.FunctionRebuilt }); !strings.Contains(again[j].Change, "made anew") {
		t.Errorf("SameObject changed its argument: %+v", again[j])
	}
	anew := Facts(strings.Replace(again0(), "140707654246752", "140707654246999", 1))
	if got := SameObject(first, anew); got != nil {
		t.Errorf("another object: %+v, want nil", got)
	}
	if got := SameObject(nil, again); got != nil {
		t.Errorf("nothing before: %+v, want nil", got)
	}
}

func again0() string {
	return "TRACING CACHE MISS at t.py:7 (<module>):\n  never seen function:\n    step id=140707654246752 defined at /tmp/t.py:2\n" +
		"  but seen another function defined on the same line; maybe the function is\n  being re-defined repeatedly, preventing caching?"
}
