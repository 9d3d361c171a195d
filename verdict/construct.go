package verdict

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/recomp/recomp/diff"
	"github.com/recomp/recomp/frameworks"
	"github.com/recomp/recomp/frameworks/cause"
	"github.com/recomp/recomp/frameworks/framework"
	"github.com/recomp/recomp/ledger"
)

// Causes only a framework's own words name: the construct in the user's program that made the
// framework trace again, which a comparison of the graphs sees only as its effect (a constant,
// a structure change) or not at all (identical graphs).
const (
	// KindStaticArgument: a static argument (JAX static_argnums/static_argnames) took a new
	// value. JAX compares the tracing context, the input pytree, the argument names and the
	// argument types of the closest earlier trace and finds them all equal ("cache miss
	// explanation unavailable"; 0.4: "explanation unavailable!"): what differs is the part of its
	// cache key it does not compare, the static arguments.
	KindStaticArgument = cause.StaticArgument
	// KindPytree: the input pytree changed (a dict gained or lost a key, None became a tuple):
	// JAX's "different input pytree" names the path and, for dicts, the keys.
	KindPytree = cause.Pytree
	// KindPythonScalar: a Python number argument that a tracer specialised on its value
	// changed: dynamo's guard failure "temperature == 1.0" (torch.compile).
	KindPythonScalar = cause.PythonScalar
	// KindWeakType: an argument of the same shape and dtype was a Python scalar (weakly typed)
	// one call and a typed scalar another: JAX's "{weak_type=True}" → "{weak_type=False}". The
	// graphs are identical; the cache key is not.
	KindWeakType = cause.WeakType
)

// factsOf are the facts the stack's unit read in its explanation of a compilation, as the ledger
// joined them (ledger.Unit.Facts); a unit made by hand with an explanation and no facts has them
// read here.
func factsOf(u *ledger.Unit) []cause.Fact {
	if u.Facts == nil && u.Why != "" {
		return frameworks.Facts(u.Why)
	}
	return u.Facts
}

// constructOf is the construct the stack's explanation of a compilation states
// (cause.Constructs): a static argument, a pytree change, a weak type; ok is false when it names
// none.
func constructOf(u *ledger.Unit) (cause.Fact, bool) {
	for _, f := range factsOf(u) {
		if slices.Contains(cause.Constructs, f.Kind) {
			return f, true
		}
	}
	return cause.Fact{}, false
}

// constructCause reads the framework's explanation of a recompilation for the user's construct
// it names: a static argument, a pytree change, a weak type. It returns the kind, what changed
// and the framework's own words that show it; ok is false when the words name none.
func constructCause(u *ledger.Unit) (kind cause.Kind, ch, said string, ok bool) {
	f, ok := constructOf(u)
	return f.Kind, f.Change, f.Said, ok
}

// overrides says whether a construct the framework names says more than the comparison's main
// cause: the graphs show only the construct's effect (a baked-in constant, a structure change)
// or nothing (identical graphs). A new pytree or a weak type is what the call itself changed:
// the new parameters' ops, constants and layouts follow from it, or nothing shows; a shape,
// dtype or sharding the graphs show is another argument's change at the same call, and stays.
func overrides(kind cause.Kind, c diff.CauseKind) bool {
	if kind == KindPytree || kind == KindWeakType {
		switch c {
		case diff.CauseGraphStructure, diff.CauseIdentical, diff.CauseConstant, diff.CauseLayout, diff.CauseModuleConfig:
			return true
		}
		return false
	}
	switch c {
	case diff.CauseGraphStructure, diff.CauseIdentical:
		return true
	case diff.CauseConstant:
		return kind == KindStaticArgument || kind == KindPythonScalar
	}
	return false
}

// saidBy is who says a construct's words, when not the stack itself (dynamo's guards).
func saidBy(kind cause.Kind) string { return frameworks.SaidBy(kind) }

