package live

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/recomp/recomp/ledger"
	"github.com/recomp/recomp/logscan"
	"github.com/recomp/recomp/runfolder"
	"github.com/recomp/recomp/verdict"
)

// One program's live lines are said at most every Every: the compilations in between are
// summed into its next line, and those never said into the last words; another program is said
// at once.
func TestLiveLinesRateLimited(t *testing.T) {
	compile := func(fn, batch string, secs string) string {
		return "WARNING:jax._src.interpreters.pxla:Compiling jit(" + fn + ") with global shapes and types (ShapedArray(float32[" + batch + ",8]),). Argument mapping: (UnspecifiedValue,).\n" +
			"WARNING:jax._src.dispatch:Finished XLA compilation of jit(" + fn + ") in " + secs + " sec\n"
	}
	clock := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	l := NewLines(ledger.LiveOptions{}, "recomp run", false, NewTally(StopPolicy{}))
	l.now = func() time.Time { return clock }
	var said []string
	feed := func(s string) {
		for _, n := range l.Log([]byte(s), 0) {
			said = append(said, n.Text)
		}
	}
	feed(compile("step", "32", "1.0") + compile("eval", "32", "1.0"))
	for _, b := range []string{"24", "16", "8"} {
		feed(compile("step", b, "0.5"))
	}
	feed(compile("eval", "24", "0.25"))
	clock = clock.Add(Every + time.Second)
	feed(compile("step", "4", "0.5"))
	for _, b := range []string{"2", "1"} {
		feed(compile("step", b, "0.5"))
	}
	_, notes := l.Close()
	for _, n := range notes {
		said = append(said, n.Text)
	}
	want := []string{
		"recomp run: ✗ jit_step compiled after warm-up (compilation 2): arguments (ShapedArray(float32[32,8]),) → (ShapedArray(float32[24,8]),), 0.50 s compiling\n",
		"recomp run: ✗ jit_eval compiled after warm-up (compilation 2): arguments (ShapedArray(float32[32,8]),) → (ShapedArray(float32[24,8]),), 0.25 s compiling\n",
		"recomp run: ✗ jit_step compiled after warm-up (compilation 5): arguments (ShapedArray(float32[8,8]),) → (ShapedArray(float32[4,8]),), 0.50 s compiling; 2 more since 12:00:00 (1.00 s)\n",
		"recomp run: jit_step compiled 2 more time(s) after warm-up since its last line (1.00 s)\n",
	}
	if strings.Join(said, "") != strings.Join(want, "") {
		t.Errorf("said:\n%s\nwant:\n%s", strings.Join(said, ""), strings.Join(want, ""))
	}
}

// A JAX compilation of argument types the program compiled before is no shape change (most often
// a static argument): its live line says so, not the types of JAX's closest key.
func TestLiveLineSameTypesAgain(t *testing.T) {
	miss := func(now, before string) string {
		return "WARNING:jax._src.pjit:TRACING CACHE MISS at /home/me/train.py:29:12 (main):\n  for step defined at /home/me/train.py:16\n" +
			"  all previously seen cache keys differ. For the closest previous key:\n  different input types:\n  * at x, now f32[" + now + ",16] and before f32[" + before + ",16]\n" +
			"WARNING:jax._src.interpreters.pxla:Compiling jit(step) with global shapes and types (ShapedArray(float32[" + now + ",16]),). Argument mapping: (UnspecifiedValue,).\n" +
			"WARNING:jax._src.dispatch:Finished XLA compilation of jit(step) in 0.5 sec\n"
	}
	l := NewLines(ledger.LiveOptions{}, "recomp run", false, NewTally(StopPolicy{}))
	l.Every = 0
	var said []string
	for _, s := range []string{
		"WARNING:jax._src.interpreters.pxla:Compiling jit(step) with global shapes and types (ShapedArray(float32[128,16]),). Argument mapping: (UnspecifiedValue,).\n" +
			"WARNING:jax._src.dispatch:Finished XLA compilation of jit(step) in 0.5 sec\n",
		miss("104", "128"), miss("128", "104"),
	} {
		for _, n := range l.Log([]byte(s), 0) {
			said = append(said, n.Text)
		}
	}
	if len(said) != 2 || !strings.Contains(said[0], "x: f32[128,16] → f32[104,16]") ||
		!strings.Contains(said[1], "a Python value seen at trace time (a static argument or a closed-over number) changed") {
		t.Errorf("said %q", said)
	}
}

