package verdict

import (
	"fmt"
	"path"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/recomp/recomp/diff"
	"github.com/recomp/recomp/ledger"
)

func read(t testing.TB, log string) *ledger.Report {
	t.Helper()
	s, err := ledger.ReadLogs([]ledger.Log{{Path: "run.log", Reader: strings.NewReader(log)}}, ledger.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return s.Ledger
}

// jaxStep is one JAX compilation of train_step with the shapes of x, explained by JAX when
// it is a retrace, called from line of main.py.
func jaxStep(shape, before string, line int, compile float64) string {
	var b strings.Builder
	b.WriteString("TRACING CACHE MISS at /w/main.py:" + itoa(line) + ":8 (main):\n")
	if before == "" {
		b.WriteString("  never seen function:\n    train_step id=1 defined at /w/main.py:20\n")
	} else {
		b.WriteString("  for train_step defined at /w/main.py:20\n  all previously seen cache keys differ. For the closest previous key:\n" +
			"  different input types:\n  * at x, now f32[" + shape + "] and before f32[" + before + "]\n")
	}
	b.WriteString("Finished tracing train_step for jit in 0.5 sec\n")
	b.WriteString("Compiling jit(train_step) with global shapes and types (ShapedArray(float32[" + shape + "]),). Argument mapping: (UnspecifiedValue,).\n")
	b.WriteString("Finished jaxpr to MLIR module conversion jit(train_step) in 0.25 sec\n")
	b.WriteString("Finished XLA compilation of jit(train_step) in " + ftoa(compile) + " sec\n")
	return b.String()
}

func itoa(n int) string     { return strconv.Itoa(n) }
func ftoa(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// An epoch's last partial batch: the verdict names the program, its cost and share, the
// cause with old → new, the user's line, and the action with what the sizes show. (JAX compiles
// each size once: later epochs reuse them.)
func TestRemainder(t *testing.T) {
	log := jaxStep("32,8", "", 64, 2) + jaxStep("24,8", "32,8", 64, 1)
	r := Build(Input{Ledger: read(t, log), Wall: 20 * time.Second})
	if len(r.Verdicts) != 1 {
		t.Fatalf("verdicts %+v", r.Verdicts)
	}
	v := r.Verdicts[0]
	if v.Program != "jit_train_step" || v.Framework != "jax" || v.Compilations != 2 || v.AfterWarmup != 1 ||
		v.Time != 4500*time.Millisecond || v.LateTime != 1750*time.Millisecond || v.Share != 0.225 {
		t.Errorf("verdict %+v", v)
	}
	if len(v.Causes) != 1 || v.Causes[0].Kind != "batch_size" || v.Causes[0].Change != "x: f32[32,8] → f32[24,8]" || v.Causes[0].Count != 1 ||
		v.Causes[0].Sites[0] != "/w/main.py:64 (main)" {
		t.Errorf("causes %+v", v.Causes)
	}
	if v.Sizes == nil || v.Sizes.Pattern != "remainder" || !strings.HasPrefix(v.Action, "the last batch of each pass has 24 rows, the others 32; drop the last partial batch") {
		t.Errorf("sizes %+v, action %q", v.Sizes, v.Action)
	}
	if r.Compile != 4500*time.Millisecond || r.Recompile != 1750*time.Millisecond || r.Late != 1750*time.Millisecond || r.Unattributed != 0 {
		t.Errorf("totals %+v", r)
	}
	if len(r.Sites) != 1 || r.Sites[0].Site != "/w/main.py:64 (main)" || r.Sites[0].Compilations != 2 || r.Sites[0].AfterWarmup != 1 ||
		r.Sites[0].TopCause != "batch_size" || r.Sites[0].Example != "x: f32[32,8] → f32[24,8]" {
		t.Errorf("sites %+v", r.Sites)
	}
}

// Lengths spread over 49..60: the verdict proposes the sizes to pad to.
func TestSpreadGetsSizes(t *testing.T) {
	var log string
	prev := ""
	for _, n := range []int{53, 49, 60, 51, 57, 58, 50, 55} {
		shape := "8," + itoa(n)
		log += jaxStep(shape, prev, 30, 0.5)
		prev = shape
	}
	v := Build(Input{Ledger: read(t, log)}).Verdicts[0]
	if v.Sizes == nil || v.Sizes.Pattern != "spread" || v.Sizes.What != "x, dimension 1" || v.Causes[0].Kind != "input_shape" {
		t.Fatalf("verdict %+v sizes %+v", v, v.Sizes)
	}
	if !strings.HasPrefix(v.Action, "pad x, dimension 1 to ") || !strings.Contains(v.Action, "instead of 8") || !strings.Contains(v.Action, "jnp.pad") {
		t.Errorf("action %q", v.Action)
	}
}

// Lengths that grow by the same number at every compilation, with nothing more said (no dump
// showing the step returned the buffer it is called with again, no entry appended beside it in
// the signature, no count of steps): a program fed longer and longer inputs, not a generation
// loop's cache. With the new row beside the buffer, it is one (grows_test.go has the dump's
// evidence). Lengths that only rise, not by one step each time, are a spread.
func TestGrowingSizesAloneAreNoCache(t *testing.T) {
	build := func(lengths ...int) Verdict {
		var log string
		prev := ""
		for _, n := range lengths {
			shape := itoa(n) + ",16"
			log += jaxStep(shape, prev, 30, 0.5)
			prev = shape
		}
		return Build(Input{Ledger: read(t, log)}).Verdicts[0]
	}
	// the decode step given its cache and the new row beside it: a buffer appended to each step
	var log string
	for i, n := range []int{8, 9, 10, 11, 12} {
		shape, prev := itoa(n)+",16", ""
		if i > 0 {
			prev = itoa(n-1) + ",16"
		}
		log += strings.Replace(jaxStep(shape, prev, 30, 0.5), "(ShapedArray(float32["+shape+"]),)",
			"(ShapedArray(float32["+shape+"]), ShapedArray(float32[16]))", 1)
	}
	v := Build(Input{Ledger: read(t, log)}).Verdicts[0]
	if v.Sizes == nil || v.Sizes.Grows != 1 || !strings.Contains(v.Causes[0].Change, "grew by 1 at every compilation, 8 to 12") ||
		!strings.Contains(v.Action, "dynamic_update_slice") || strings.Contains(v.Action, "pad ") {
		t.Errorf("appended: causes %+v sizes %+v action %q", v.Causes, v.Sizes, v.Action)
	}
	// named a growing buffer everywhere the answer names a cause, never "batch size"
	if s, l := v.Causes[0].Sentence(v.Framework), v.Causes[0].Label(v.Framework); strings.Contains(s, "batch size") || l != "growing buffer" {
		t.Errorf("sentence %q, label %q", s, l)
	}
	if r := Build(Input{Ledger: read(t, log)}); len(r.Sites) != 1 || r.Sites[0].TopWords() != "growing buffer" {
		t.Errorf("sites %+v", r.Sites)
	}
	for _, lengths := range [][]int{{8, 9, 10, 11, 12}, {8, 9, 11, 12}, {8, 9}, {12, 10, 8}} {
		if v := build(lengths...); v.Sizes != nil && v.Sizes.Grows != 0 || strings.Contains(v.Action, "dynamic_update_slice") ||
			len(v.Causes) == 0 || strings.Contains(v.Causes[0].Change, "generation cache") {
			t.Errorf("%v: growth %+v, causes %+v, action %q", lengths, v.Sizes, v.Causes, v.Action)
		}
	}
}

// An argument is named as JAX's explanation names it (a flattened leaf's index names nothing the
// user wrote: Keras's data[0] is argument 16), by its new shape; without an explanation, by index.
func TestArgName(t *testing.T) {
	shapes := [][][]int{{{6, 12}, {32, 12, 4}, {32, 1}}, {{6, 12}, {32, 17, 4}, {32, 1}}}
	u := []*ledger.Unit{{}, {Why: "for train_step defined at t.py:1\ndifferent input types:\n* at data[0], now f32[32,17,4] and before f32[32,12,4]"}}
	if got := argName(u, shapes, 1); got != "data[0]" {
		t.Errorf("argName = %q, want data[0]", got)
	}
	if got := argName(u, shapes, 2); got != "argument 2" {
		t.Errorf("an argument the explanation does not name: %q", got)
	}
	u[1].Why = "  * at x, seen f32[32,12,4], but now given f32[32,17,4]" // JAX 0.4
	if got := argName(u, shapes, 1); got != "x" {
		t.Errorf("JAX 0.4's wording: %q", got)
	}
}

// With a dump explained, the causes are diff's, and the unit it explained takes them.
func TestExplainedCauses(t *testing.T) {
	rep := read(t, jaxStep("32,8", "", 64, 1)+jaxStep("32,9", "32,8", 70, 1))
	u := rep.Modules[0].Compiled()[1]
	r := Build(Input{Ledger: rep, Dumped: true, Explained: []Explained{{Program: "jit_train_step", Unit: u,
		Causes: []diff.Cause{{Kind: diff.CauseConstant, Summary: "a constant changed: 0.1 → 0.01"}}}}})
	v := r.Verdicts[0]
	if v.Causes[0].Kind != "constant_value" || v.Causes[0].Change != "0.1 → 0.01" || !strings.Contains(v.Action, "pass the value as an array argument") {
		t.Errorf("verdict %+v", v)
	}
}

// State the first step built (an optimizer's) explains one compilation and is expected once:
// it comes after a cause that recurs, even one as frequent, in its own words, and the action
// gives its advice, not the framework's advice for a program whose structure changed.
func TestOnceCausesComeLast(t *testing.T) {
	rep := read(t, jaxStep("32,8", "", 64, 1)+jaxStep("32,8", "32,8", 64, 1)+jaxStep("32,9", "32,8", 64, 1))
	us := rep.Modules[0].Compiled()
	state := diff.Cause{Kind: diff.CauseGraphStructure, Once: true, Summary: "2 input(s) of the second graph hold state …",
		Short: "state created in the first step is an input from then on (2 inputs)", Advice: "expected once: create it before the loop"}
	r := Build(Input{Ledger: rep, Dumped: true, Explained: []Explained{
		{Program: "jit_train_step", Unit: us[1], Causes: []diff.Cause{state}},
		{Program: "jit_train_step", Unit: us[2], Causes: []diff.Cause{{Kind: diff.CauseInputShape, Summary: "x dimension 1: 8 → 9"}}}}})
	v := r.Verdicts[0]
	if len(v.Causes) != 2 || v.Causes[0].Kind != "input_shape" || v.Causes[1].Change != state.Short || !v.Causes[1].Once || v.Causes[0].Once {
		t.Fatalf("causes %+v", v.Causes)
	}
	if !strings.Contains(v.Action, "expected once: create it before the loop") || strings.Contains(v.Action, "control flow") {
		t.Errorf("action %q", v.Action)
	}
	if len(r.Sites) != 1 || r.Sites[0].TopCause != "input_shape" {
		t.Errorf("the line's top cause is the one expected once: %+v", r.Sites)
	}
}

// JAX's "never seen function … being re-defined" is a function made anew: the verdict names it
// (one cause, however many ids JAX printed) and the action says to jit once, outside the loop,
// beside the advice for the batch that also varied.
func TestFunctionRebuilt(t *testing.T) {
	for _, why := range []string{
		"never seen function:\n  train_step id=140135523075232 defined at /w/jax_runs.py:673\nbut seen another function defined on the same line; maybe the function is being re-defined repeatedly, preventing caching?",
		"never seen function: train_step id=99 defined at /w/jax_runs.py:673 but seen another function defined on the same line; maybe the function is being re-defined repeatedly, preventing caching?",
	} {
		kind, ch := reasonCause(explained(why))
		if kind != KindFunctionRebuilt || ch != "train_step made anew (defined at jax_runs.py:673)" {
			t.Errorf("%q: %q %q", why, kind, ch)
		}
	}
	v := Verdict{Framework: "jax", Causes: []Cause{{Kind: "batch_size", Count: 3}, {Kind: KindFunctionRebuilt, Count: 2}}}
	if a := action(&v, false, nil, nil); !strings.Contains(a, "drop the last partial batch") || !strings.Contains(a, "jit once, outside the loop") {
		t.Errorf("action %q", a)
	}
}

// JAX 0.4 says "seen f32[4,55,8], but now given f32[4,54,8]": the commas of a shape are not the
// sentence's.
func TestReasonShapesWithCommas(t *testing.T) {
	for why, want := range map[string]string{
		"closest seen input type signature has 1 mismatches, including:\n  * at x, seen f32[4,55,8], but now given f32[4,54,8]": "x: f32[4,55,8] → f32[4,54,8]",
		"different input types:\n  * at x, now f32[24,8] and before f32[32,8]; * at y, now f32[24,4] and before f32[32,4]":      "x: f32[32,8] → f32[24,8]",
		"* at lr, seen float32[], but now given int32[]":                                                                        "lr: float32[] → int32[]",
	} {
		if _, got := reasonCause(explained(why)); got != want {
			t.Errorf("%q: %q, want %q", why, got, want)
		}
	}
}

// Without argument shapes in the log (PyTorch/XLA), the sizes come from the dumps' comparisons:
// each shape change of the one dimension that varies; a change of another dimension, or of
// two, proposes nothing.
func TestSizesFromComparisons(t *testing.T) {
	units := []*ledger.Unit{{}, {}, {}, {}}
	shape := func(ch string) []diff.Cause {
		return []diff.Cause{{Kind: diff.CauseInputShape, Summary: "parameter 4 (p4.1) shape changed: " + ch}}
	}
	by := map[*ledger.Unit][]diff.Cause{
		units[1]: {{Kind: diff.CauseGraphStructure, Once: true, Summary: "state"}},
		units[2]: shape("s64[2,12]{1,0} → s64[2,17]{1,0}"),
		units[3]: shape("s64[2,17]{1,0} → s64[2,23]{1,0}"),
	}
	sz := sizesOf(units, by)
	if sz == nil || fmt.Sprint(sz.Seen) != "[12 17 23]" || sz.What != "dimension 1" || sz.Best < 0 {
		t.Fatalf("sizes %+v", sz)
	}
	by[units[3]] = shape("s64[2,17]{1,0} → s64[4,17]{1,0}")
	if sz := sizesOf(units, by); sz != nil {
		t.Errorf("two dimensions varied: sizes %+v", sz)
	}
	// A batch size diff names by its numbers (TF's dumps of a Keras step).
	batch := []diff.Cause{{Kind: diff.CauseBatchSize, Summary: "batch size (leading dimension) changed 32 → 4 in 2 parameter(s)"}}
	by = map[*ledger.Unit][]diff.Cause{units[1]: batch}
	if sz := sizesOf(units, by); sz == nil || fmt.Sprint(sz.Seen) != "[32 4]" || sz.Pattern != "remainder" || sz.What != "the batch (leading dimension)" {
		t.Errorf("batch sizes %+v", sz)
	}
}

// A program compiled under Keras's fit (on the JAX backend here) gets Keras's remedy for its
// last partial batch, not the stack's (jnp.pad), with the batch sizes that divide the samples
// the fit was given; one not all under Keras keeps the stack's.
func TestFrontEndAdvice(t *testing.T) {
	rep := read(t, jaxStep("32,8", "", 64, 1)+jaxStep("4,8", "32,8", 64, 1))
	for _, u := range rep.Modules[0].Compiled() {
		u.Via = &ledger.Call{FrontEnd: "keras", Method: "fit", Samples: 100, BatchSize: 32}
	}
	v := Build(Input{Ledger: rep}).Verdicts[0]
	if !strings.Contains(v.Action, "batch_size that divides the number of samples") || strings.Contains(v.Action, "jnp.pad") ||
		!strings.HasPrefix(v.Action, "the last batch of each pass has 4 rows, the others 32: of 100 samples; batch_size 25 (4 steps) or 50 (2 steps) divides them") {
		t.Errorf("under Keras: %q", v.Action)
	}
	if v.Sizes.Samples != 100 || fmt.Sprint(v.Sizes.BatchSizes) != "[25 50]" {
		t.Errorf("sizes %+v", v.Sizes)
	}
	// A call whose remainder is not the one compiled says nothing of its samples.
	for _, u := range rep.Modules[0].Compiled() {
		u.Via = &ledger.Call{FrontEnd: "keras", Method: "fit", Samples: 90, BatchSize: 32}
	}
	if v := Build(Input{Ledger: rep}).Verdicts[0]; v.Sizes.Samples != 0 || strings.Contains(v.Action, "samples;") {
		t.Errorf("another call's samples: %q", v.Action)
	}
	rep.Modules[0].Compiled()[0].Via = nil
	if v := Build(Input{Ledger: rep}).Verdicts[0]; !strings.Contains(v.Action, "jnp.pad") {
		t.Errorf("not all under Keras: %q", v.Action)
	}
}

// The divisors proposed are the nearest below and above the batch size, within a factor of 2.
func TestDivisorsNear(t *testing.T) {
	for _, c := range []struct {
		n, b int
		want string
	}{{100, 32, "[25 50]"}, {1000, 64, "[50 100]"}, {97, 32, "[]"}, {60000, 128, "[125 150]"}, {20, 32, "[20]"}, {1 << 62, 1 << 40, "[]"}} {
		if got := fmt.Sprint(divisorsNear(c.n, c.b)); got != c.want {
			t.Errorf("divisorsNear(%d, %d) = %s, want %s", c.n, c.b, got, c.want)
		}
	}
}

// JAX's "cache miss explanation unavailable" (the same function, its pytree, names and types
// unchanged) names a static argument, with JAX's words; beside a batch size the dumps show for
// another compilation, both are listed.
func TestWordsWithoutAChange(t *testing.T) {
	unavailable := strings.Replace(jaxStep("32,8", "32,8", 64, 1), "different input types:\n  * at x, now f32[32,8] and before f32[32,8]",
		"cache miss explanation unavailable", 1)
	rep := read(t, jaxStep("32,8", "", 64, 1)+unavailable+jaxStep("24,8", "32,8", 64, 1))
	us := rep.Modules[0].Compiled()
	if len(us) != 3 || !strings.Contains(us[1].Why, "unavailable") {
		t.Fatalf("units %d, why %q", len(us), us[1].Why)
	}
	only := Build(Input{Ledger: read(t, jaxStep("32,8", "", 64, 1)+unavailable)}).Verdicts[0]
	if len(only.Causes) != 1 || only.Causes[0].Kind != KindStaticArgument || !strings.Contains(only.Causes[0].Said, "unavailable") ||
		!strings.Contains(only.Action, "static_argnums") {
		t.Errorf("the words alone: %+v, action %q", only.Causes, only.Action)
	}
	v := Build(Input{Ledger: rep, Dumped: true, Explained: []Explained{{Program: "jit_train_step", Unit: us[2],
		Causes: []diff.Cause{{Kind: diff.CauseBatchSize, Summary: "batch size (leading dimension) changed 32 → 24 in 1 parameter(s)"}}}}}).Verdicts[0]
	if len(v.Causes) != 2 || v.Causes[0].Kind != KindStaticArgument || v.Causes[1].Kind != "batch_size" {
		t.Errorf("beside a batch size: %+v", v.Causes)
	}
	// linked to a comparison that shows only a constant, the static argument names the cause
	v = Build(Input{Ledger: rep, Dumped: true, Explained: []Explained{{Program: "jit_train_step", Unit: us[1],
		Causes: []diff.Cause{{Kind: diff.CauseConstant, Summary: "constant 0.1 → 0.05"}}}}}).Verdicts[0]
	if v.Causes[0].Kind != KindStaticArgument || v.Causes[0].Said == "" {
		t.Errorf("over a constant: %+v", v.Causes)
	}
}

// The ranks of a job each compile the step once: no compilation is another's recompilation
// (two ranks, or 2000), the sum is not one process's time, and the run's wall time is held
// against the slowest rank's compile time, not the sum.
func TestRanksAreNotRecompilations(t *testing.T) {
	sizes := []int{2, 2000}
	if testing.Short() {
		sizes = []int{2, 300}
	}
	for _, n := range sizes {
		var logs []ledger.Log
		for r := range n {
			logs = append(logs, ledger.Log{Path: fmt.Sprintf("rank%d.log", r), Reader: strings.NewReader(jaxStep("32,8", "", 64, 1+float64(r%3)))})
		}
		s, err := ledger.ReadLogs(logs, ledger.ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		r := Build(Input{Ledger: s.Ledger, Wall: 10 * time.Second})
		if r.Recompile != 0 || len(r.Verdicts) != 0 || r.Processes != n {
			t.Errorf("%d ranks: recompile %v, verdicts %d, processes %d", n, r.Recompile, len(r.Verdicts), r.Processes)
		}
		// each rank: 0.5s tracing, 0.25s lowering, 1-3s compiling; the slowest 3.75s
		slowest, name := 3750*time.Millisecond, "rank2.log"
		if n == 2 {
			slowest, name = 2750*time.Millisecond, "rank1.log"
		}
		if r.Slowest != slowest || r.SlowestProcess != name || r.Wall != 10*time.Second || r.WallExceeded != 0 {
			t.Errorf("%d ranks: slowest %v (%s), wall %v, exceeded %v", n, r.Slowest, r.SlowestProcess, r.Wall, r.WallExceeded)
		}
	}
}

// A TF program nothing else explains (a log without the level-1 trace records or a dump) is
// explained by TF's own warning that its function retraced on many of its last calls: the
// function named, with the counts, in recomp's words and TF's.
func TestRetracingWarningNamesTheFunction(t *testing.T) {
	s, err := ledger.ReadLogs(ledger.Files([]string{"../testdata/runs/tf-2.21/varying-shapes/run.log"}), ledger.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r := Build(Input{Ledger: s.Ledger})
	if len(r.Verdicts) != 1 || len(r.Verdicts[0].Causes) != 1 {
		t.Fatalf("verdicts %+v", r.Verdicts)
	}
	c := r.Verdicts[0].Causes[0]
	if got := c.Sentence(r.Verdicts[0].Framework); !strings.Contains(got, "`varying_shapes.<locals>.train_step` traced again on 6 of its last 7 calls") ||
		!strings.Contains(got, "said: 6 out of the last 7 calls") {
		t.Errorf("cause %q", got)
	}
}

// The headline names the slowest process as the user named it: Input.UserName, asked once
// when the verdict is built, not again for each sentence.
func TestSlowestProcessNamedOnce(t *testing.T) {
	var logs []ledger.Log
	for r := range 2 {
		logs = append(logs, ledger.Log{Path: fmt.Sprintf("r%d/run.log", r), Reader: strings.NewReader(jaxStep("32,8", "", 64, 1+float64(r)))})
	}
	s, err := ledger.ReadLogs(logs, ledger.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	asked := 0
	r := Build(Input{Ledger: s.Ledger, Wall: 10 * time.Second, UserName: func(log string) string { asked++; return path.Dir(log) }})
	for range 3 {
		if h := r.Headline(); !strings.Contains(h, "the slowest, r1, ") {
			t.Errorf("headline %q", h)
		}
	}
	if asked != 1 || r.SlowestProcess != "r1/run.log" {
		t.Errorf("UserName asked %d times; slowest process %q", asked, r.SlowestProcess)
	}
}