// variants counts a program's distinct variants (graph hash, else JAX's argument signature) and the
// compilations of a variant its process had compiled before; (0, 0) when a compilation names
// neither.
func variants(compiled []*ledger.Unit) (distinct, repeated int) {
	type inInput struct {
		input, pid int // a log, and the process of it the probe told apart (0: the log's one)
		key        string
	}
	seen, inProcess := make(map[string]bool, len(compiled)), make(map[inInput]bool, len(compiled))
	for _, u := range compiled {
		key := u.Hash
		if key == "" && frameworks.BySignature(u.Producer) {
			key = u.Signature // JAX's argument shapes and types; other stacks' signatures name no variant
		}
		if key == "" {
			return 0, 0
		}
		key += staticKey(u.Static) // a static argument's new value is a new variant
		if !seen[key] {
			seen[key] = true
			distinct++
		}
		if p := (inInput{u.Input, u.PID, key}); inProcess[p] {
			repeated++ // compiled again in the same process; one in each of two processes is none
		} else {
			inProcess[p] = true
		}
	}
	return distinct, repeated
}

// KindPythonValue: a Python value JAX read at trace time changed, a static argument or a number
// the function closes over, which it bakes into the program: inferred when the same argument
// signature compiles again for the same function and the graphs differ only in constants (or in
// a structure that follows from one) or not at all. JAX's own explanation does not say it: it
// compares with the closest earlier cache key, whose input types differ.
const KindPythonValue = cause.PythonValue

// maxValues bounds the values a cause lists; the rest are counted.
const maxValues = 6

// staticPlan is what the probe's static arguments say about a program: which of them changed,
// the values they took, and the compilations a new value made.
type staticPlan struct {
	change, short, advice string                // short: the values alone, for the table of lines
	newValue              map[*ledger.Unit]bool // a compilation for values its process had not compiled
	values                []Values
}

// staticOf reads the static arguments the probe saw at each compilation of a program: nil when
// none changed. shapes names what else varied between the compilations (the batch sizes), for
// the count of compilations per value.
func staticOf(compiled []*ledger.Unit, shapes string) *staticPlan {
	var names []string
	values := map[string][]string{}
	for _, u := range compiled {
		for _, a := range u.Static {
			if _, ok := values[a.Name]; !ok {
				names = append(names, a.Name)
			}
			if !slices.Contains(values[a.Name], a.Value) {
				values[a.Name] = append(values[a.Name], a.Value)
			}
		}
	}
	var varying []string
	for _, n := range names {
		if len(values[n]) > 1 {
			varying = append(varying, n)
		}
	}
	if len(varying) == 0 {
		return nil
	}
	// A compilation is the static value's when its values are new in its process, or when its
	// argument signature had compiled there before under other values (the 104-row last batch
	// compiled again for each new value); one for values seen before and a new signature is
	// the signature's.
	p := &staticPlan{newValue: map[*ledger.Unit]bool{}}
	seen, sigs, per := map[string]bool{}, map[string]bool{}, map[string]int{}
	for _, u := range compiled {
		key := ""
		for _, n := range varying {
			key += "\x00" + staticValue(u.Static, n)
		}
		per[key]++
		proc := fmt.Sprint(u.Input) + "\x00" + u.Process
		if !seen[proc+key] || u.Signature != "" && sigs[proc+"\x00"+u.Signature] {
			p.newValue[u] = true
		}
		seen[proc+key], sigs[proc+"\x00"+u.Signature] = true, true
	}
	var parts, short []string
	for _, n := range varying {
		parts = append(parts, fmt.Sprintf("`%s` changed %s", n, valueSequence(values[n])))
		short = append(short, fmt.Sprintf("`%s` %s", n, valueSequence(values[n])))
		p.values = append(p.values, Values{Name: n, Seen: values[n]})
	}
	p.short = strings.Join(short, ", ")
	st := staticWords(compiled[0])
	word := st.Word + " "
	if len(varying) > 1 {
		word = st.Word + "s "
	}
	each := st.PerValue
	if k := per[firstKey(per)]; k > 1 && allEqual(per, k) {
		if shapes != "" && strings.HasPrefix(shapes, strconv.Itoa(k)+" ") {
			each += fmt.Sprintf(", ×%d with the %s", k, shapes[len(strconv.Itoa(k))+1:])
		} else {
			each = fmt.Sprintf("%d compilations per value", k)
		}
	}
	p.change = word + strings.Join(parts, ", ") + " (" + each + ")"
	if st.ValuesAdvice != nil {
		p.advice = st.ValuesAdvice(varying[0], values[varying[0]])
	}
	if p.advice == "" {
		p.advice = st.Advice(varying[0], allInts(values[varying[0]]))
	}
	return p
}

// neutralStatic are the words for a stack that gives none of its own.
var neutralStatic = framework.Static{Word: "static argument", PerValue: "one compilation per value",
	Advice: func(name string, _ bool) string {
		return fmt.Sprintf("each new value of `%s` is a new trace and a new compilation: pass it as an array (a tensor) "+
			"argument, or keep it fixed", name)
	}}

