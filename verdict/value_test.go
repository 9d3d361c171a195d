package verdict

import (
	"strings"
	"testing"

	"github.com/recomp/recomp/diff"
	"github.com/recomp/recomp/frameworks/cause"
	"github.com/recomp/recomp/ledger"
	"github.com/recomp/recomp/logscan"
)

// annealed is the log of a jitted step whose static argument changes each epoch, with a last
// partial batch: for each of 4 values, a 128-row and a 104-row compilation. JAX's explanation
// names the closest earlier key, whose input types differ, never the value.
func annealed(t *testing.T) (*ledger.Report, []*ledger.Unit) {
	t.Helper()
	var log string
	prev := ""
	for epoch := 0; epoch < 4; epoch++ {
		for _, n := range []string{"128,16", "104,16"} {
			log += jaxStep(n, prev, 29, 1)
			prev = n
		}
	}
	rep := read(t, log)
	return rep, rep.Modules[0].Compiled()
}

var dropouts = []string{"0.1", "0.06666666666666667", "0.03333333333333333", "0.0"}

// With the probe's static arguments, the static argument is named with the values it took, one
// cause for all of them, and it explains the 104-row compilations of the later epochs too: only
// the first 104-row compilation is the batch's. The headline leads with it, the line's top cause
// is it, and the advice names the argument.
func TestStaticArgumentNamedFromTheProbe(t *testing.T) {
	rep, us := annealed(t)
	for i, u := range us {
		u.Static = []ledger.StaticArg{{Name: "dropout", Value: dropouts[i/2]}}
	}
	r := Build(Input{Ledger: rep})
	v := r.Verdicts[0]
	want := "static argument `dropout` changed 0.1 → 0.0667 → 0.0333 → 0.0 (one compilation per value, ×2 with the batch sizes)"
	if len(v.Causes) != 2 || v.Causes[0].Kind != KindStaticArgument || v.Causes[0].Change != want || v.Causes[0].Count != 6 ||
		v.Causes[1].Kind != "batch_size" || v.Causes[1].Count != 1 {
		t.Fatalf("causes %+v", v.Causes)
	}
	if !strings.HasPrefix(v.Action, "each new value of a static argument") || !strings.Contains(v.Action, "jnp.asarray(dropout)") ||
		strings.Contains(v.Action, "jit once") || !strings.Contains(v.Action, "the last batch of each pass has 104 rows") {
		t.Errorf("action %q", v.Action)
	}
	if v.Variants != 8 || v.Repeated != 0 {
		t.Errorf("a static value's compilation is a new variant: %d variants, %d repeated", v.Variants, v.Repeated)
	}
	if len(r.Sites) != 1 || r.Sites[0].TopCause != KindStaticArgument || r.Sites[0].Example != "`dropout` 0.1 → 0.0667 → 0.0333 → 0.0" {
		t.Errorf("sites %+v", r.Sites)
	}
}

// A static argument that stays the same names nothing; two that change are named together.
func TestStaticArgumentsThatChange(t *testing.T) {
	rep, us := annealed(t)
	for i, u := range us {
		u.Static = []ledger.StaticArg{{Name: "mode", Value: "'train'"}, {Name: "dropout", Value: dropouts[i/2]}, {Name: "k", Value: []string{"1", "2"}[i/4]}}
	}
	v := Build(Input{Ledger: rep}).Verdicts[0]
	if c := v.Causes[0]; !strings.HasPrefix(c.Change, "static arguments `dropout` changed 0.1 → 0.0667 → 0.0333 → 0.0, `k` changed 1 → 2 (") || strings.Contains(c.Change, "mode") {
		t.Errorf("cause %+v", c)
	}
	rep, us = annealed(t)
	for _, u := range us {
		u.Static = []ledger.StaticArg{{Name: "mode", Value: "'train'"}}
	}
	if v := Build(Input{Ledger: rep}).Verdicts[0]; v.Causes[0].Kind == KindStaticArgument {
		t.Errorf("an unchanged static argument is no cause: %+v", v.Causes)
	}
}

func TestValueSequence(t *testing.T) {
	if got := valueSequence([]string{"0.9", "0.933333337", "0.966666639"}); got != "0.9 → 0.933 → 0.967" {
		t.Error(got)
	}
	many := []string{"0", "1", "2", "3", "4", "5", "6", "7"}
	if got := valueSequence(many); got != "0 → 1 → 2 → 3 → 4 → … → 7 (8 values)" {
		t.Error(got)
	}
	if got := shortValue("'" + strings.Repeat("x", 100) + "'"); len([]rune(got)) != 40 {
		t.Error(got)
	}
}

