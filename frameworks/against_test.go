package frameworks

import (
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
