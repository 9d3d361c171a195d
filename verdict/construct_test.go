package verdict

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/recomp/recomp/diff"
	"github.com/recomp/recomp/frameworks"
	"github.com/recomp/recomp/frameworks/cause"
	"github.com/recomp/recomp/ledger"
)

func TestConstructCauseNamesWhatJAXSaid(t *testing.T) {
	for _, tc := range []struct {
		why          string
		kind         cause.Kind
		change, said string
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
		kind, ch, said, ok := constructCause(explained(tc.why))
		if !ok || kind != tc.kind || !strings.Contains(ch, tc.change) || !strings.Contains(said, tc.said) {
			t.Errorf("%q: %v %q %q %q", tc.why, ok, kind, ch, said)
		}
	}
	for _, tc := range []struct{ why, said string }{
		// JAX 0.12 glues its link to the type; 0.4 says "seen …, but now given …"
		{"all previously seen cache keys differ. For the closest previous key:\ndifferent input types:\n  * at beta, now f32[]{weak_type=False} and before f32[]{weak_type=True}https://docs.jax.dev/en/latest/101/type_promotion.html#weak-types",
			"at beta, now f32[]{weak_type=False} and before f32[]{weak_type=True}"},
		{"different input types:\n  * at beta, seen f32[]{weak_type=True}, but now given f32[]{weak_type=False}\nwhere weak_type=True often means a Python builtin numeric value",
			"at beta, seen f32[]{weak_type=True}, but now given f32[]{weak_type=False}"},
	} {
		kind, ch, said, ok := constructCause(explained(tc.why))
		if !ok || kind != KindWeakType || said != tc.said || !strings.Contains(ch, "`beta`") || !strings.Contains(ch, "Python scalar") {
			t.Errorf("%q: %v %q %q %q", tc.why, ok, kind, ch, said)
		}
	}
	for _, why := range []string{"", "different input types:\n  * at x, now f32[24,8] and before f32[32,8]", "never seen function:\n f id=1 defined at t.py:1",
		"different input types:\n  * at x, now bf16[]{weak_type=False} and before f32[]{weak_type=True}"} {
		if _, _, _, ok := constructCause(explained(why)); ok {
			t.Errorf("%q names no construct", why)
		}
	}
}

func TestConstructOverridesOnlyTheGraphsEffect(t *testing.T) {
	if !overrides(KindStaticArgument, diff.CauseConstant) || !overrides(KindPytree, diff.CauseGraphStructure) ||
		!overrides(KindStaticArgument, diff.CauseIdentical) {
		t.Error("a construct the framework names says more than a constant, a structure change or identical graphs")
	}
	if overrides(KindStaticArgument, diff.CauseDtype) || overrides(KindStaticArgument, diff.CauseInputShape) {
		t.Error("a shape or dtype the comparison names stays the main cause of a static argument")
	}
	// a new pytree or a weak type is the call's own: what the graphs show (new parameters, their
	// constants and layouts; nothing at all) follows from it; a new shape, dtype or sharding is
	// another argument's (jax-0.12/adamw-state: the state None → tuple and a longer sequence)
	for _, c := range cause.Dumped {
		effect := c == diff.CauseGraphStructure || c == diff.CauseIdentical || c == diff.CauseConstant || c == diff.CauseLayout || c == diff.CauseModuleConfig
		if overrides(KindPytree, c) != effect || overrides(KindWeakType, c) != effect {
			t.Errorf("JAX's pytree change or weak type over the comparison's %s: %v, want %v", c, overrides(KindPytree, c), effect)
		}
	}
}