// Without the probe, a dump whose comparisons show constants (or a structure) changing for an
// argument signature compiled before is a Python value seen at trace time: one cause with the
// values the constant took, and JAX's advice for it, never "jit once". A compilation of a new
// signature keeps the dump's cause; state created once is not a value.
func TestPythonValueInferredFromTheDump(t *testing.T) {
	rep, us := annealed(t)
	consts := []string{"0.9 → 0.933333337", "0.933333337 → 0.966666639"}
	var ex []Explained
	for i, u := range us[1:] {
		c := diff.Cause{Kind: diff.CauseBatchSize, Short: "128 → 104"}
		switch {
		case i+1 >= 6:
			c = diff.Cause{Kind: diff.CauseGraphStructure, Summary: "the graph's structure changed: 4 removed"}
		case i+1 >= 2:
			c = diff.Cause{Kind: diff.CauseConstant, Short: consts[(i+1)/4]}
		}
		ex = append(ex, Explained{Program: "jit_train_step", Unit: u, Causes: []diff.Cause{c}})
	}
	r := Build(Input{Ledger: rep, Dumped: true, Explained: ex})
	v := r.Verdicts[0]
	if len(v.Causes) != 2 || v.Causes[0].Kind != KindPythonValue || v.Causes[0].Count != 6 ||
		v.Causes[0].Change != "a Python value seen at trace time (a static argument or a closed-over number) changed: 0.9 → 0.933 → 0.967" ||
		v.Causes[1].Kind != "batch_size" || v.Causes[1].Count != 1 {
		t.Fatalf("causes %+v", v.Causes)
	}
	if !strings.HasPrefix(v.Action, "a Python number JAX reads while tracing is baked into the program") || strings.Contains(v.Action, "jit once") {
		t.Errorf("action %q", v.Action)
	}
	if r.Sites[0].TopCause != KindPythonValue || r.Sites[0].Example != "0.9 → 0.933 → 0.967" {
		t.Errorf("sites %+v", r.Sites)
	}

	// state created once, and a new function object that resets what JAX had seen, are not values
	rep = read(t, jaxStep("32,8", "", 64, 1)+jaxStep("32,8", "32,8", 64, 1)+jaxStep("32,8", "", 64, 1))
	us = rep.Modules[0].Compiled()
	state := diff.Cause{Kind: diff.CauseGraphStructure, Once: true, Short: "state created in the first step"}
	v = Build(Input{Ledger: rep, Dumped: true, Explained: []Explained{
		{Program: "jit_train_step", Unit: us[1], Causes: []diff.Cause{state}},
		{Program: "jit_train_step", Unit: us[2], Causes: []diff.Cause{{Kind: diff.CauseIdentical, Summary: "identical"}}}}}).Verdicts[0]
	for _, c := range v.Causes {
		if c.Kind == KindPythonValue {
			t.Errorf("causes %+v", v.Causes)
		}
	}
	// without a comparison, JAX's types for a signature compiled before are its closest key's:
	// the same cause, with no values
	rep, _ = annealed(t)
	if v := Build(Input{Ledger: rep}).Verdicts[0]; v.Causes[0].Kind != KindPythonValue || v.Causes[0].Count != 6 || v.Causes[0].Values != nil ||
		v.Causes[0].Change != "a Python value seen at trace time (a static argument or a closed-over number) changed: argument types compiled before" {
		t.Errorf("causes %+v", v.Causes)
	}
}

// A train step made anew each epoch (JAX: "being re-defined"), closing over a learning rate: the
// compilations of signatures the old function had compiled are the rebuilt function's, one cause
// with the rates the dump shows, and the advice is to jit once.
func TestRebuiltFunctionWithItsValues(t *testing.T) {
	redefined := func(shape string) string {
		return strings.Replace(jaxStep(shape, "", 64, 1), "defined at /w/main.py:20\n",
			"defined at /w/main.py:20\n  but seen another function defined on the same line; maybe the function is being re-defined repeatedly, preventing caching?\n", 1)
	}
	rep := read(t, jaxStep("64,8", "", 64, 1)+jaxStep("40,8", "64,8", 64, 1)+redefined("64,8")+jaxStep("40,8", "64,8", 64, 1))
	v := explainedBy(rep, diff.Cause{Kind: diff.CauseBatchSize, Short: "64 → 40"},
		diff.Cause{Kind: diff.CauseConstant, Short: "0.1 → 0.05"}, diff.Cause{Kind: diff.CauseConstant, Short: "0.1 → 0.05"})
	if len(v.Causes) != 2 || v.Causes[0].Kind != KindFunctionRebuilt || v.Causes[0].Count != 2 ||
		v.Causes[0].Change != "train_step made anew (defined at main.py:20), closing over 0.1 → 0.05" {
		t.Fatalf("causes %+v", v.Causes)
	}
	if !strings.HasPrefix(v.Action, "jit once, outside the loop") {
		t.Errorf("action %q", v.Action)
	}
}