// staticWords are the words of the stack that compiled u for its static arguments.
func staticWords(u *ledger.Unit) framework.Static {
	if fw := frameworks.ForProducer(u.Producer); fw != nil && fw.Static != nil {
		return *fw.Static
	}
	return neutralStatic
}

// allInts says whether every value is a Python int's repr.
func allInts(vs []string) bool {
	for _, v := range vs {
		if _, err := strconv.Atoi(v); err != nil {
			return false
		}
	}
	return len(vs) > 0
}

// staticValue is the value of the static argument name in args ("" when absent).
func staticValue(args []ledger.StaticArg, name string) string {
	for _, a := range args {
		if a.Name == name {
			return a.Value
		}
	}
	return ""
}

func firstKey(m map[string]int) string {
	for k := range m {
		return k
	}
	return ""
}

func allEqual(m map[string]int, k int) bool {
	for _, n := range m {
		if n != k {
			return false
		}
	}
	return true
}

// valueSequence is the values a Python value took, in order, each short: 0.1 → 0.0667 → 0.0.
func valueSequence(vs []string) string {
	var out []string
	for i, v := range vs {
		if i == maxValues-1 && len(vs) > maxValues {
			out = append(out, fmt.Sprintf("… → %s (%d values)", shortValue(vs[len(vs)-1]), len(vs)))
			break
		}
		out = append(out, shortValue(v))
	}
	return strings.Join(out, " → ")
}

// shortValue is a number's repr with three significant digits when it has more
// (0.06666666666666667 → 0.0667); any other value as it is, cut to 40 characters.
func shortValue(v string) string {
	if len(v) > 6 && strings.ContainsAny(v, ".eE") {
		if f, err := strconv.ParseFloat(v, 64); err == nil {
			return strconv.FormatFloat(f, 'g', 3, 64)
		}
	}
	return shorten(v, 40)
}

