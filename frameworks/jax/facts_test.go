package jax

import (
	"slices"
	"strings"
	"testing"

	"github.com/recomp/recomp/frameworks/cause"
)

// JAX's explanations, as 0.4 and 0.12 word them, read into the facts they state, strongest first.
func TestFacts(t *testing.T) {
	meta := func(v string) string {
		return "GraphDef(nodes=[NodeDef(type='Model')], attributes=[('in_features', Static(value=8)), ('temperature', Static(value=" + v + "))], num_leaves=2)"
	}
	for _, c := range []struct {
		why  string
		want []cause.Fact
	}{
		{"for train_step defined at t.py:3\n  all previously seen cache keys differ. For the closest previous key:\n  different input types:\n  * at x, now f32[24,8] and before f32[32,8]",
			[]cause.Fact{{Kind: cause.BatchSize, Arg: "x", Old: "f32[32,8]", New: "f32[24,8]", Change: "x: f32[32,8] → f32[24,8]", Said: "at x, now f32[24,8] and before f32[32,8]"}}},
		{"different input types:\n  * at tokens, now f32[4,24,8] and before f32[32,32,8]\n  * at mask, now f32[4,24] and before f32[32,32]\n  * at y, now f32[4,4] and before f32[32,4]",
			[]cause.Fact{{Kind: cause.BatchSize, Arg: "tokens", Change: "tokens: f32[32,32,8] → f32[4,24,8]"}, {Kind: cause.BatchSize, Arg: "mask"}, {Kind: cause.BatchSize, Arg: "y"}}},
		{"  * at v, seen f32[8,8,8], but now given f32[16,16,16]", []cause.Fact{{Kind: cause.InputShape, Arg: "v"}}},
		{"  * at a, now f32[4,6] and before f32[32,8]\n  * at b, now f32[8] and before f32[32]",
			[]cause.Fact{{Kind: cause.InputShape, Arg: "a"}, {Kind: cause.BatchSize, Arg: "b"}}},
		{"closest seen input type signature has 1 mismatches, including:\n    * at x, seen f32[4,16,8], but now given bf16[4,16,8]",
			[]cause.Fact{{Kind: cause.Dtype, Arg: "x", Old: "f32[4,16,8]", New: "bf16[4,16,8]", Change: "x: f32[4,16,8] → bf16[4,16,8]", Said: "at x, seen f32[4,16,8], but now given bf16[4,16,8]"}}},
		{"  * at beta, now f32[]{weak_type=False} and before f32[]{weak_type=True}https://docs.jax.dev/en/latest/101/type_promotion.html#weak-types",
			[]cause.Fact{{Kind: cause.WeakType, Arg: "beta"}, {Kind: cause.InputShape, Arg: "beta", Old: "f32[]{weak_type=True}", New: "f32[]{weak_type=False}"}}},
		{"never seen function:\n  train_step id=1 defined at /w/jax_runs.py:673\nbut seen another function defined on the same line; maybe the function is being re-defined repeatedly, preventing caching?",
			[]cause.Fact{{Kind: cause.FunctionRebuilt, Arg: "train_step", Change: "train_step made anew (defined at jax_runs.py:673)"}, {First: true}}},
		{"never seen function:\n  train_step id=1 defined at /w/main.py:20", []cause.Fact{{First: true}}},
		{"different input pytree:\n  * at input path [0][0]._graphdef, now <class 'G'> with pytree metadata " + meta("1.0") +
			" and before <class 'G'> with pytree metadata " + meta("2.0") + ", so the pytree node metadata does not match",
			[]cause.Fact{{Kind: cause.Pytree, Metadata: "[0][0]._graphdef", Attributes: []cause.Attribute{{Name: "temperature", Old: "2.0", New: "1.0"}}}}},
		{"Finished tracing train_step for jit in 0.5 sec", nil},
	} {
		got := facts(c.why)
		if len(got) != len(c.want) {
			t.Errorf("%q: %d facts, want %d: %+v", c.why, len(got), len(c.want), got)
			continue
		}
		for i, w := range c.want {
			g := got[i]
			if g.Kind != w.Kind || g.Arg != w.Arg || g.First != w.First || g.Metadata != w.Metadata || !slices.Equal(g.Attributes, w.Attributes) ||
				w.Old != "" && (g.Old != w.Old || g.New != w.New) || w.Change != "" && g.Change != w.Change || w.Said != "" && g.Said != w.Said {
				t.Errorf("%q: fact %d %+v, want %+v", c.why, i, g, w)
			}
		}
	}
	for why, want := range map[string][]string{
		"* at beta, now f32[]{weak_type=False} and before f32[]{weak_type=True}": {"jnp.float32(beta)", "a Python float every time"},
		"* at step, now s32[]{weak_type=True} and before s32[]{weak_type=False}": {"jnp.int32(step)", "a Python int every time"},
		"* at z, now c64[]{weak_type=True} and before c64[]{weak_type=False}":    {"jnp.asarray(z) with one dtype"},
	} {
		f := facts(why)[0]
		for _, w := range want {
			if f.Kind != cause.WeakType || !strings.Contains(f.Advice, w) {
				t.Errorf("%q: the weak type's remedy %q lacks %q", why, f.Advice, w)
			}
		}
	}
}

// JAX's pytree-metadata explanations, whatever their text: the static attributes read are ones
// the text names with different values now and before, and the path is in the text.
func FuzzFacts(f *testing.F) {
	f.Add("different input pytree:\n  * at input path [0][0]._graphdef, now <class 'G'> with pytree metadata G(attributes=[('t', Static(value=1.0))]) and before <class 'G'> with pytree metadata G(attributes=[('t', Static(value=2.0))]), so the pytree node metadata does not match")
	f.Add("* at input path [0], now x with pytree metadata")
	f.Add("* at beta, seen f32[]{weak_type=True}, but now given f32[]{weak_type=False}")
	f.Fuzz(func(t *testing.T, why string) {
		for _, fact := range facts(why) {
			for _, a := range fact.Attributes {
				if a.Old == a.New || !strings.Contains(why, "('"+a.Name+"', Static(value=") {
					t.Fatalf("%q: %+v", why, a)
				}
			}
			if fact.Metadata != "" && !strings.Contains(why, "at input path "+fact.Metadata+", now ") {
				t.Fatalf("%q: path %q", why, fact.Metadata)
			}
			if fact.Arg != "" && !strings.Contains(why, fact.Arg) {
				t.Fatalf("%q: argument %q", why, fact.Arg)
			}
		}
	})
}