// A live line names the front end's step first when the probe saw the call it compiled under
// (Keras's evaluate runs its test step).
func TestLiveLineNamesKerasStep(t *testing.T) {
	u := ledger.LiveUnit{Unit: &ledger.Unit{Family: "__inference_one_step_on_data_N [inference_one_step_on_data_1005]", Seq: 2,
		Via: &ledger.Call{FrontEnd: "keras", Method: "evaluate", Samples: 100, BatchSize: 64}}}
	got := describe(u, false)
	if want := "✗ Keras test step (evaluate) · __inference_one_step_on_data_N [inference_one_step_on_data_1005] compiled after warm-up (compilation 2)"; got != want {
		t.Errorf("live line %q, want %q", got, want)
	}
	u.Via = nil
	if got := describe(u, false); strings.Contains(got, "Keras") {
		t.Errorf("a compilation no Keras call ran names a step: %q", got)
	}
}

// TestLiveLineNamesKerasJAXStep: on JAX, the step is named from JAX's explanation of the function it
// traced, which Keras's trainer defines (fit's train step, which no call names alone); a train_step of
// the program's own is not Keras's.
func TestLiveLineNamesKerasJAXStep(t *testing.T) {
	why := "for train_step defined at /v/lib/python3.12/site-packages/keras/src/backend/jax/trainer.py:123\n" +
		"all previously seen cache keys differ. For the closest previous key:\ndifferent input types:\n* at data[0], now f32[4,6] and before f32[32,6]"
	u := ledger.LiveUnit{Unit: &ledger.Unit{Family: "jit_train_step", Module: "jit_train_step", Producer: logscan.ProducerJAX, Seq: 2, Why: why,
		Via: &ledger.Call{FrontEnd: "keras", Method: "fit", Samples: 100, BatchSize: 32}}}
	if got, want := describe(u, false), "✗ Keras train step · jit_train_step compiled after warm-up (compilation 2)"; !strings.HasPrefix(got, want) {
		t.Errorf("live line %q, want %q", got, want)
	}
	u.Why = strings.Replace(why, "/v/lib/python3.12/site-packages/keras/src/backend/jax/trainer.py", "/home/me/train.py", 1)
	u.Via = nil
	if got := describe(u, false); strings.Contains(got, "Keras") {
		t.Errorf("the program's own train_step is named a Keras step: %q", got)
	}
}

// The last words about a Keras-on-JAX step's held compilations name the step as its live line did.
func TestLiveHeldLineNamesKerasStep(t *testing.T) {
	const trainer = "/v/lib/python3.12/site-packages/keras/src/backend/jax/trainer.py"
	compile := func(batch, before string) string {
		why := "  never seen function:\n    test_step id=140311753059456 defined at " + trainer + ":167\n"
		if before != "" {
			why = "  for test_step defined at " + trainer + ":167\n" +
				"  all previously seen cache keys differ. For the closest previous key:\n" +
				"  different input types:\n" +
				"  * at data[0], now f32[" + batch + ",6] and before f32[" + before + ",6]\n"
		}
		return "TRACING CACHE MISS at " + trainer + ":257:23 (JAXTrainer._make_function.<locals>.iterator_step):\n" + why +
			"Compiling jit(test_step) with global shapes and types (ShapedArray(float32[" + batch + ",6]),). Argument mapping: (UnspecifiedValue,).\n" +
			"Finished XLA compilation of jit(test_step) in 0.5 sec\n"
	}
	clock := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	l := NewLines(ledger.LiveOptions{}, "recomp run", false, NewTally(StopPolicy{}))
	l.now = func() time.Time { return clock }
	var said []string
	for _, b := range [][2]string{{"32", ""}, {"8", "32"}, {"16", "32"}} {
		for _, n := range l.Log([]byte(compile(b[0], b[1])), 0) {
			said = append(said, n.Text)
		}
	}
	_, notes := l.Close()
	for _, n := range notes {
		said = append(said, n.Text)
	}
	all := strings.Join(said, "")
	if !strings.Contains(all, "✗ Keras test step (validation or evaluate) · jit_test_step compiled after warm-up") ||
		!strings.Contains(all, "recomp run: Keras test step (validation or evaluate) · jit_test_step compiled 1 more time(s)") {
		t.Errorf("said:\n%s", all)
	}
}