// shorten cuts s to n runes, with an ellipsis.
func shorten(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// traceValues infers, without the probe's static arguments, which compilations of a JAX program
// a Python value read at trace time explains: its argument signature had compiled before in its
// process, JAX names no other construct (a pytree change), and the dump's comparison shows only
// constants or structure changing, or identical graphs, or, without a comparison, JAX explained
// it by argument types (closestKeyTypes). The cause is KindPythonValue, or KindFunctionRebuilt when JAX says the function is
// being re-defined (a jax.jit or closure made anew, closing over the value): then a signature
// the old function object compiled counts too. It returns those compilations, the cause's kind
// and change, and the values the constants took, in order.
func traceValues(compiled []*ledger.Unit, byUnit map[*ledger.Unit][]diff.Cause) (units map[*ledger.Unit]bool, kind cause.Kind, ch, advice string, values []string) {
	rebuilt, ok := rebuiltFunction(compiled)
	if !ok {
		return nil, "", "", "", nil
	}
	meta := "" // the input path whose pytree metadata JAX said differs
	var metaUnit *ledger.Unit
	units = map[*ledger.Unit]bool{}
	seen := map[string]bool{}
	for _, u := range compiled {
		proc := fmt.Sprint(u.Input) + "\x00" + u.Process + "\x00"
		if rebuilt == "" && (firstTrace(u) || u.User && u.Why == "") {
			// JAX's first trace of a function (or a log of another run appended): nothing
			// compiled before counts
			for k := range seen {
				if strings.HasPrefix(k, proc) {
					delete(seen, k)
				}
			}
		}
		key := proc + u.Signature
		if !seen[key] {
			seen[key] = true
			continue
		}
		if k, _, _, ok := constructCause(u); ok && k == KindPytree && metadataPath(u) == "" {
			continue // a pytree's structure changed; its metadata holds static values
		}
		if p := metadataPath(u); p != "" && meta == "" {
			meta, metaUnit = p, u
		}
		if valueEvidence(byUnit[u], u, &values) {
			units[u] = true
		}
	}
	if len(units) == 0 {
		return nil, "", "", "", nil
	}
	if len(values) < 2 {
		values = nil
	}
	if rebuilt != "" {
		if values != nil {
			return units, KindFunctionRebuilt, rebuilt + ", closing over " + valueSequence(values), "", values
		}
		return units, KindFunctionRebuilt, rebuilt, "", nil
	}
	ch = "a Python value seen at trace time (a static argument or a closed-over number) changed"
	if meta != "" {
		ch, advice = "a Python value in the pytree metadata at "+meta+" (static to jit) changed", metadataAdvice(metaUnit, meta)
	}
	if values != nil {
		return units, KindPythonValue, ch + ": " + valueSequence(values), advice, values
	}
	return units, KindPythonValue, ch + ": argument types compiled before", advice, nil
}

// metadataPath is the input path whose pytree metadata (static to jit) the stack said differs
// ("" when it said not).
func metadataPath(u *ledger.Unit) string {
	for _, f := range factsOf(u) {
		if f.Metadata != "" {
			return f.Metadata
		}
	}
	return ""
}

// firstTrace says whether the stack said it traced the function for the first time.
func firstTrace(u *ledger.Unit) bool {
	return slices.ContainsFunc(factsOf(u), func(f cause.Fact) bool { return f.First })
}

// closestKeyTypes says whether JAX explained a compilation by argument types (a shape, a dtype):
// of a signature compiled before, the types of its closest earlier key, which is not the one of
// these types (JAX picks the closest key without its static arguments), so they are not what
// changed.
func closestKeyTypes(u *ledger.Unit) bool {
	switch k, _ := reasonCause(u); diff.CauseKind(k) {
	case diff.CauseBatchSize, diff.CauseInputShape, diff.CauseDtype:
		return true
	}
	return false
}

// rebuiltFunction is what JAX said of a function made anew ("train_step made anew (defined at
// t.py:3)"), when it said so of a compilation of the program; ok is false when the program is
// not JAX's with argument signatures logged.
func rebuiltFunction(compiled []*ledger.Unit) (rebuilt string, ok bool) {
	for _, u := range compiled {
		if !frameworks.BySignature(u.Producer) || u.Signature == "" || u.Eager {
			return "", false
		}
		if k, c := reasonCause(u); k == KindFunctionRebuilt && rebuilt == "" {
			rebuilt = c
		}
	}
	return rebuilt, true
}

// valueEvidence says whether a compilation of a signature compiled before shows a Python value's
// effect: its comparison only constants or a structure changing, or identical graphs (never state
// created once), or, without one, JAX's explanation the types of its closest key or a change of
// pytree metadata. It adds the values a constant took to values.
func valueEvidence(cs []diff.Cause, u *ledger.Unit, values *[]string) bool {
	if len(cs) == 0 {
		return closestKeyTypes(u) || metadataPath(u) != ""
	}
	if cs[0].Once {
		return false
	}
	switch cs[0].Kind {
	case diff.CauseConstant:
		if old, new, ok := strings.Cut(change(cs[0]), " → "); ok && !strings.ContainsAny(old+new, " ,;") {
			for _, v := range []string{old, new} {
				if !slices.Contains(*values, v) {
					*values = append(*values, v)
				}
			}
		}
		return true
	case diff.CauseGraphStructure, diff.CauseIdentical:
		return true
	}
	return false
}

// valueCause is the cause a Python value read at trace time gives one compilation.
type valueCause struct {
	kind                  cause.Kind
	change, short, advice string
	values                []Values
	// source is the line of the program whose op took the value (the dump's op metadata or
	// stack frame, FILE:LINE with FILE its base name); "" when the comparisons name none or
	// name more than one.
	source string
}

// valueCauses are the compilations of a program that a Python value read at trace time explains,
// each with its cause: a static argument the probe saw take a new value (named, with its values),
// else the value inferred from the signatures and the dump (traceValues). The causes are the same
// for all the compilations, so that they count as one cause with the sequence of values.
func valueCauses(compiled []*ledger.Unit, byUnit map[*ledger.Unit][]diff.Cause) map[*ledger.Unit]valueCause {
	out := map[*ledger.Unit]valueCause{}
	var own []*ledger.Unit // eager one-op programs are a library's, not a value of the program's
	for _, u := range compiled {
		if !u.Eager {
			own = append(own, u)
		}
	}
	compiled = own
	if p := staticOf(compiled, shapesWord(compiled)); p != nil {
		for u := range p.newValue {
			out[u] = valueCause{kind: KindStaticArgument, change: p.change, short: p.short, advice: p.advice, values: p.values}
		}
		return withSource(out, byUnit)
	}
	if attrs := attributesOf(compiled); attrs != nil {
		return withSource(attrs, byUnit)
	}
	units, kind, ch, advice, seen := traceValues(compiled, byUnit)
	var vs []Values
	short := "the same argument types, compiled again"
	if len(seen) > 0 {
		vs, short = []Values{{Seen: seen}}, valueSequence(seen)
	}
	for u := range units {
		out[u] = valueCause{kind: kind, change: ch, short: short, advice: advice, values: vs}
	}
	return withSource(out, byUnit)
}

// withSource gives the causes of a Python value the one line of the program whose op took
// the constant each of their compilations changed (constantSource).
func withSource(out map[*ledger.Unit]valueCause, byUnit map[*ledger.Unit][]diff.Cause) map[*ledger.Unit]valueCause {
	units := make(map[*ledger.Unit]bool, len(out))
	for u := range out {
		units[u] = true
	}
	if src := constantSource(units, byUnit); src != "" {
		for u, vc := range out {
			vc.source = src
			out[u] = vc
		}
	}
	return out
}

// constantSource is the one line of the program whose op took the constant that each of units
// changed, by the comparisons of their dumps (FILE:LINE, FILE its base name); "" when one names
// none, a library's line, or two name different lines.
func constantSource(units map[*ledger.Unit]bool, byUnit map[*ledger.Unit][]diff.Cause) string {
	src := ""
	for u := range units {
		cs := byUnit[u]
		if len(cs) == 0 || cs[0].Kind != diff.CauseConstant || cs[0].Constant == nil {
			continue
		}
		s := cs[0].Constant.Source
		switch {
		case s == "" || !frameworks.IsUserFile(sourceFile(s)): // (TF's op metadata names its own ops.py)
			return ""
		case src != "" && s != src:
			return ""
		}
		src = s
	}
	return baseSource(src)
}

// metadataAdvice is the stack's advice for a Python value held in the pytree metadata at path
// of a unit's arguments ("" when its stack has none).
func metadataAdvice(u *ledger.Unit, path string) string {
	if fw := frameworks.ForProducer(u.Producer); fw != nil && fw.MetadataAdvice != nil {
		return fw.MetadataAdvice(path)
	}
	return ""
}

// shapesWord names what else varied between a program's compilations, by the argument shapes
// JAX logged: "batch sizes" when only the leading dimension did, "argument shapes" otherwise;
// "" when they were all the same.
func shapesWord(compiled []*ledger.Unit) string {
	var shapes [][][]int
	sigs := map[string]bool{}
	for _, u := range compiled {
		shapes = append(shapes, signatureShapes(u.Signature))
		sigs[u.Signature] = true
	}
	if len(sigs) < 2 {
		return ""
	}
	if _, dim, ok := varyingDim(shapes); ok && dim == 0 {
		return fmt.Sprintf("%d batch sizes", len(sigs))
	}
	return fmt.Sprintf("%d argument shapes", len(sigs))
}

// staticKey is the static arguments of a compilation as one key ("" when none).
func staticKey(args []ledger.StaticArg) string {
	var b strings.Builder
	for _, a := range args {
		b.WriteString("\x00" + a.Name + "=" + a.Value)
	}
	return b.String()
}

// metadataStatics are the static attributes the stack said changed in a pytree's metadata
// (a flax nnx Module's plain attribute), each old → new, in the order it named them; nil when none.
func metadataStatics(u *ledger.Unit) []cause.Attribute {
	for _, f := range factsOf(u) {
		if len(f.Attributes) > 0 {
			return f.Attributes
		}
	}
	return nil
}

// attributesOf reads the static attributes JAX names changing in a program's pytree metadata (a
// flax nnx Module's plain Python attribute, static to nnx.jit): one cause for every compilation
// whose explanation names one, with the values in order; nil when none does.
func attributesOf(compiled []*ledger.Unit) map[*ledger.Unit]valueCause {
	var names []string
	values := map[string][]string{}
	units := map[*ledger.Unit]bool{}
	for _, u := range compiled {
		attrs := metadataStatics(u)
		if attrs == nil {
			continue
		}
		units[u] = true
		for _, a := range attrs {
			n := a.Name
			if !slices.Contains(names, n) {
				names = append(names, n)
			}
			for _, v := range []string{a.Old, a.New} {
				if !slices.Contains(values[n], v) {
					values[n] = append(values[n], v)
				}
			}
		}
	}
	if len(units) == 0 {
		return nil
	}
	var parts, short []string
	var vs []Values
	for _, n := range names {
		parts = append(parts, fmt.Sprintf("`%s` changed %s", n, valueSequence(values[n])))
		short = append(short, fmt.Sprintf("`%s` %s", n, valueSequence(values[n])))
		vs = append(vs, Values{Name: n, Seen: values[n]})
	}
	word := "static attribute "
	if len(names) > 1 {
		word = "static attributes "
	}
	ch := word + strings.Join(parts, ", ") + " (a plain Python attribute of the module: static to its jit)"
	adv := "" // the stack's words (compiled are one program's: one stack)
	if fw := frameworks.ForProducer(compiled[0].Producer); fw != nil && fw.AttributeAdvice != nil {
		adv = fw.AttributeAdvice(names[0])
	}
	out := map[*ledger.Unit]valueCause{}
	for u := range units {
		out[u] = valueCause{kind: KindStaticArgument, change: ch, short: strings.Join(short, ", "), advice: adv, values: vs}
	}
	return out
}

// foldNumber folds a program's constant_value causes into one when every recompilation of the
// program differs from the version it was compared with by one number baked into the graph and
// nothing else (each comparison's only cause, the same op each time): a Python number the
// program changed, whose values over the compilations it names (-4 → -6 → -8). The stack's unit
// may say it in its own words (Construct). The causes are returned unchanged otherwise.
func foldNumber(cs []Cause, compiled []*ledger.Unit, byUnit map[*ledger.Unit][]diff.Cause) []Cause {
	pairs, first, fw := numberChain(compiled, byUnit)
	if first == nil {
		return cs
	}
	out := Cause{Kind: diff.CauseConstant, Source: baseSource(first.Source)}
	chained := true
	var steps []string
	for i, p := range pairs {
		chained = chained && (i == 0 || p[0] == pairs[i-1][1])
		steps = append(steps, p[0]+" → "+p[1])
	}
	if chained {
		out.Numbers = []string{pairs[0][0]}
		for _, p := range pairs {
			out.Numbers = append(out.Numbers, p[1])
		}
	}
	rest := gather(&out, cs)
	if out.Count == 0 { // the compilations are another cause's (a static argument the probe named)
		return cs
	}
	if chained {
		out.Change = fmt.Sprintf("a number baked into the graph as a constant took %d values: %s", len(out.Numbers), strings.Join(out.Numbers, " → "))
	} else {
		// each comparison saw one constant change, but not from the value the last one left
		// (the number is used twice, and the comparison paired its uses otherwise): say each
		out.Change = fmt.Sprintf("a number baked into the graph as a constant changed %d times: %s", len(pairs), strings.Join(steps, "; "))
	}
	var op []string
	if first.OpName != "" {
		op = append(op, first.OpName)
	}
	if out.Source != "" {
		op = append(op, "at "+out.Source)
	}
	if len(op) > 0 {
		out.Change += " (" + strings.Join(op, " ") + ")"
	}
	if fw != nil && fw.Construct != nil {
		if what, adv, ok := fw.Construct(out.Kind, out.Change); ok {
			out.Change, out.advice = what, adv
		}
	}
	return append([]Cause{out}, rest...)
}

// numberChain is the number a program's recompilations each changed and nothing else: each
// recompilation's old and new value in the order they compiled, the first change (op and line)
// and the stack; first is nil when a recompilation differs otherwise, or was compared with nothing.
func numberChain(compiled []*ledger.Unit, byUnit map[*ledger.Unit][]diff.Cause) (pairs [][2]string, first *diff.Change, fw *framework.Framework) {
	seq := map[string]int{}
	for _, u := range compiled {
		if !compiledAgain(u, seq) {
			continue
		}
		c := byUnit[u]
		if len(c) != 1 || c[0].Kind != diff.CauseConstant || c[0].Constant == nil || c[0].Once {
			return nil, nil, nil
		}
		ch := c[0].Constant
		if !number(ch.Old) || !number(ch.New) || first != nil && (ch.OpName != first.OpName || ch.Source != first.Source) {
			return nil, nil, nil
		}
		if first == nil {
			first, fw = ch, frameworks.ForProducer(u.Producer)
		}
		pairs = append(pairs, [2]string{ch.Old, ch.New})
	}
	return pairs, first, fw
}

// number says whether a constant's printed value is one number (not an array, not elided).
func number(s string) bool {
	_, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	return err == nil || s == "true" || s == "false"
}

// baseSource is a dump's source_file:source_line with the file's folder left out ("" for none).
func baseSource(src string) string {
	if i := strings.LastIndexAny(src, `/\`); i >= 0 {
		return src[i+1:]
	}
	return src
}

// foldRepeat folds a program's graph_structure causes into one when every recompilation of the
// program differs from the version it was compared with by its structure, and the ops of one
// line of the program's own code (op metadata) are each time whole copies of one block, a
// different number of times, each comparison taking up the count the last one left (1 → 2,
// then 2 → 3): a Python loop count unrolled into the graph, whose values it names. The stack's
// unit may say it in its own words (Construct). Where the evidence does not show that, the
// causes are returned unchanged: the structure changed, as each comparison says.
func foldRepeat(cs []Cause, compiled []*ledger.Unit, byUnit map[*ledger.Unit][]diff.Cause) []Cause {
	counts, rep, fw := repeatChain(compiled, byUnit)
	if rep == nil {
		return cs
	}
	out := Cause{Kind: diff.CauseGraphStructure, Source: baseSource(rep.Source), Numbers: counts,
		Change: fmt.Sprintf("a loop count unrolled into the graph: the ops of %s ran %s times (%d ops each)",
			baseSource(rep.Source), strings.Join(counts, " → "), rep.Ops)}
	rest := gather(&out, cs)
	if out.Count == 0 { // the compilations are another cause's (a static argument the probe named)
		return cs
	}
	if fw != nil && fw.Construct != nil {
		if what, adv, ok := fw.Construct(out.Kind, out.Change); ok {
			out.Change, out.advice = what, adv
		}
	}
	return append([]Cause{out}, rest...)
}

// repeatChain is the block of one line of the program's own code that each recompilation of a
// program repeated a new number of times and nothing else: the counts in the order they
// compiled, the block and the stack; rep is nil when a recompilation differs otherwise, names
// no such line, or does not take up the count the last one left.
func repeatChain(compiled []*ledger.Unit, byUnit map[*ledger.Unit][]diff.Cause) (counts []string, rep *diff.Repeat, fw *framework.Framework) {
	seq := map[string]int{}
	for _, u := range compiled {
		if !compiledAgain(u, seq) {
			continue
		}
		c := byUnit[u]
		if len(c) == 1 && c[0].Once {
			continue // state built in the first step: set-up, compared with the version before it
		}
		if len(c) != 1 || c[0].Kind != diff.CauseGraphStructure {
			return nil, nil, nil
		}
		var r *diff.Repeat
		for i := range c[0].Repeats {
			x := &c[0].Repeats[i]
			if rep == nil && frameworks.IsUserFile(sourceFile(x.Source)) || rep != nil && x.Source == rep.Source && x.Ops == rep.Ops {
				r = x
				break
			}
		}
		if r == nil || rep != nil && strconv.Itoa(r.From) != counts[len(counts)-1] {
			return nil, nil, nil
		}
		if rep == nil {
			rep, fw, counts = r, frameworks.ForProducer(u.Producer), []string{strconv.Itoa(r.From)}
		}
		counts = append(counts, strconv.Itoa(r.To))
	}
	return counts, rep, fw
}

// foldGrowth folds a program's graph_structure causes into one when every recompilation of the
// program (but set-up) differs from the version it was compared with by its structure alone,
// two or more times, and the ops of lines of the program's own code changed by the same number
// each time, each comparison taking up the count the last one left (8 → 13 → 18): a loop that
// runs a different number of times, whose passes are not whole copies of one block (its first
// pass differs), so its count is not named. Otherwise, or when a loop count was named
// (foldRepeat), the causes are returned unchanged.
func foldGrowth(cs []Cause, compiled []*ledger.Unit, byUnit map[*ledger.Unit][]diff.Cause, explained []Explained) []Cause {
	if slices.ContainsFunc(cs, func(c Cause) bool { return c.Source != "" }) {
		return cs
	}
	// versions that begin a history of their own (explain found them another program of the
	// name): compared with nothing, they are no recompilation of the chain
	starts := map[*ledger.Unit]bool{}
	for _, e := range explained {
		if e.Earlier != nil {
			starts[e.Earlier] = true
		}
	}
	for _, e := range explained {
		delete(starts, e.Unit)
	}
	lines := growthChain(compiled, byUnit, starts)
	if len(lines) == 0 {
		return cs
	}
	more := "more"
	if lines[0].delta < 0 {
		more = "fewer"
	}
	change := "a loop that runs " + more + " times at each recompilation: the ops of "
	for i, l := range lines {
		part := fmt.Sprintf("%s %s (%+d each)", baseSource(l.source), strings.Join(l.counts, " → "), l.delta)
		if i > 0 && utf8.RuneCountInString(change+part) > 118 { // (a verdict line shows 120 characters of it)
			break
		}
		if i > 0 {
			part = ", " + part
		}
		change += part
	}
	adv := diff.AdviceFor(diff.CauseGraphStructure)
	if fw := frameworks.ForProducer(compiled[0].Producer); fw != nil && fw.Advice.Causes[diff.CauseGraphStructure] != "" {
		adv = fw.Advice.Causes[diff.CauseGraphStructure]
	}
	out := Cause{Kind: diff.CauseGraphStructure, Source: baseSource(lines[0].source), Change: change,
		advice: "a loop in the step ran a different number of times at each recompilation (its passes are not whole copies " +
			"of one block, so recomp names the ops' counts, not the loop's): " + adv}
	return append([]Cause{out}, gather(&out, cs)...)
}

// grown is a line of the program's own code whose ops changed by delta at each recompilation:
// the counts in the order they compiled.
type grown struct {
	source string
	delta  int
	counts []string
}

// growthChain is the lines of the program's own code (diff.Cause Grows and Repeats) whose op
// count every recompilation of a program but set-up (and the first versions, starts, of other
// programs of its name) changed by the same number, taking up the
// count the last one left, with nothing else changed, two recompilations or more: the largest
// change first. Nil otherwise.
func growthChain(compiled []*ledger.Unit, byUnit map[*ledger.Unit][]diff.Cause, starts map[*ledger.Unit]bool) []grown {
	seq := map[string]int{}
	var chain []grown
	n := 0
	for _, u := range compiled {
		if !compiledAgain(u, seq) {
			continue
		}
		c := byUnit[u]
		if len(c) == 1 && c[0].Once || len(c) == 0 && starts[u] {
			continue // set-up, or the first version of another program of the name
		}
		if len(c) != 1 || c[0].Kind != diff.CauseGraphStructure {
			return nil
		}
		got := map[string][2]int{}
		for _, g := range c[0].Grows {
			if frameworks.IsUserFile(sourceFile(g.Source)) && g.From != g.To {
				got[g.Source] = [2]int{g.From, g.To}
			}
		}
		for _, r := range c[0].Repeats {
			if frameworks.IsUserFile(sourceFile(r.Source)) && r.From != r.To {
				got[r.Source] = [2]int{r.Ops * r.From, r.Ops * r.To}
			}
		}
		if n++; n == 1 {
			for src, g := range got {
				chain = append(chain, grown{src, g[1] - g[0], []string{strconv.Itoa(g[0]), strconv.Itoa(g[1])}})
			}
			continue
		}
		chain = slices.DeleteFunc(chain, func(l grown) bool {
			g, ok := got[l.source]
			return !ok || strconv.Itoa(g[0]) != l.counts[len(l.counts)-1] || g[1]-g[0] != l.delta
		})
		for i := range chain {
			chain[i].counts = append(chain[i].counts, strconv.Itoa(got[chain[i].source][1]))
		}
	}
	if n < 2 {
		return nil
	}
	abs := func(l grown) int { return max(l.delta, -l.delta) }
	slices.SortFunc(chain, func(x, y grown) int { return cmp.Or(cmp.Compare(abs(y), abs(x)), strings.Compare(x.source, y.source)) })
	return chain
}

// gather adds to out the count and lines of the causes of its kind (not those expected once),
// and returns the others.
func gather(out *Cause, cs []Cause) []Cause {
	var rest []Cause
	for _, c := range cs {
		if c.Kind != out.Kind || c.Once {
			rest = append(rest, c)
			continue
		}
		out.Count += c.Count
		for _, s := range c.Sites {
			if !slices.Contains(out.Sites, s) && len(out.Sites) < 4 {
				out.Sites = append(out.Sites, s)
			}
		}
	}
	return rest
}

// sourceFile is the file of a dump's source_file:source_line.
func sourceFile(src string) string {
	if i := strings.LastIndexByte(src, ':'); i > 0 {
		if _, err := strconv.Atoi(src[i+1:]); err == nil {
			return src[:i]
		}
	}
	return src
}