func TestDynamoGuardOnAPythonValue(t *testing.T) {
	for _, why := range []string{
		"temperature == 1.0                                       # return torch.softmax(model(x) / temperature, dim=-1)  # t.py:444 in f",
		"triggered by the following guard failure(s):\n    - 0/0: L['temperature'] == 1.0  # t.py:3",
	} {
		kind, ch, said, ok := constructCause(explained(why))
		if !ok || kind != KindPythonScalar || !strings.Contains(ch, "temperature changed from 1.0") || !strings.Contains(said, "temperature'] == 1.0") && !strings.HasPrefix(said, "temperature == 1.0") {
			t.Errorf("%q: %v %q %q %q", why, ok, kind, ch, said)
		}
	}
	if _, _, _, ok := constructCause(explained("tensor 'x' size mismatch at index 1. expected 16, actual 24")); ok {
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
	// two processes of one log, told apart by the probe (pytest -n's workers)
	a, b := u("a", 0), u("a", 0)
	a.PID, b.PID = 11, 22
	if d, r := variants([]*ledger.Unit{a, b}); d != 1 || r != 0 {
		t.Errorf("one graph in each of two processes of one log is no recurrence: %d %d", d, r)
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
		kind, _, said, ok := constructCause(explained(why))
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

// A program whose every recompilation changed one number and nothing else: the number's values
// in the order they compiled, one cause; anything else besides leaves the causes as they are.
func TestFoldNumberNamesTheValues(t *testing.T) {
	unit := func() *ledger.Unit { return &ledger.Unit{Compiled: true, Program: "p"} }
	konst := func(old, new, op string) []diff.Cause {
		return []diff.Cause{{Kind: diff.CauseConstant, Summary: old + " → " + new,
			Constant: &diff.Change{Old: old, New: new, OpName: op, Source: "/src/train.py:465"}}}
	}
	a, b, c := unit(), unit(), unit()
	by := map[*ledger.Unit][]diff.Cause{b: konst("-4", "-6", "aten__triu"), c: konst("-6", "-8", "aten__triu")}
	in := []Cause{{Kind: "constant_value", Change: "-4 → -6", Count: 1, Sites: []string{"t.py:1"}},
		{Kind: "constant_value", Change: "-6 → -8", Count: 1, Sites: []string{"t.py:1"}}}
	out := foldNumber(in, []*ledger.Unit{a, b, c}, by)
	if len(out) != 1 || !slices.Equal(out[0].Numbers, []string{"-4", "-6", "-8"}) || out[0].Source != "train.py:465" || out[0].Count != 2 ||
		out[0].Change != "a number baked into the graph as a constant took 3 values: -4 → -6 → -8 (aten__triu at train.py:465)" {
		t.Fatalf("%+v", out)
	}
	// the comparison paired the number's two uses otherwise (pow's exponent and its gradient's):
	// each change said, no values claimed
	unchained := map[*ledger.Unit][]diff.Cause{b: konst("0.5", "2.5", "prim__Constant"), c: konst("1.5", "3.5", "prim__Constant")}
	if out := foldNumber(in, []*ledger.Unit{a, b, c}, unchained); len(out) != 1 || out[0].Numbers != nil ||
		out[0].Change != "a number baked into the graph as a constant changed 2 times: 0.5 → 2.5; 1.5 → 3.5 (prim__Constant at train.py:465)" {
		t.Errorf("unchained: %+v", out)
	}
	for name, by := range map[string]map[*ledger.Unit][]diff.Cause{
		"another op":        {b: konst("-4", "-6", "aten__triu"), c: konst("-6", "-8", "aten__roll")},
		"an array":          {b: konst("{1, 2}", "{1, 3}", "x"), c: konst("{1, 3}", "{1, 4}", "x")},
		"one not compared":  {b: konst("-4", "-6", "aten__triu")},
		"a shape with it":   {b: konst("-4", "-6", "aten__triu"), c: append(konst("-6", "-8", "aten__triu"), diff.Cause{Kind: diff.CauseInputShape})},
		"constants, no one": {b: {{Kind: diff.CauseConstant}}, c: konst("-6", "-8", "aten__triu")},
	} {
		if out := foldNumber(in, []*ledger.Unit{a, b, c}, by); len(out) != 2 || out[0].Numbers != nil {
			t.Errorf("%s: %+v", name, out)
		}
	}
}

// When a program compiled, by its process's steps: at a steady interval to the end (recurs), or
// early with the rest of the run quiet (paid once), or neither.
func TestCadence(t *testing.T) {
	at := func(steps ...int) []*ledger.Unit {
		var us []*ledger.Unit
		for _, s := range steps {
			us = append(us, &ledger.Unit{Compiled: true, Step: s})
		}
		return us
	}
	for _, c := range []struct {
		steps        []int
		of           int
		every, quiet int
		none         bool
	}{
		{steps: []int{1, 5, 9}, of: 12, every: 4},
		{steps: []int{1, 2, 3, 4, 5, 6}, of: 6, every: 1},
		{steps: []int{1, 2, 3, 4, 5, 6}, of: 12, quiet: 6},
		{steps: []int{1, 4}, of: 8, quiet: 4},
		{steps: []int{1, 4}, of: 6},                 // two, and the run ended soon after: neither
		{steps: []int{1, 5, 9}, of: 20, quiet: 11},  // steady, then quiet: paid once
		{steps: []int{1, 3, 9}, of: 10},             // uneven, and not quiet
		{steps: []int{1, 5}, of: 0, none: true},     // no steps counted
		{steps: []int{1}, of: 10, none: true},       // compiled once
		{steps: []int{5, 1, 9}, of: 12, none: true}, // out of order: not a step count
	} {
		got := cadenceOf(at(c.steps...), c.of)
		if c.none {
			if got != nil {
				t.Errorf("%v of %d: %+v, want none", c.steps, c.of, got)
			}
			continue
		}
		if got == nil || got.Every != c.every || got.Quiet != c.quiet || got.Of != c.of || !slices.Equal(got.Steps, c.steps) {
			t.Errorf("%v of %d: %+v, want every %d, quiet %d", c.steps, c.of, got, c.every, c.quiet)
		}
	}
}

// Batches of many sizes (a serving queue) are padded to buckets, not dropped: drop_last fits only
// an epoch's last partial batch.
func TestSpreadBatchesAreNotDropped(t *testing.T) {
	v := Verdict{Framework: "torch-xla", Causes: []Cause{{Kind: "batch_size"}}}
	for pattern, drop := range map[string]bool{"spread": false, "growing": false, "remainder": true} {
		v.Sizes = &Sizes{Pattern: pattern, Best: -1, Seen: []int{32, 24}}
		if got := action(&v, true, nil, nil); strings.Contains(got, "drop_last") != drop {
			t.Errorf("%s: %s", pattern, got)
		}
	}
}

// Epochs place a cadence's compilations: the same count in every epoch from the first
// compilation's to the last recurs every epoch, or from the next epoch on where the first
// compiled more (set-up besides) and 2 epochs or more follow; all in one epoch, or a gap, does not.
func TestCadenceByEpoch(t *testing.T) {
	at := func(steps ...int) []*ledger.Unit {
		var us []*ledger.Unit
		for i, s := range steps {
			us = append(us, &ledger.Unit{Compiled: true, Step: s, Duration: time.Duration(i+1) * time.Second})
		}
		return us
	}
	for _, c := range []struct {
		steps, starts []int
		of            int
		epochs        []int
		every, from   int
		cost          time.Duration
	}{
		{steps: []int{1, 5, 9}, starts: []int{0, 4, 8}, of: 12, epochs: []int{1, 2, 3}, every: 1, from: 1, cost: 2 * time.Second},
		{steps: []int{1, 2, 5, 6, 9, 10}, starts: []int{0, 4, 8}, of: 12, epochs: []int{1, 1, 2, 2, 3, 3}, every: 2, from: 1, cost: 7 * time.Second},
		{steps: []int{5, 9}, starts: []int{0, 4, 8}, of: 12, epochs: []int{2, 3}, every: 1, from: 2, cost: 1500 * time.Millisecond}, // from epoch 2 on
		{steps: []int{1, 2, 3, 7, 12}, starts: []int{0, 5, 10}, of: 15, epochs: []int{1, 1, 1, 2, 3}, every: 1, from: 2, cost: 4500 * time.Millisecond},
		{steps: []int{1, 2, 7}, starts: []int{0, 5}, of: 10, epochs: []int{1, 1, 2}},        // set-up, then one epoch: too few
		{steps: []int{1, 4}, starts: []int{0, 4}, of: 8, epochs: []int{1, 1}},               // the last partial batch: epoch 1 only
		{steps: []int{1, 9}, starts: []int{0, 4, 8}, of: 12, epochs: []int{1, 3}},           // epoch 2 compiled nothing
		{steps: []int{1, 5, 6}, starts: []int{0, 4}, of: 8, epochs: []int{1, 2, 2}},         // more in the last
		{steps: []int{2, 6}, starts: []int{2, 5}, of: 8, epochs: []int{0, 2}},               // before the first epoch
		{steps: []int{1, 5, 9}, starts: []int{0, 4, 8, 12}, of: 16, epochs: []int{1, 2, 3}}, // not in the last epoch
		{steps: []int{1, 2, 3, 4}, starts: []int{0, 1, 2, 3}, of: 4, epochs: []int{1, 2, 3, 4}, every: 1, from: 1, cost: 2500 * time.Millisecond},
	} {
		units := at(c.steps...)
		got := cadenceOf(units, c.of)
		got.byEpoch(units, c.starts)
		if !slices.Equal(got.Epochs, c.epochs) || got.EveryEpoch != c.every || got.EpochFrom != c.from || got.EpochCost != c.cost || got.EpochsOf != len(c.starts) {
			t.Errorf("%v of %d, epochs from %v: %+v, want epochs %v, every %d from %d, %v an epoch", c.steps, c.of, c.starts, got, c.epochs, c.every, c.from, c.cost)
		}
	}
	units := at(1, 5, 9)
	none := cadenceOf(units, 12)
	none.byEpoch(units, nil)
	if none.Epochs != nil || none.EpochsOf != 0 || none.EveryEpoch != 0 {
		t.Errorf("no epochs known: %+v", none)
	}
	var nothing *Cadence
	nothing.byEpoch(units, []int{0, 4}) // no cadence: nothing to place, no panic
}

// A program whose every recompilation repeated a block of one of the program's own lines a new
// number of times, each taking up the count the last left, and changed nothing else: one cause
// with the counts; a library's line, a broken chain or another cause besides leave the causes.
func TestFoldRepeatNamesTheCounts(t *testing.T) {
	unit := func() *ledger.Unit { return &ledger.Unit{Compiled: true, Program: "p"} }
	rep := func(src string, from, to int, more ...diff.Repeat) []diff.Cause {
		return []diff.Cause{{Kind: diff.CauseGraphStructure, Summary: "the graph's structure changed",
			Repeats: append(more, diff.Repeat{Source: src, Ops: 15, From: from, To: to})}}
	}
	lib := diff.Repeat{Source: "/venv/lib/python3.11/site-packages/torch/nn/functional.py:2901", Ops: 19, From: 2, To: 4}
	a, b, c := unit(), unit(), unit()
	in := []Cause{{Kind: "graph_structure", Change: "the graph's structure changed", Count: 1, Sites: []string{"t.py:1"}},
		{Kind: "graph_structure", Change: "the graph's structure changed", Count: 1, Sites: []string{"t.py:1"}}}
	by := map[*ledger.Unit][]diff.Cause{b: rep("/src/train.py:86", 1, 2, lib), c: rep("/src/train.py:86", 2, 3)}
	out := foldRepeat(in, []*ledger.Unit{a, b, c}, by)
	if len(out) != 1 || !slices.Equal(out[0].Numbers, []string{"1", "2", "3"}) || out[0].Source != "train.py:86" || out[0].Count != 2 ||
		out[0].Change != "a loop count unrolled into the graph: the ops of train.py:86 ran 1 → 2 → 3 times (15 ops each)" {
		t.Fatalf("%+v", out)
	}
	for name, by := range map[string]map[*ledger.Unit][]diff.Cause{
		"a library's line": {b: rep(lib.Source, 1, 2), c: rep(lib.Source, 2, 3)},
		"broken chain":     {b: rep("/src/train.py:86", 1, 2), c: rep("/src/train.py:86", 1, 3)},
		"another line":     {b: rep("/src/train.py:86", 1, 2), c: rep("/src/train.py:90", 2, 3)},
		"one not compared": {b: rep("/src/train.py:86", 1, 2)},
		"a shape with it":  {b: rep("/src/train.py:86", 1, 2), c: append(rep("/src/train.py:86", 2, 3), diff.Cause{Kind: diff.CauseInputShape})},
		"no repeat":        {b: rep("/src/train.py:86", 1, 2), c: {{Kind: diff.CauseGraphStructure}}},
	} {
		if out := foldRepeat(in, []*ledger.Unit{a, b, c}, by); len(out) != 2 || out[0].Numbers != nil {
			t.Errorf("%s: %+v", name, out)
		}
	}
}

// A program whose every recompilation (but set-up, and the first version of another program of
// its name) changed only its structure, and the ops of one of its own lines by the same number
// each time, taking up the count the last left, two times or more: one cause naming the line and
// its op counts, not a loop count; one recompilation, another step, a broken chain, a library's
// line or another cause besides leave the causes.
func TestFoldGrowthNamesTheOps(t *testing.T) {
	unit := func() *ledger.Unit { return &ledger.Unit{Compiled: true, Program: "p"} }
	grow := func(src string, from, to int) []diff.Cause {
		return []diff.Cause{{Kind: diff.CauseGraphStructure, Summary: "the graph's structure changed",
			Grows: []diff.Growth{{Source: src, From: from, To: to}, {Source: "/src/inner.py:23", From: from, To: from + 1}}}}
	}
	once := []diff.Cause{{Kind: diff.CauseGraphStructure, Once: true}}
	a, split, b, c, d := unit(), unit(), unit(), unit(), unit()
	in := []Cause{{Kind: "graph_structure", Change: "the graph's structure changed", Count: 2, Sites: []string{"t.py:1"}}}
	by := map[*ledger.Unit][]diff.Cause{b: once, c: grow("/src/inner.py:20", 8, 13), d: grow("/src/inner.py:20", 13, 18)}
	other := []Explained{{Unit: b, Earlier: split}, {Unit: c, Earlier: b}, {Unit: d, Earlier: c}}
	units := []*ledger.Unit{a, split, b, c, d}
	out := foldGrowth(in, units, by, other)
	if len(out) != 1 || out[0].Source != "inner.py:20" || out[0].Numbers != nil || out[0].Count != 2 ||
		out[0].Change != "a loop that runs more times at each recompilation: the ops of inner.py:20 8 → 13 → 18 (+5 each)" ||
		!strings.Contains(out[0].advice, "not the loop's") {
		t.Fatalf("%+v", out)
	}
	for name, by := range map[string]map[*ledger.Unit][]diff.Cause{
		"one recompilation": {b: once, c: grow("/src/inner.py:20", 8, 13)},
		"another step":      {b: once, c: grow("/src/inner.py:20", 8, 13), d: grow("/src/inner.py:20", 13, 19)},
		"broken chain":      {b: once, c: grow("/src/inner.py:20", 8, 13), d: grow("/src/inner.py:20", 12, 17)},
		"a library's line":  {b: once, c: grow("/venv/lib/python3.11/site-packages/torch/nn/functional.py:2901", 8, 13), d: grow("/venv/lib/python3.11/site-packages/torch/nn/functional.py:2901", 13, 18)},
		"a shape with it":   {b: once, c: grow("/src/inner.py:20", 8, 13), d: append(grow("/src/inner.py:20", 13, 18), diff.Cause{Kind: diff.CauseInputShape})},
	} {
		if name == "a library's line" {
			for _, u := range []*ledger.Unit{c, d} {
				by[u][0].Grows = by[u][0].Grows[:1]
			}
		}
		if out := foldGrowth(in, units, by, other); len(out) != 1 || out[0].Change != in[0].Change {
			t.Errorf("%s: %+v", name, out)
		}
	}
	if out := foldGrowth(in, units, by, other[1:]); len(out) != 1 || out[0].Change != in[0].Change {
		t.Errorf("a recompilation compared with nothing: %+v", out)
	}
}

// The loop count chain skips a recompilation that is set-up (an optimizer's state, created in the
// first step, an input from the second): AdamW and a loop count still name the counts.
func TestFoldRepeatAfterSetUp(t *testing.T) {
	unit := func() *ledger.Unit { return &ledger.Unit{Compiled: true, Program: "p"} }
	rep := func(from, to int) []diff.Cause {
		return []diff.Cause{{Kind: diff.CauseGraphStructure, Repeats: []diff.Repeat{{Source: "/src/train.py:86", Ops: 15, From: from, To: to}}}}
	}
	a, b, c, d := unit(), unit(), unit(), unit()
	in := []Cause{{Kind: "graph_structure", Change: "the graph's structure changed", Count: 2, Sites: []string{"t.py:1"}}}
	by := map[*ledger.Unit][]diff.Cause{b: {{Kind: diff.CauseGraphStructure, Once: true}}, c: rep(1, 2), d: rep(2, 3)}
	if out := foldRepeat(in, []*ledger.Unit{a, b, c, d}, by); len(out) != 1 || !slices.Equal(out[0].Numbers, []string{"1", "2", "3"}) {
		t.Errorf("%+v", out)
	}
}

// explained is a compilation the stack explained in words why, its facts read as the ledger
// reads them when it joins the words.
func explained(why string) *ledger.Unit {
	return &ledger.Unit{Why: why, Facts: frameworks.Facts(why)}
}

// Two changes at one call, each true: the dump shows a longer buffer, JAX says the scalar beside it
// lost its weak type (the token a decoding step returns, fed back). Both are causes of the
// compilation; the stack's words are not dropped because the graphs show something else.
func TestTheStacksWordsStayBesideTheDumpsLead(t *testing.T) {
	u := explained("different input types:\n  * at tok, now i32[]{weak_type=False} and before i32[]{weak_type=True}")
	cs := []diff.Cause{{Kind: diff.CauseBatchSize, Summary: "batch size (leading dimension) changed 3 → 4 in 1 parameter(s)", Short: "3 → 4"}}
	tally := &causeTally{byKey: map[causeKey]*Cause{}}
	tally.addUnit(u, true, "gen.py:16", nil, map[*ledger.Unit][]diff.Cause{u: cs})
	var kinds []cause.Kind
	for _, c := range tally.list() {
		kinds = append(kinds, c.Kind)
	}
	if !slices.Equal(kinds, []cause.Kind{diff.CauseBatchSize, KindWeakType}) {
		t.Errorf("causes %v, want the dump's batch size and JAX's weak type", kinds)
	}
}

// A compilation whose stack's explanation is its analysis' trigger alone (PyTorch/XLA's
// Compilation Cause) is said in recomp's words, the stack's beside them, live as at the end: not
// "the stack said: …" as the cause.
func TestTriggerSaidInOwnVoice(t *testing.T) {
	for _, why := range []string{"user torch_xla.sync", "most likely user code trying to access tensor value before mark_step"} {
		f := frameworks.Facts(why)
		if len(f) != 1 || f[0].Trigger == "" {
			t.Fatalf("%q: %+v, no trigger", why, f)
		}
		u := explained(why)
		tally := &causeTally{byKey: map[causeKey]*Cause{}}
		tally.addUnit(u, true, "train.py:9 (step)", nil, nil)
		live := liveCause([]*ledger.Unit{{Seq: 1}, {Why: why, Facts: u.Facts, Seq: 2}}, "")
		want := f[0].Change + " (torch-xla said: " + why + ")"
		for _, c := range []Cause{tally.list()[0], live} {
			c.Count, c.Sites = 0, nil
			if got := c.Sentence("torch-xla"); got != want {
				t.Errorf("%q: %q, want %q", why, got, want)
			}
			if got := c.Label("torch-xla"); got != "torch-xla's reason" { // recomp's words under it, not the stack's
				t.Errorf("%q: a card labels it %q", why, got)
			}
		}
	}
}