// TestLiveLineNamesStaticArgument: under recomp run's probe, which records the static arguments of
// each JAX trace, a live line names the static argument that changed and its values so far, as
// the report at the end does; a batch compiled before under another value says so; the
// probe's traces after a compilation's line are not its own.
func TestLiveLineNamesStaticArgument(t *testing.T) {
	dir := t.TempDir()
	base := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	at := func(s int) float64 { return float64(base.Add(time.Duration(s)*time.Second).UnixNano()) / 1e9 }
	var probe strings.Builder
	for _, c := range []struct {
		sec     int
		dropout string
	}{{0, "0.1"}, {10, "0.1"}, {20, "0.07500000000000001"}, {30, "0.07500000000000001"}, {40, "0.05"}} {
		fmt.Fprintf(&probe, `{"framework":"jax","event":"trace","seconds":0.1,"name":"train_step","static":[{"name":"dropout","value":%q}],"t":%f,"pid":7}`+"\n", c.dropout, at(c.sec))
	}
	if err := os.WriteFile(filepath.Join(dir, runfolder.ProbeName), []byte(probe.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	compile := func(sec int, batch string) string {
		stamp := base.Add(time.Duration(sec)*time.Second + 500*time.Millisecond).Format(time.RFC3339Nano)
		return stamp + " WARNING:jax._src.interpreters.pxla:Compiling jit(train_step) with global shapes and types (ShapedArray(float32[" + batch + ",8]),). Argument mapping: (UnspecifiedValue,).\n" +
			stamp + " WARNING:jax._src.dispatch:Finished XLA compilation of jit(train_step) in 0.5 sec\n"
	}
	clock := base
	l := NewLines(ledger.LiveOptions{}, "recomp run", false, NewTally(StopPolicy{}))
	l.now = func() time.Time { return clock }
	l.FollowProbe(dir)
	var said []string
	for _, c := range []struct {
		sec   int
		batch string
	}{{0, "128"}, {10, "104"}, {20, "128"}, {30, "104"}} {
		clock = clock.Add(Every + time.Second)
		for _, n := range l.Log([]byte(compile(c.sec, c.batch)), 0) {
			said = append(said, n.Text)
		}
	}
	want := []string{
		"static argument `dropout` changed 0.1 → 0.075",
		"static argument `dropout` now 0.075 (the same argument types compiled before with 0.1)",
	}
	if len(said) != 3 || !strings.Contains(said[0], "arguments (ShapedArray(float32[128,8]),) → (ShapedArray(float32[104,8]),)") ||
		!strings.Contains(said[1], ": "+want[0]+",") || !strings.Contains(said[2], ": "+want[1]+",") {
		t.Errorf("said:\n%s\nwant the batch, then:\n%s", strings.Join(said, ""), strings.Join(want, "\n"))
	}
}

// TestLiveLineNamesNNXAttribute: a flax nnx Module's plain attribute changed is named on the live
// line from JAX's explanation, as the report names it, not guessed.
func TestLiveLineNamesNNXAttribute(t *testing.T) {
	gd := func(v string) string {
		return "GraphDef(nodes=[NodeDef(\ntype='Net',\n)], attributes=[('a', NodeAttr()), ('smoothing', Static(value=" + v + "))], num_leaves=2)"
	}
	why := "for step defined at /home/me/t.py:14\nall previously seen cache keys differ. For the closest previous key:\ndifferent input pytree:\n" +
		"* at input path [0][0]._graphdef, now <class 'flax.nnx.graphlib.GraphDef'> with pytree metadata " + gd("0.15") +
		" and before <class 'flax.nnx.graphlib.GraphDef'> with pytree metadata " + gd("0.3") + ", so the pytree node metadata does not match"
	u := ledger.LiveUnit{Unit: &ledger.Unit{Family: "jit_step", Module: "jit_step", Producer: logscan.ProducerJAX, Seq: 2, Why: why}}
	if got, want := describe(u, true), "✗ jit_step compiled after warm-up (compilation 2): static attribute `smoothing` changed 0.3 → 0.15"; !strings.HasPrefix(got, want) {
		t.Errorf("live line %q, want %q", got, want)
	}
}

// describe is the live line recomp run says of a compilation after warm-up, with no program
// compiled before it.
func describe(u ledger.LiveUnit, repeated bool) string {
	return "✗ " + verdict.LiveOf([]*ledger.Unit{u.Unit}, "", repeated, nil).Sentence()
}
