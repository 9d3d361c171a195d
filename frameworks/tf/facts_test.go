package tf

import (
	"strings"
	"testing"

	"github.com/recomp/recomp/frameworks/cause"
)

// TF's parameters of a new trace (its "Creating new FuncGraph" record, as messages' funcGraph
// keeps it) read into what each was called with: a tensor's type as XLA prints it, a Python
// value's repr. TF names no trace before, so none says what changed.
func TestFacts(t *testing.T) {
	why := traceWords + "\nw (POSITIONAL_OR_KEYWORD): TensorSpec(shape=(8, 4), dtype=tf.float16, name=None)\n" +
		"x (POSITIONAL_OR_KEYWORD): TensorSpec(shape=(None, 8), dtype=tf.int64, name=None)\n" +
		"lr (POSITIONAL_OR_KEYWORD): Literal[0.1]\ntraining (KEYWORD_ONLY): Literal[True]\ns (POSITIONAL_OR_KEYWORD): TensorSpec(shape=(), dtype=tf.bool, name=None)"
	want := []cause.Fact{{Arg: "w", New: "f16[8,4]"}, {Arg: "x", New: "s64[?,8]"}, {Kind: cause.Constant, Arg: "lr", New: "0.1"},
		{Arg: "training", New: "True"}, {Arg: "s", New: "pred[]"}}
	got := facts(why)
	if len(got) != len(want) {
		t.Fatalf("%d facts, want %d: %+v", len(got), len(want), got)
	}
	for i, w := range want {
		g := got[i]
		if g.Kind != w.Kind || g.Arg != w.Arg || g.New != w.New || g.Old != "" || g.Change != "" || !strings.HasPrefix(g.Said, w.Arg+" (") {
			t.Errorf("fact %d %+v, want %+v", i, g, w)
		}
	}
	if fs := facts("* at x, now f32[24,8] and before f32[32,8]"); fs != nil {
		t.Errorf("another stack's words read as TF's: %+v", fs)
	}
}

// Whatever follows TF's words, every fact names an argument and a value the text holds.
func FuzzFacts(f *testing.F) {
	f.Add(traceWords + "\nx (POSITIONAL_OR_KEYWORD): TensorSpec(shape=(32, 8), dtype=tf.float32, name=None)")
	f.Add(traceWords + "\nlr (POSITIONAL_OR_KEYWORD): Literal[" + strings.Repeat("9", 200) + "]")
	f.Fuzz(func(t *testing.T, why string) {
		for _, fact := range facts(why) {
			if fact.Arg == "" || !strings.Contains(why, fact.Arg+" (") || fact.Old != "" {
				t.Fatalf("%q: %+v", why, fact)
			}
		}
	})
}

// TF's warning that a function retraced on many of its last calls (the words its rule gives the
// event) is a fact of the function: its own name, as its graphs are named, and the counts.
func TestRetracingFact(t *testing.T) {
	const said = "6 out of the last 7 calls to varying_shapes.<locals>.train_step triggered tf.function retracing"
	fs := facts(said)
	if len(fs) != 1 || fs[0].Arg != "train_step" || fs[0].Traced != 6 || fs[0].Calls != 7 || fs[0].Said != said ||
		!strings.Contains(fs[0].Change, "varying_shapes.<locals>.train_step") || fs[0].Kind != "" {
		t.Errorf("%+v", fs)
	}
}
