package verdict

import (
	"strings"
	"testing"
	"time"

	"github.com/recomp/recomp/frameworks/cause"
)

// The cadence says "every epoch" with the cost of an epoch where epochs are known, "every N
// steps" where they are not, and names the epoch of a once-paid run of compilations.
func TestRecurrenceByEpoch(t *testing.T) {
	v := Verdict{Compilations: 3, Time: 3 * time.Second, Variants: 3}
	for _, c := range []struct {
		cad  Cadence
		want string
	}{
		{Cadence{Steps: []int{1, 5, 9}, Of: 12, Every: 4, Epochs: []int{1, 2, 3}, EpochsOf: 3, EveryEpoch: 1},
			"; recurs every epoch (compiled in epochs 1–3 of 3, at steps 1, 5, 9 of 12): ≈ 1.0s an epoch"},
		{Cadence{Steps: []int{5, 9}, Of: 12, Epochs: []int{2, 3}, EpochsOf: 3, EveryEpoch: 1},
			"; recurs every epoch (compiled in epochs 2 and 3 of 3, at steps 5, 9 of 12): ≈ 1.0s an epoch"},
		{Cadence{Steps: []int{1, 2, 3, 7, 12}, Of: 15, Epochs: []int{1, 1, 1, 2, 3}, EpochsOf: 3, EveryEpoch: 1, EpochFrom: 2, EpochCost: 2100 * time.Millisecond},
			"; recurs every epoch from epoch 2 (compiled in epochs 1–3 of 3, at steps 1, 2, 3, 7, 12 of 15): ≈ 2.1s an epoch"},
		{Cadence{Steps: []int{1, 2, 5}, Of: 8, Epochs: []int{1, 1, 2}, EpochsOf: 2},
			""},
		{Cadence{Steps: []int{1, 5, 9}, Of: 12, Every: 4},
			"; recurs every 4 steps (compiled at steps 1, 5, 9 of 12): ≈ 1.0s every 4 steps"},
		{Cadence{Steps: []int{1, 2, 3}, Of: 12, Quiet: 9, Epochs: []int{1, 1, 1}, EpochsOf: 3},
			"; paid once: 3 graphs, all in epoch 1 of 3, compiled at steps 1–3 of 12 (≈ 1.0s each), none in the 9 steps after"},
	} {
		v.Cadence = &c.cad
		got := v.recurrence()
		if c.want == "" {
			if strings.Contains(got, "epoch") {
				t.Errorf("%+v: %q, want no epoch", c.cad, got)
			}
			continue
		}
		if got != c.want {
			t.Errorf("%+v:\n got %q\nwant %q", c.cad, got, c.want)
		}
	}
	v.Compilations, v.Time = 6, 6*time.Second
	v.Cadence = &Cadence{Steps: []int{1, 2, 5, 6}, Of: 8, Epochs: []int{1, 1, 2, 2}, EpochsOf: 2, EveryEpoch: 2}
	if got, want := v.recurrence(), "≈ 2.0s an epoch"; !strings.Contains(got, want) || !strings.Contains(got, "2× an epoch") {
		t.Errorf("two an epoch: %q, want %q", got, want)
	}
}

// A cause line says its kind once: before a change that does not name it, never before one
// that does.
func TestCauseLineSaysItsKindOnce(t *testing.T) {
	for _, tc := range []struct {
		c    Cause
		want string
	}{
		{Cause{Kind: "static_argument", Change: "static argument `dropout` changed 0.1 → 0.0 (one compilation per value)", Count: 6},
			"static argument `dropout` changed 0.1 → 0.0 (one compilation per value), the cause of 6 recompilations"},
		{Cause{Kind: "python_value", Change: "a Python value seen at trace time (a static argument or a closed-over number) changed: 0.9 → 0.933"},
			"a Python value seen at trace time (a static argument or a closed-over number) changed: 0.9 → 0.933"},
		{Cause{Kind: "constant_value", Change: "0.9 → 0.933", Count: 2}, "constant value 0.9 → 0.933, the cause of 2 recompilations"},
		{Cause{Kind: "graph_structure", Change: "the graph's structure changed: 4 removed"}, "graph structure, the graph's structure changed: 4 removed"},
	} {
		if got := tc.c.Sentence("jax"); got != tc.want {
			t.Errorf("got  %q\nwant %q", got, tc.want)
		}
	}
}

// A verdict's variants, with the probe's static values in their key, are not "argument
// signatures": with them a JAX program of 2 signatures and 4 values has 8 variants.
func TestVariantsWithStaticValues(t *testing.T) {
	v := Verdict{Framework: "jax", Compilations: 8, Variants: 8, Time: 8 * time.Second}
	if got := v.recurrence(); !strings.Contains(got, "8 argument signatures, each compiled once") {
		t.Errorf("without static values: %q", got)
	}
	v.Causes = []Cause{{Kind: KindStaticArgument, Values: []Values{{Name: "dropout", Seen: []string{"0.1", "0.0"}}}}}
	if got := v.recurrence(); !strings.Contains(got, "8 variants (argument signature and static values), each compiled once") {
		t.Errorf("with static values: %q", got)
	}
}

// A card's cause label says what the rest of the answer says: the "Your lines" table's words for
// the kind, a tf.function's "Python argument" (not the JSON kind static_argument).
func TestCauseLabelInTheAnswersWords(t *testing.T) {
	for _, c := range []struct {
		kind            cause.Kind
		framework, want string
	}{
		{KindStaticArgument, "tf", "Python argument"},
		{KindStaticArgument, "jax", "static argument"},
		{"batch_size", "jax", "batch size"},
		{"", "torch", "torch said"},
		{"", "", "framework said"},
	} {
		if got := (Cause{Kind: c.kind}).Label(c.framework); got != c.want {
			t.Errorf("Label(%q) of %q = %q, want %q", c.framework, c.kind, got, c.want)
		}
	}
}