// A flax nnx Module's plain Python attribute is in its GraphDef, pytree metadata static to
// nnx.jit: JAX's explanation (cut short in a log: the metadata spans many lines) says the
// metadata at [0][0]._graphdef differs; with the dump's constants, it is a Python value with its
// values and nnx's advice, not a pytree change.
func TestNNXAttributeInThePytreeMetadata(t *testing.T) {
	miss := func(shape string) string {
		return strings.Replace(jaxStep(shape, "32,8", 31, 1), "different input types:\n  * at x, now f32["+shape+"] and before f32[32,8]\n",
			"different input pytree:\n  * at input path [0][0]._graphdef, now <class 'flax.nnx.graphlib.GraphDef'> with pytree metadata GraphDef(nodes=[NodeDef(\n", 1)
	}
	rep := read(t, jaxStep("32,8", "", 31, 1)+miss("32,8")+miss("32,8"))
	v := explainedBy(rep, diff.Cause{Kind: diff.CauseConstant, Short: "2 → 1"}, diff.Cause{Kind: diff.CauseConstant, Short: "1 → 0.666666687"})
	if len(v.Causes) != 1 || v.Causes[0].Kind != KindPythonValue || v.Causes[0].Count != 2 ||
		v.Causes[0].Change != "a Python value in the pytree metadata at [0][0]._graphdef (static to jit) changed: 2 → 1 → 0.667" {
		t.Fatalf("causes %+v", v.Causes)
	}
	if !strings.Contains(v.Action, "nnx.Variable") {
		t.Errorf("action %q", v.Action)
	}
	// the log alone: the same cause, without values
	if v := Build(Input{Ledger: rep}).Verdicts[0]; len(v.Causes) != 1 || v.Causes[0].Kind != KindPythonValue || v.Causes[0].Count != 2 || v.Causes[0].Values != nil {
		t.Errorf("log alone: causes %+v", v.Causes)
	}
}

// A log that keeps JAX's whole explanation on one line (a JSON log) names the nnx attribute and
// its values from the metadata before and now.
func TestStaticAttributeNamedFromTheMetadata(t *testing.T) {
	meta := func(v string) string {
		return "GraphDef(nodes=[NodeDef(type='Model')], attributes=[('in_features', Static(value=8)), ('temperature', Static(value=" + v + "))], num_leaves=2)"
	}
	why := func(now, before string) string {
		return "different input pytree:\n  * at input path [0][0]._graphdef, now <class 'flax.nnx.graphlib.GraphDef'> with pytree metadata " + meta(now) +
			" and before <class 'flax.nnx.graphlib.GraphDef'> with pytree metadata " + meta(before) + ", so the pytree node metadata does not match"
	}
	if attrs := metadataStatics(explained(why("1.0", "2.0"))); len(attrs) != 1 || attrs[0] != (cause.Attribute{Name: "temperature", Old: "2.0", New: "1.0"}) {
		t.Fatalf("%+v", attrs)
	}
	jax := logscan.ProducerJAX // the stack whose advice it is
	us := []*ledger.Unit{{Why: "", Producer: jax}, {Why: why("1.0", "2.0"), Producer: jax}, {Why: why("0.6666666666666666", "1.0"), Producer: jax}}
	got := attributesOf(us)
	if len(got) != 2 || got[us[1]].change != got[us[2]].change ||
		!strings.HasPrefix(got[us[1]].change, "static attribute `temperature` changed 2.0 → 1.0 → 0.667 (") || !strings.Contains(got[us[1]].advice, "nnx.Variable") {
		t.Errorf("%+v", got)
	}
	if n := metadataStatics(explained(why("1.0", "1.0"))); n != nil {
		t.Errorf("no value differs: %v", n)
	}
}

// JAX's pytree-metadata explanations, whatever their text: the static attributes read are ones
// the text names with different values now and before, and the path is in the text.
func FuzzMetadataStatics(f *testing.F) {
	f.Add("different input pytree:\n  * at input path [0][0]._graphdef, now <class 'G'> with pytree metadata G(attributes=[('t', Static(value=1.0))]) and before <class 'G'> with pytree metadata G(attributes=[('t', Static(value=2.0))]), so the pytree node metadata does not match")
	f.Add("* at input path [0], now x with pytree metadata")
	f.Fuzz(func(t *testing.T, why string) {
		for _, a := range metadataStatics(explained(why)) {
			if a.Old == a.New || !strings.Contains(why, "('"+a.Name+"', Static(value=") {
				t.Fatalf("%q: %+v", why, a)
			}
		}
		if p := metadataPath(explained(why)); p != "" && !strings.Contains(why, "at input path "+p+", now ") {
			t.Fatalf("%q: path %q", why, p)
		}
		attributesOf([]*ledger.Unit{{Why: why}, {Why: why}})
	})
}

// explainedBy is the verdict of jit_train_step when the dump explains its compilations after the
// first by causes, in order.
func explainedBy(rep *ledger.Report, causes ...diff.Cause) Verdict {
	us := rep.Modules[0].Compiled()
	var ex []Explained
	for i, c := range causes {
		ex = append(ex, Explained{Program: "jit_train_step", Unit: us[i+1], Causes: []diff.Cause{c}})
	}
	return Build(Input{Ledger: rep, Dumped: true, Explained: ex}).Verdicts[0]
}
