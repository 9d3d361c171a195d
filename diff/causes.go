package diff

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/recomp/recomp/frameworks"
	"github.com/recomp/recomp/frameworks/cause"
	"github.com/recomp/recomp/hlo"
	"github.com/recomp/recomp/internal/textutil"
)

// CauseKind names a reason why two modules differ; the names are part of the JSON contract
// (package cause holds them, below the units that give advice by kind).
type CauseKind = cause.Kind

// Cause kinds, in the order they are ranked (see rules).
const (
	CauseDtype          = cause.Dtype
	CauseSharding       = cause.Sharding
	CauseBatchSize      = cause.BatchSize
	CauseInputShape     = cause.InputShape
	CauseConstant       = cause.Constant
	CauseModuleConfig   = cause.ModuleConfig
	CauseLayout         = cause.Layout
	CauseGraphStructure = cause.GraphStructure
	CauseIdentical      = cause.Identical
)

// Cause is one reason why two modules differ, in the user's terms.
type Cause struct {
	Kind     CauseKind
	Summary  string
	Evidence []string
	Advice   string
	// Short says what changed in a few words, for one-line summaries ("" when the summary's
	// old → new does).
	Short string
	// Once says the difference is expected once in a run: the first step built state (an
	// optimizer's, tensors made on the device) that the steps after it take as inputs.
	Once bool
	// Constant is, for a constant_value cause whose changed constants all took one old → new
	// value (one number, used by one op or several), the first of them: its op_name, its
	// source line and the values; nil otherwise.
	Constant *Change
	// Merged says, for a graph_structure cause, that one graph is the other plus ops that only
	// feed outputs of their own (mergedRule): another computation traced into the same graph,
	// not a change of the step.
	Merged bool
	// FedBack says, for a batch_size or input_shape cause, that the earlier version returned every
	// input whose shape changed with the shape the later one was given: a buffer the step grows
	// and is called with again (a cache grown by concatenation), not data fed from outside.
	FedBack bool
	// Unsourced says, for a graph_structure cause, that neither version's ops carry a source line
	// (op metadata): which line's ops changed, and a loop count (Repeats), cannot be told.
	Unsourced bool
	// Repeats are, for a graph_structure cause, the source lines (op metadata) whose
	// instructions are whole copies of one block in both versions, a different number of
	// times: what an unrolled Python loop whose count changed looks like (nil otherwise).
	Repeats []Repeat
	// Grows are, for a graph_structure cause, the program's own source lines (op metadata) whose
	// instruction count changed and is not whole copies of one block (those are Repeats): at most
	// maxRepeatLines, the largest change first (nil otherwise).
	Grows []Growth
}

// Growth is a source line with From instructions in the old version and To in the new.
type Growth struct {
	Source   string
	From, To int
}

// OwnAdvice says whether the cause's advice is its own, for the construct it names (state built
// in the first step, ops merged in), not the kind's: a stack's advice for the kind must not
// replace it.
func (c Cause) OwnAdvice() bool { return c.Once || c.Merged }

// Repeat is a source line whose instructions are From copies of a block of Ops instructions in
// the old version and To copies in the new.
type Repeat struct {
	Source   string
	Ops      int
	From, To int
}

// Advice per cause kind.
var advice = map[CauseKind]string{
	CauseDtype: "cast inputs to one dtype before they reach the compiled function (watch mixed-precision policies, " +
		"Python scalars that become weakly typed, and f64 creeping in from NumPy)",
	CauseSharding: "keep the device mesh, partition count and in/out shardings the same between runs and steps; " +
		"a different tensor-parallel degree or mesh shape is a different program",
	CauseBatchSize: "keep the batch size constant: drop the last partial batch (drop_remainder=True, drop_last=True) " +
		"or pad it to the full size; if the leading dimension is a data-dependent count, pad it to a few fixed bucket sizes",
	CauseInputShape: "feed fixed shapes: pad inputs to a fixed size or to a small set of buckets, so that the compiled " +
		"function sees only those shapes",
	CauseConstant: "a value is baked into the graph as a constant (a Python float such as a learning rate, a step " +
		"counter, or frozen weights): pass it as an input tensor/array argument instead, so changing it does not change the graph",
	CauseModuleConfig: "the module's compile configuration changed (buffer donation and aliasing, replica or partition " +
		"count, frontend attributes): keep donate_argnums / aliasing and the compile options the same",
	CauseLayout: "inputs arrive with different memory layouts (a transposed or non-contiguous array, a different " +
		"device layout) or a layout-affecting option changed: make inputs contiguous and keep layouts fixed",
	CauseGraphStructure: "the program itself changed: look for Python control flow on values, lists or " + frameworks.GrowsAdvice() + " " +
		"growing in a loop, a function re-defined per step, or options that change which ops are emitted",
	CauseIdentical: "the graphs are the same, so the recompile came from outside the graph: a function wrapped again " +
		"in each step (" + frameworks.RewrappedAdvice() + ": wrap it once, outside the loop), " +
		"compile flags (" + strings.Join(frameworks.CompileFlags(), ", ") + "), the device or its configuration, a different framework or SDK version, " +
		"or an executable cache that was not enabled or not shared between processes",
}

// AdviceFor is the advice for a cause kind, for any framework.
func AdviceFor(kind CauseKind) string { return advice[kind] }

// maxEvidence is how many evidence lines a cause lists.
const maxEvidence = 8

func evidenceOf(chs []Change, line func(Change) string) []string {
	return evidenceN(chs, len(chs), line)
}

// evidenceN lists the first changes of chs; total is how many there are in all (chs may hold
// only the first of them).
func evidenceN(chs []Change, total int, line func(Change) string) []string {
	var out []string
	for i, ch := range chs {
		if i == maxEvidence {
			out = append(out, fmt.Sprintf("… and %d more", total-maxEvidence))
			break
		}
		out = append(out, line(ch))
	}
	return out
}

// where describes an instruction for evidence: computation, name, op_name, source.
func where(ch Change) string {
	s := ch.Computation + ": " + ch.Instruction
	switch {
	case ch.EntryParam():
		s = fmt.Sprintf("parameter %d (%s)", ch.Param, ch.Instruction)
	case ch.Entry:
		s = "ENTRY: " + ch.Instruction
	}
	var extra []string
	if ch.OpName != "" {
		extra = append(extra, "op_name "+quoteShort(ch.OpName))
	}
	if ch.Source != "" {
		extra = append(extra, "at "+ch.Source)
	}
	if len(extra) > 0 {
		s += " [" + strings.Join(extra, ", ") + "]"
	}
	return s
}

func quoteShort(s string) string {
	return `"` + textutil.Shorten(s, 90) + `"`
}

func changeLine(ch Change) string {
	return fmt.Sprintf("%s: %s → %s", where(ch), short(ch.Old), short(ch.New))
}

func short(s string) string {
	return textutil.Shorten(s, 120)
}

// classifier is the state the cause rules share: what the rules before have explained is not
// a cause of its own for the rules after.
type classifier struct {
	r      *Result
	t      *tally
	causes []Cause
	// dtypeParams, dimParams: entry parameters whose element type, dimensions changed;
	// shardShapes: parameters whose per-device shape follows a sharding change.
	dtypeParams, dimParams, shardShapes []Change
	dims                                []dimChange
	// constants are the constant changes no earlier rule explained; constCount counts them.
	constants  []Change
	constCount int
	// unrelated: the modules share too little structure for changes inside the graph
	// (constants, element types of intermediate values) to be causes of their own.
	unrelated bool
	// next are causes a rule named beside its own (the shape rule's input_shape beside the
	// batch size), ranked right after it.
	next []Cause
	// restructured: no input changed, and ops other than plumbing were added or removed (a
	// Python loop ran more times, a branch took another way): what changed inside the graph
	// besides (element types, layouts, constants that follow its new dimensions or loop counts)
	// follows from the new ops. Those are consequences, said under the structure's cause.
	restructured bool
	consequences []string
}

// A rule looks at the changes and names one cause, or none (and may name more in
// classifier.next). Rules run in rank order; a rule sees the causes named before it, and the
// changes they explained are not causes of their own: causes compose, a pair names each.
type rule func(c *classifier) (Cause, bool)

// rules are the causes in the order they are ranked: the first that applies is the cause a
// user should look at first.
var rules = []rule{dtypeRule, shardingRule, shapeRule, constantRule, moduleConfigRule, layoutRule, structureRule, identicalRule}

func classify(r *Result) []Cause {
	causes := classifyAs(r, true)
	if slices.ContainsFunc(causes, func(c Cause) bool { return c.Kind == CauseGraphStructure }) {
		return causes
	}
	return classifyAs(r, false) // no structure named after all: the consequences are causes again
}

// classifyAs runs the rules; with consequences, in-graph changes that follow a change of the
// graph's structure are named under it (classifier.restructured).
func classifyAs(r *Result, consequences bool) []Cause {
	c := &classifier{r: r, t: r.t, constants: r.t.constants, constCount: r.Counts[KindConstant]}
	c.unrelated = r.Added+r.Removed > 0 && r.Added+r.Removed >= r.Matched
	sharded := map[int]bool{}
	for _, ch := range c.t.sharding {
		if ch.EntryParam() {
			sharded[ch.Param] = true
		}
	}
	sort.SliceStable(c.t.params, func(i, j int) bool { return c.t.params[i].Param < c.t.params[j].Param })
	for _, ch := range c.t.params {
		if sharded[ch.Param] && ch.Kind != KindDtype {
			c.shardShapes = append(c.shardShapes, ch)
			continue
		}
		if ch.Kind == KindDtype {
			c.dtypeParams = append(c.dtypeParams, ch)
		}
		if ch.oldShape.IsTuple || ch.newShape.IsTuple || !ch.oldShape.SameDims(ch.newShape) {
			c.dimParams = append(c.dimParams, ch)
		}
	}
	c.dims = dimChanges(c.dimParams)
	c.restructured = consequences && restructured(r)
	for _, rl := range rules {
		cause, ok := rl(c)
		if !ok {
			continue
		}
		for _, cause := range append([]Cause{cause}, c.next...) {
			if cause.Advice == "" {
				cause.Advice = advice[cause.Kind]
			}
			c.causes = append(c.causes, cause)
		}
		c.next = nil
	}
	return c.causes
}

// dtypeRule: entry parameters whose element type changed; else, when no parameter changed at
// all, element types inside the graph.
func dtypeRule(c *classifier) (Cause, bool) {
	switch {
	case len(c.dtypeParams) > 0:
		return Cause{Kind: CauseDtype, Summary: fmt.Sprintf("input dtype changed: %s (%d parameter(s))",
			transitions(c.dtypeParams, elemOf), len(c.dtypeParams)), Evidence: evidenceOf(c.dtypeParams, changeLine)}, true
	case len(c.t.params) == 0 && len(c.t.dtypes) > 0 && c.restructured:
		c.consequences = append(c.consequences, fmt.Sprintf("the new ops bring their own element types: %s in %d instruction(s)",
			transitions(c.t.dtypes, elemOf), c.r.Counts[KindDtype]))
	case len(c.t.params) == 0 && len(c.t.dtypes) > 0 && !c.unrelated:
		return Cause{Kind: CauseDtype, Summary: fmt.Sprintf("element types changed inside the graph: %s (%d instruction(s))",
			transitions(c.t.dtypes, elemOf), c.r.Counts[KindDtype]), Evidence: evidenceOf(c.t.dtypes, changeLine)}, true
	}
	return Cause{}, false
}

// shardingRule: sharding attributes, replica groups, partition counts, collectives added or
// removed, and parameters whose per-device shape follows a sharding change.
func shardingRule(c *classifier) (Cause, bool) {
	var ev []string
	for _, ch := range c.t.header {
		if ch.Attr == "num_partitions" || ch.Attr == "replica_count" {
			ev = append(ev, fmt.Sprintf("module %s: %s → %s", ch.Attr, ch.Old, ch.New))
		}
	}
	coll := collectiveDelta(c.t)
	ev = append(ev, evidenceOf(c.t.sharding, changeLine)...)
	for _, ch := range c.shardShapes {
		ev = append(ev, "per-device shape follows: "+changeLine(ch))
	}
	if coll != "" && len(ev) == 0 {
		ev = append(ev, coll+" ("+where(firstCollective(c.t))+")")
	}
	if len(ev) == 0 {
		return Cause{}, false
	}
	summary := "sharding or device mesh changed"
	if n := c.r.Counts[KindSharding] + c.r.Counts[KindReplicaGroups]; n > 0 {
		summary += fmt.Sprintf(" (%d sharding/replica-group attribute(s))", n)
	}
	if coll != "" {
		summary += "; " + coll
	}
	return Cause{Kind: CauseSharding, Summary: summary, Evidence: ev}, true
}

// shapeRule: the batch size (every changed parameter changed its leading dimension, the same
// way) or other input shapes; both when the parameters' leading dimension and others changed at
// once (a last batch with fewer rows and a shorter padded length). Constants that follow the
// changed dimensions (a mean's divisor, a count, the product of two of them, a small array that
// holds one) are evidence of the cause whose dimensions they follow, not constants of their own.
// Without parameter changes, a changed result shape.
func shapeRule(c *classifier) (Cause, bool) {
	if len(c.dimParams) == 0 {
		structural := c.r.Added+c.r.Removed+c.r.Counts[KindCompAdded]+c.r.Counts[KindCompRemoved] > 0
		if len(c.causes) > 0 || structural || c.constantResized() {
			return Cause{}, false
		}
		if cause, ok := inGraphDim(c); ok {
			return cause, true
		}
		if len(c.t.results) > 0 {
			return Cause{Kind: CauseInputShape, Summary: "the result shape changed", Evidence: evidenceOf(c.t.results, changeLine)}, true
		}
		return Cause{}, false
	}
	// The dimensions a constant may follow: the parameters', then those inside the graph that
	// follow from them (a strided convolution's output side).
	dims := c.dims
	for _, d := range dimChanges(c.t.shapes) {
		if !slices.Contains(dims, d) {
			dims = append(dims[:len(dims):len(dims)], d)
		}
	}
	old, new, leading, others := leadingDim(c.dimParams)
	if leading && len(c.dtypeParams) == 0 {
		var follow []Change
		if len(others) == 0 {
			follow = c.follow(dims)
		} else {
			follow = c.follow([]dimChange{{old, new}})
		}
		ev := evidenceOf(c.dimParams, changeLine)
		if res := resultsLeading(c.t.results, old, new); res != "" {
			ev = append(ev, res)
		}
		for _, ch := range follow {
			ev = append(ev, fmt.Sprintf("constant follows the batch size (a mean or count over the batch): %s: %s → %s", where(ch), short(ch.Old), short(ch.New)))
		}
		batch := Cause{Kind: CauseBatchSize, Summary: fmt.Sprintf("batch size (leading dimension) changed %d → %d in %d parameter(s)", old, new, len(c.dimParams)), Evidence: ev,
			FedBack: fedBack(c.r.A, c.dimParams)} // a buffer grown along its first dimension (a cache) and fed back
		if len(others) == 0 {
			return batch, true
		}
		// Other dimensions changed with the batch: a cause of their own.
		ev = evidenceOf(others, func(ch Change) string { return where(ch) + ": " + otherDims(ch) })
		for _, ch := range c.follow(dims) {
			ev = append(ev, fmt.Sprintf("constant follows the changed dimensions (a mean or count over them): %s: %s → %s", where(ch), short(ch.Old), short(ch.New)))
		}
		c.next = append(c.next, Cause{Kind: CauseInputShape, Summary: fmt.Sprintf("other dimensions changed with the batch in %d parameter(s): %s",
			len(others), distinct(others, otherDims)), Evidence: ev})
		return batch, true
	}
	follow := c.follow(dims)
	ev := evidenceOf(c.dimParams, changeLine)
	for _, ch := range follow {
		ev = append(ev, fmt.Sprintf("constant follows the changed dimension (a mean or count over it): %s: %s → %s", where(ch), short(ch.Old), short(ch.New)))
	}
	fed := fedBack(c.r.A, c.dimParams)
	if fed {
		ev = append(ev, "the earlier version returned each of these inputs with the shape the later one was given: a buffer the step grows and is called with again")
	}
	return Cause{Kind: CauseInputShape, Summary: fmt.Sprintf("input shapes changed in %d parameter(s): %s", len(c.dimParams), shapeSummary(c.dimParams)), Evidence: ev, FedBack: fed}, true
}

// fedBack says whether module a (the earlier version) returns, among its entry computation's
// results, a value of each changed parameter's new shape: the later version was given what the
// earlier one returned.
func fedBack(a *hlo.Module, params []Change) bool {
	if a == nil || a.Entry == nil || a.Entry.Root == nil || len(params) == 0 {
		return false
	}
	results := map[string]bool{}
	root := a.Entry.Root.Shape
	if root.IsTuple {
		for _, s := range root.Tuple {
			results[s.NoLayout()] = true
		}
	} else {
		results[root.NoLayout()] = true
	}
	for _, ch := range params {
		if ch.newShape.IsTuple || !results[ch.newShape.NoLayout()] {
			return false
		}
	}
	return true
}

// constantResized says whether a constant changed length along with its values (a Python list
// baked in): the sizes inside the graph and the result's follow it, and its values are the cause
// (constantRule).
func (c *classifier) constantResized() bool {
	for _, ch := range c.constants {
		for _, sh := range c.t.shapes {
			if sh.Computation == ch.Computation && sh.Instruction == ch.Instruction {
				return true
			}
		}
	}
	return false
}

// follow takes the constants no earlier rule explained that follow dims (followsDims) off the
// classifier's list, and returns them.
func (c *classifier) follow(dims []dimChange) []Change {
	var follow []Change
	follow, c.constants = followsDims(c.constants, dims)
	c.constCount -= len(follow)
	return follow
}

// inGraphDim: no input changed shape, yet one dimension changed the same way (32 → 24) in
// every instruction whose shape changed: the size is fixed inside the graph (a tensor created
// on the device with a Python-int size, a static argument). When the result's leading
// dimension follows, it is the batch size. Constants that follow the dimension are evidence.
func inGraphDim(c *classifier) (Cause, bool) {
	if len(c.t.shapes) == 0 {
		return Cause{}, false
	}

	for _, ch := range c.t.shapes {
		a, b := ch.oldShape, ch.newShape
		if a.IsTuple != b.IsTuple || (!a.IsTuple && (len(a.Dims) != len(b.Dims) || a.Elem != b.Elem)) {
			return Cause{}, false
		}
	}
	dims := dimChanges(c.t.shapes)
	if len(dims) != 1 {
		return Cause{}, false
	}
	d := dims[0]
	follow := c.follow(dims)
	n := c.r.Counts[KindShape]
	ev := evidenceN(c.t.shapes, n, changeLine)
	for _, ch := range follow {
		ev = append(ev, fmt.Sprintf("constant follows the dimension (a mean or count over it): %s: %s → %s", where(ch), short(ch.Old), short(ch.New)))
	}
	why := "no input changed shape, so the size is fixed inside the graph: a tensor created on the device with a Python-int size, or a static argument"
	if res := resultsLeading(c.t.results, d.old, d.new); res != "" {
		ev = append(ev, res)
		return Cause{Kind: CauseBatchSize, Summary: fmt.Sprintf("batch size changed %d → %d inside the graph (%d instruction(s)); %s", d.old, d.new, n, why), Evidence: ev}, true
	}
	return Cause{Kind: CauseInputShape, Summary: fmt.Sprintf("a dimension changed %d → %d inside the graph (%d instruction(s)); %s", d.old, d.new, n, why), Evidence: ev}, true
}

// constantRule: constants baked into the graph that changed and that no shape change explains
// (an input that became a constant among them).
func constantRule(c *classifier) (Cause, bool) {
	if c.restructured && len(c.constants) > 0 {
		// constants that follow the graph's new dimensions (a mean over the loop's results) or a
		// loop's new count
		dims := dimChanges(c.t.shapes)
		for _, rp := range repeatsOf(c.r.A, c.r.B) {
			if d := (dimChange{int64(rp.From), int64(rp.To)}); !slices.Contains(dims, d) {
				dims = append(dims, d)
			}
		}
		for _, ch := range c.follow(dims) {
			c.consequences = append(c.consequences, fmt.Sprintf("constant follows the new ops (a count or mean over what they made): %s: %s → %s",
				where(ch), short(ch.Old), short(ch.New)))
		}
	}
	if len(c.constants) == 0 || c.constCount <= 0 || c.unrelated {
		return Cause{}, false
	}
	summary := fmt.Sprintf("%d constant(s) baked into the graph changed: %s", c.constCount, constSummary(c.constants[0]))
	if c.constants[0].inputToConstant {
		summary = fmt.Sprintf("an input became a constant baked into the graph: %s", constSummary(c.constants[0]))
		if c.constCount > 1 {
			summary += fmt.Sprintf(" (%d constant change(s) in all)", c.constCount)
		}
	}
	cause := Cause{Kind: CauseConstant, Summary: summary,
		Evidence: evidenceN(c.constants, c.constCount, func(ch Change) string {
			return fmt.Sprintf("%s: %s → %s", where(ch), short(ch.Old), short(ch.New))
		})}
	if first := c.constants[0]; strings.Contains(first.Old+first.New, " ") {
		// an array's values ({3, 1} → {4, 1, 5}) hold spaces: the few words say them whole
		cause.Short = short(first.Old) + " → " + short(first.New)
	}
	if one := c.constants[0]; !one.inputToConstant && c.constCount == len(c.constants) {
		same := true
		for _, ch := range c.constants[1:] {
			same = same && ch.Old == one.Old && ch.New == one.New && !ch.inputToConstant
		}
		if same {
			cause.Constant = &one
		} else if v, derived, ok := oneValue(c.constants); ok {
			cause.Constant = &v
			cause.Summary = fmt.Sprintf("one number baked into the graph changed: %s, with %d constant(s) derived from it that moved by as much (%s)",
				constSummary(v), len(derived), strings.Join(derived, "; "))
		}
	}
	return cause, true
}

// oneValue finds one value of the program among constants that each changed: numbers that all
// moved by the same step and lie a whole number apart (a Python float p that an op took, and
// p - 1 that its backward derived from it: pow's exponent). The value is the constant whose op
// names a source line (the line that took it), else the largest; derived says the others'
// old → new. ok is false unless there are two or more such numbers and nothing else changed.
func oneValue(chs []Change) (v Change, derived []string, ok bool) {
	if len(chs) < 2 {
		return Change{}, nil, false
	}
	var step float64
	pick := -1
	olds := make([]float64, len(chs))
	for k, ch := range chs {
		o, err1 := strconv.ParseFloat(strings.TrimSpace(ch.Old), 64)
		n, err2 := strconv.ParseFloat(strings.TrimSpace(ch.New), 64)
		if err1 != nil || err2 != nil || ch.inputToConstant || n == o {
			return Change{}, nil, false
		}
		if k == 0 {
			step = n - o
		} else if !near(n-o, step) || !near(olds[0]-o, math.Round(olds[0]-o)) {
			return Change{}, nil, false
		}
		olds[k] = o
		switch {
		case pick < 0, ch.Source != "" && chs[pick].Source == "", (ch.Source != "") == (chs[pick].Source != "") && o > olds[pick]:
			pick = k
		}
	}
	for k, ch := range chs {
		if k != pick {
			derived = append(derived, short(ch.Old)+" → "+short(ch.New))
		}
	}
	return chs[pick], derived, true
}

// near says whether two numbers printed from float32 constants are the same number.
func near(a, b float64) bool { return math.Abs(a-b) <= 1e-6*max(1, math.Abs(a), math.Abs(b)) }

// moduleConfigRule: header settings other than partitioning and the entry layout.
func moduleConfigRule(c *classifier) (Cause, bool) {
	var cfg []Change
	for _, ch := range c.t.header {
		switch ch.Attr {
		case "num_partitions", "replica_count", "entry_computation_layout":
			continue
		case "buffer_donor", "input_output_alias", "allow_spmd_sharding_propagation_to_parameters":
			if c.t.paramsA != c.t.paramsB {
				continue // the parameters were renumbered
			}
		}
		cfg = append(cfg, ch)
	}
	if len(cfg) == 0 {
		return Cause{}, false
	}
	return Cause{Kind: CauseModuleConfig, Summary: fmt.Sprintf("module configuration changed: %s", attrNames(cfg)),
		Evidence: evidenceOf(cfg, func(ch Change) string {
			return fmt.Sprintf("module %s: %s → %s", ch.Attr, short(ch.Old), short(ch.New))
		})}, true
}

// layoutRule: layouts that changed where shape and dtype did not, or an entry layout that
// changed with no parameter or result change to explain it.
func layoutRule(c *classifier) (Cause, bool) {
	var ev []string
	if len(c.t.params) == 0 && len(c.t.results) == 0 && c.t.paramsA == c.t.paramsB {
		for _, ch := range c.t.header {
			if ch.Attr == "entry_computation_layout" {
				ev = append(ev, fmt.Sprintf("module entry_computation_layout: %s → %s", short(ch.Old), short(ch.New)))
			}
		}
	}
	if len(c.t.layouts) == 0 && len(ev) == 0 {
		return Cause{}, false
	}
	if c.restructured {
		c.consequences = append(c.consequences, fmt.Sprintf("the new ops bring their own layouts: %d instruction(s)", c.r.Counts[KindLayout]+len(ev)))
		return Cause{}, false
	}
	ev = append(ev, evidenceN(c.t.layouts, c.r.Counts[KindLayout], changeLine)...)
	return Cause{Kind: CauseLayout, Summary: fmt.Sprintf("layouts changed on %d instruction(s) whose shape and dtype did not", c.r.Counts[KindLayout]), Evidence: ev}, true
}

// structureRule: instructions or computations added or removed, opcodes changed; or, when
// nothing else explains the difference, attributes and shapes inside the graph. Ops a compiler
// adds or drops because an input changed shape or type (a transpose for a new layout, a
// convert for bf16) are evidence of that cause, not a structure change of their own.
func structureRule(c *classifier) (Cause, bool) {
	cause, ok := structureCause(c)
	if ok && cause.Kind == CauseGraphStructure {
		for _, line := range c.consequences {
			cause.Evidence = append(cause.Evidence, line+" (not a cause of its own)")
		}
	}
	return cause, ok
}

// restructured says whether no input changed and ops other than plumbing (or computations, or
// opcodes) were added or removed, the two versions sharing most of their structure.
func restructured(r *Result) bool {
	t := r.t
	if len(t.params) > 0 || r.Added+r.Removed > 0 && r.Added+r.Removed >= r.Matched {
		return false
	}
	if r.Counts[KindCompAdded]+r.Counts[KindCompRemoved]+r.Counts[KindOpcode] > 0 {
		return true
	}
	for _, ops := range []map[string]int{t.addedOps, t.removedOps} {
		for op := range ops {
			if !plumbing[op] && !typePlumbing[op] {
				return true
			}
		}
	}
	return false
}

func structureCause(c *classifier) (Cause, bool) {
	r, t := c.r, c.t
	if cause, ok := materializedRule(c); ok {
		return cause, true
	}
	if cause, ok := carriedRule(c); ok {
		return cause, true
	}
	if cause, ok := mergedRule(c); ok {
		return cause, true
	}
	if r.Added+r.Removed+r.Counts[KindCompAdded]+r.Counts[KindCompRemoved]+r.Counts[KindOpcode] > 0 {
		if k := c.consequenceOf(); k >= 0 {
			c.causes[k].Evidence = append(c.causes[k].Evidence,
				fmt.Sprintf("the compiler emitted other ops for the new inputs (not a cause of its own): %s", opDelta(r)))
			return Cause{}, false
		}
		reps := repeatsOf(r.A, r.B)
		ev := evidenceOf(t.structure, structureLine)
		unsourced := r.A != nil && r.B != nil && len(opsBySource(r.A))+len(opsBySource(r.B)) == 0
		if unsourced {
			ev = append(ev, "the ops carry no source lines, so which lines changed, and a loop count among them, cannot be told"+
				frameworks.SourceLinesAdvice())
		}
		for i, rp := range reps {
			if i == maxRepeatLines {
				break
			}
			ev = append(ev, fmt.Sprintf("the ops at %s: %d → %d, whole copies of a block of %d (%d → %d times): a loop with a new count",
				rp.Source, rp.Ops*rp.From, rp.Ops*rp.To, rp.Ops, rp.From, rp.To))
		}
		return Cause{Kind: CauseGraphStructure, Summary: fmt.Sprintf("the graph's structure changed: %s", opDelta(r)),
			Evidence: ev, Repeats: reps, Grows: growthsOf(r.A, r.B, reps), Unsourced: unsourced}, true
	}
	if len(c.causes) > 0 || len(t.attrs)+len(t.shapes)+len(t.dtypes)+r.Counts[KindConstantElided] == 0 {
		return Cause{}, false
	}
	var all []Change
	all = append(all, t.shapes...)
	all = append(all, t.attrs...)
	return Cause{Kind: CauseGraphStructure, Summary: fmt.Sprintf("instructions inside the graph changed (%d attribute, %d shape change(s)) with the inputs unchanged",
		r.Counts[KindAttribute]+r.Counts[KindBackendConfig], r.Counts[KindShape]),
		Evidence: evidenceOf(all, func(ch Change) string {
			if ch.Attr != "" {
				return fmt.Sprintf("%s: %s %s → %s", where(ch), ch.Attr, short(ch.Old), short(ch.New))
			}
			return changeLine(ch)
		})}, true
}

// plumbing are ops a compiler adds or drops when only shapes or types change.
var plumbing = map[string]bool{"transpose": true, "reshape": true, "broadcast": true, "copy": true, "bitcast": true,
	"slice": true, "dynamic-slice": true, "pad": true, "concatenate": true, "constant": true, "iota": true,
	"get-tuple-element": true, "tuple": true}

var typePlumbing = map[string]bool{"convert": true, "bitcast-convert": true, "reduce-precision": true}

// consequenceOf returns the index of the cause (dtype, a shape, a constant) that the
// structural change follows from, or -1: every instruction added or removed is plumbing for
// it, and no computation or opcode changed.
func (c *classifier) consequenceOf() int {
	r, t := c.r, c.t
	if r.Counts[KindCompAdded]+r.Counts[KindCompRemoved]+r.Counts[KindOpcode] > 0 || r.Added+r.Removed > r.Matched/4+4 {
		return -1
	}
	for k, cause := range c.causes {
		if cause.Kind == CauseSharding {
			continue
		}
		// An op removed and the same op added is one op matched no further (its operands
		// changed type): only the rest must be plumbing.
		ok := true
		for op, n := range t.addedOps {
			ok = ok && (n <= t.removedOps[op] || plumbing[op] || cause.Kind == CauseDtype && typePlumbing[op])
		}
		for op, n := range t.removedOps {
			ok = ok && (n <= t.addedOps[op] || plumbing[op] || cause.Kind == CauseDtype && typePlumbing[op])
		}
		if ok {
			return k
		}
	}
	return -1
}

func structureLine(ch Change) string {
	switch ch.Kind {
	case KindAdded:
		return "added " + where(ch) + ": " + ch.New
	case KindRemoved:
		return "removed " + where(ch) + ": " + ch.Old
	case KindCompAdded:
		return "added computation " + ch.New
	case KindCompRemoved:
		return "removed computation " + ch.Old
	}
	return changeLine(ch)
}

// materializedRule: the only structural difference is that values the first graph computed
// from constants (a tensor created on the device before the first step) are inputs of the
// second. It happens once per such tensor; the advice says how to keep it out of the step.
func materializedRule(c *classifier) (Cause, bool) {
	r, t := c.r, c.t
	if len(t.materialized) == 0 || t.removedComputed > 0 ||
		r.Counts[KindCompAdded]+r.Counts[KindCompRemoved]+r.Counts[KindOpcode] > 0 {
		return Cause{}, false
	}
	// Besides the new inputs only ops a compiler adds for them (a transpose for a layout).
	for op, n := range t.addedOps {
		if op == "parameter" {
			n -= len(t.materialized)
		}
		if n > 0 && !plumbing[op] {
			return Cause{}, false
		}
	}
	ev := evidenceOf(t.materialized, func(ch Change) string {
		return fmt.Sprintf("%s: %s → %s", where(ch), short(ch.Old), ch.New)
	})
	ev = append(ev, fmt.Sprintf("the first graph also computed them: %s", opDelta(r)))
	return Cause{Kind: CauseGraphStructure, Once: true,
		Summary:  fmt.Sprintf("%d value(s) the first graph computed from constants are inputs of the second: tensors created on the device were built inside the first graph and are device data from then on", len(t.materialized)),
		Short:    fmt.Sprintf("%d tensor(s) built in the first step are inputs from then on", len(t.materialized)),
		Evidence: ev,
		Advice: "expected once: the first step also created these tensors (an optimizer creates its state in its first step; tensors made with device=...). " +
			"recomp guard's default warm-up takes it as set-up when the log shows each graph's executions (" +
			frameworks.ExecutionsAdvice() + ", as recomp run sets it); otherwise keep this run as a baseline (recomp guard --write-baseline FILE LOG) " +
			"and check later runs with --baseline FILE. Or materialise such tensors before the loop " +
			"(" + frameworks.MaterializeAdvice() + ")"}, true
}

// carriedRule: the second graph takes as inputs state the first created and returned
// (carriedState): an optimizer whose first step initialised its state inside the graph. The
// ops added are the update of that state, now read from its inputs; like materializedRule it
// explains the structural difference beside any other cause of the pair.
func carriedRule(c *classifier) (Cause, bool) {
	r, t := c.r, c.t
	if len(t.carried) == 0 || t.unfed > 0 || t.removedComputed > 0 || r.Counts[KindCompAdded]+r.Counts[KindCompRemoved]+r.Counts[KindOpcode] > 0 {
		return Cause{}, false
	}
	sort.SliceStable(t.carried, func(i, j int) bool { return t.carried[i].Param < t.carried[j].Param })
	ev := evidenceOf(t.carried, func(ch Change) string {
		return fmt.Sprintf("%s: a new input %s; the first graph returned one of this shape", where(ch), short(ch.New))
	})
	ev = append(ev, fmt.Sprintf("the second graph updates them: %s", opDelta(r)))
	return Cause{Kind: CauseGraphStructure, Once: true,
		Summary: fmt.Sprintf("%d input(s) of the second graph hold state the first graph created inside itself and returned: "+
			"state initialised in the first step (an optimizer's) is an input from the second step on", len(t.carried)),
		Short:    fmt.Sprintf("state created in the first step is an input from then on (%d inputs)", len(t.carried)),
		Evidence: ev,
		Advice: "expected once: the first step created this state inside its graph (an optimizer's, initialised in its first step; " +
			"variables created lazily). Keep this run as a baseline (recomp guard --write-baseline FILE LOG) and check later runs " +
			"with --baseline FILE, or create the state before the loop so " +
			"that the first step already takes it as input (" + frameworks.StateFirstAdvice() + ")"}, true
}

// mergedRule: one graph holds every instruction of the other, and the ops only one of them has
// feed nothing but outputs of their own (the root tuple's extra elements), from inputs both have
// or new ones: another computation traced into the same graph. PyTorch/XLA does this when a
// sync finds tensors still pending from code that ran before the step (an epoch-end metric read
// with .item(), whose ops stay pending): the step's graph is compiled again with them merged in.
// Nothing else may differ: a change inside the step is a change of the step.
func mergedRule(c *classifier) (Cause, bool) {
	r := c.r
	if len(c.causes) > 0 || (r.Added == 0) == (r.Removed == 0) || r.Counts[KindOpcode] > 0 ||
		r.Counts[KindCompAdded] > 0 && r.Removed > 0 || r.Counts[KindCompRemoved] > 0 && r.Added > 0 || !onlyExtraOps(r) {
		return Cause{}, false
	}
	grew := r.Added > 0
	big, small := r.B, r.A // the graph with the extra ops, and the other
	if !grew {
		big, small = r.A, r.B
	}
	if big.Entry == nil || small.Entry == nil || big.Entry.Root == nil || small.Entry.Root == nil ||
		big.Entry.Root.Opcode != "tuple" || len(big.Entry.Root.Operands) <= len(small.Entry.Root.Operands) {
		return Cause{}, false
	}
	var extra map[string]bool
	for _, cp := range r.Computations {
		if cp.A == r.A.Entry && cp.B == r.B.Entry && sameOps(r, cp) {
			extra = extraOps(cp, grew)
		}
	}
	if extra == nil || len(extra) != r.Added+r.Removed {
		return Cause{}, false // an op both have computes something else, or ops outside the entry differ
	}
	return mergedCause(r, big.Entry, len(big.Entry.Root.Operands)-len(small.Entry.Root.Operands), grew, extra), true
}

// onlyExtraOps says whether the changes are only instructions and computations added or removed,
// the module's header, and the root's shape (its extra outputs).
func onlyExtraOps(r *Result) bool {
	for _, ch := range r.Changes {
		switch {
		case ch.Kind == KindAdded || ch.Kind == KindRemoved || ch.Kind == KindCompAdded || ch.Kind == KindCompRemoved || ch.Kind == KindHeader:
		case ch.Kind == KindShape && ch.Root:
		default:
			return false
		}
	}
	return true
}

// mergedCause names the ops the entry big has besides the other version's (extra), feeding outs
// outputs of their own: their new inputs and the program's lines they come from.
func mergedCause(r *Result, big *hlo.Computation, outs int, grew bool, extra map[string]bool) Cause {
	var inputs, lines []string
	for _, in := range big.Instructions {
		if extra[in.Name] && in.Opcode == "parameter" {
			inputs = append(inputs, in.Shape.NoLayout())
		}
		src := in.Metadata().Source() // the program's own lines (op metadata), not a library's
		if file := src[:max(strings.LastIndex(src, ":"), 0)]; extra[in.Name] && src != "" && frameworks.IsUserFile(file) &&
			!slices.Contains(lines, src) && len(lines) < maxRepeatLines {
			lines = append(lines, src)
		}
	}
	ops := r.Added + r.Removed - len(inputs)
	what := fmt.Sprintf("the graph is the earlier one with %d op(s) merged in, computing %d more output(s)", ops, outs)
	short := fmt.Sprintf("pending ops merged in: the earlier graph plus %d op(s) and %d output(s)", ops, outs)
	ev := fmt.Sprintf("every op of the earlier graph is in the new one; the other %d feed only %d output(s) of their own: %s", ops, outs, opDelta(r))
	if !grew {
		what = fmt.Sprintf("the graph is the earlier one without %d op(s) it had merged in, computing %d fewer output(s)", ops, outs)
		short = fmt.Sprintf("pending ops no longer merged in: the earlier graph less %d op(s) and %d output(s)", ops, outs)
		ev = fmt.Sprintf("every op of the new graph is in the earlier one; the other %d fed only %d output(s) of their own: %s", ops, outs, opDelta(r))
	}
	evidence := []string{ev}
	if len(inputs) > 0 {
		evidence = append(evidence, fmt.Sprintf("they read %d input(s) the other graph does not take: %s", len(inputs), strings.Join(inputs, ", ")))
	}
	if len(lines) > 0 {
		evidence = append(evidence, "their ops come from "+strings.Join(lines, ", "))
	}
	return Cause{Kind: CauseGraphStructure, Merged: true,
		Summary: what + ": not a change of the step but another computation traced into its graph (tensors left pending " +
			"by code that ran before it, such as an epoch-end metric or evaluation, computed in the same graph)",
		Short: short, Evidence: evidence, Advice: frameworks.MergedAdvice()}
}

// sameOps says whether every instruction of the entry matched in both versions, but the root,
// computes the same in both: its hash, operands and all (the inputs numbered alike), is equal.
// (The matcher may pair an op with a twin of its operand; an op fed by an op the other version
// lacks hashes differently.)
func sameOps(r *Result, cp CompPair) bool {
	ha := hlo.NewHasher(r.A, hlo.HashOptions{}).Instructions(cp.A)
	hb := hlo.NewHasher(r.B, hlo.HashOptions{EntryParams: paramRenumbering(cp.A, cp.B)}).Instructions(cp.B)
	for j, i := range cp.MatchB {
		if i >= 0 && !cp.B.Instructions[j].Root && ha[i] != hb[j] {
			return false
		}
	}
	return true
}

// extraOps returns the names of the instructions of the entry computation one version has and
// the other does not: B's added ones (added), else A's removed ones.
func extraOps(cp CompPair, added bool) map[string]bool {
	out := map[string]bool{}
	if added {
		for j, i := range cp.MatchB {
			if i < 0 {
				out[cp.B.Instructions[j].Name] = true
			}
		}
		return out
	}
	matched := make([]bool, len(cp.A.Instructions))
	for _, i := range cp.MatchB {
		if i >= 0 {
			matched[i] = true
		}
	}
	for i, in := range cp.A.Instructions {
		if !matched[i] {
			out[in.Name] = true
		}
	}
	return out
}

// identicalRule: nothing differs after normalisation.
func identicalRule(c *classifier) (Cause, bool) {
	if len(c.causes) > 0 {
		return Cause{}, false
	}
	summary := "the modules are identical after normalisation (names, numbering, metadata and comments ignored)"
	if c.t.elided > 0 {
		summary = fmt.Sprintf("the modules are identical as far as the text shows; %d elided constant(s) cannot be compared", c.t.elided)
	}
	return Cause{Kind: CauseIdentical, Summary: summary}, true
}

// dimChange is one dimension that changed size in the parameters.
type dimChange struct{ old, new int64 }

// dimChanges lists the distinct size changes of the dimensions of changed parameters.
func dimChanges(chs []Change) []dimChange {
	var out []dimChange
	for _, ch := range chs {
		a, b := ch.oldShape, ch.newShape
		if a.IsTuple || b.IsTuple || len(a.Dims) != len(b.Dims) {
			continue
		}
		for i := range a.Dims {
			d := dimChange{a.Dims[i], b.Dims[i]}
			if d.old != d.new && d.old > 0 && d.new > 0 && !slices.Contains(out, d) {
				out = append(out, d)
			}
		}
	}
	return out
}

// followsDims splits off the constants whose change is a change of dimensions: the value times
// the size, or over it, stays the same (1/128 → 1/96 for a mean over 32 → 24 rows of 4), for
// one changed dimension or the product of two or three (a mean over B·T, over an image's H·W);
// a small array (maxFollowElems elements at most, Keras's metric count s32[1] {64} → {22})
// follows when each element that changed does.
func followsDims(chs []Change, dims []dimChange) (follow, rest []Change) {
	dims = dims[:min(len(dims), maxFactorDims)]
	type factor struct{ old, new float64 }
	var factors []factor
	for i := range dims {
		fi := factor{float64(dims[i].old), float64(dims[i].new)}
		factors = append(factors, fi)
		for j := i; j < len(dims); j++ {
			fj := factor{fi.old * float64(dims[j].old), fi.new * float64(dims[j].new)}
			factors = append(factors, fj)
			for k := j; k < len(dims); k++ {
				factors = append(factors, factor{fj.old * float64(dims[k].old), fj.new * float64(dims[k].new)})
			}
		}
	}
	near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-6*math.Max(math.Abs(a), math.Abs(b)) }
	follows := func(o, n float64) bool {
		if o == 0 || n == 0 {
			return false
		}
		for _, f := range factors {
			if near(o*f.old, n*f.new) || near(o/f.old, n/f.new) {
				return true
			}
		}
		return false
	}
	for _, ch := range chs {
		olds, okO := literalNumbers(ch.Old)
		news, okN := literalNumbers(ch.New)
		ok := okO && okN && len(olds) == len(news) && len(factors) > 0
		changed := 0
		for i := 0; ok && i < len(olds); i++ {
			if olds[i] != news[i] {
				changed++
				ok = follows(olds[i], news[i])
			}
		}
		if ok && changed > 0 {
			follow = append(follow, ch)
		} else {
			rest = append(rest, ch)
		}
	}
	return follow, rest
}

// maxFactorDims bounds the changed dimensions whose products a constant is checked against;
// maxFollowElems the elements of an array constant that may follow them.
const (
	maxFactorDims  = 8
	maxFollowElems = 16
)

// literalNumbers reads a constant's value as numbers: a scalar (0.5), or the elements of a
// small array ({64}, {{1, 2}, {3, 4}}); ok is false for anything else (an elided or a long
// constant, a tuple, a non-numeric element).
func literalNumbers(lit string) (out []float64, ok bool) {
	lit = strings.TrimSpace(lit)
	if lit == "" || len(lit) > 16*maxFollowElems {
		return nil, false
	}
	fields := strings.FieldsFunc(lit, func(r rune) bool { return r == '{' || r == '}' || r == ',' || r == ' ' })
	if len(fields) == 0 || len(fields) > maxFollowElems || strings.Contains(lit, "(") {
		return nil, false
	}
	for _, f := range fields {
		v, err := strconv.ParseFloat(f, 64)
		if err != nil {
			return nil, false
		}
		out = append(out, v)
	}
	return out, true
}

func elemOf(ch Change) (string, string) {
	return elemString(ch.oldShape), elemString(ch.newShape)
}

func elemString(s hlo.Shape) string {
	if s.IsTuple {
		return s.NoLayout()
	}
	return s.Elem
}

// transitions lists the distinct old → new pairs.
func transitions(chs []Change, f func(Change) (string, string)) string {
	seen := map[string]bool{}
	var out []string
	for _, ch := range chs {
		o, n := f(ch)
		t := o + " → " + n
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	if len(out) > 3 {
		out = append(out[:3], "…")
	}
	return strings.Join(out, ", ")
}

// distinct lists the distinct f(ch), three at most.
func distinct(chs []Change, f func(Change) string) string {
	var out []string
	for _, ch := range chs {
		if v := f(ch); !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	if len(out) > 3 {
		out = append(out[:3], "…")
	}
	return strings.Join(out, "; ")
}

// leadingDim reports whether every change alters dimension 0 the same way (old → new): the
// batch size; others are the changes that alter other dimensions too (none of them in the
// ratio dimension 0 changed).
func leadingDim(chs []Change) (old, new int64, ok bool, others []Change) {
	old, new = -2, -2
	for _, ch := range chs {
		a, b := ch.oldShape, ch.newShape
		if a.IsTuple || b.IsTuple || len(a.Dims) != len(b.Dims) || len(a.Dims) == 0 || a.Elem != b.Elem {
			return 0, 0, false, nil
		}
		if old == -2 {
			old, new = a.Dims[0], b.Dims[0]
		} else if a.Dims[0] != old || b.Dims[0] != new {
			return 0, 0, false, nil
		}
		if !slices.Equal(a.Dims[1:], b.Dims[1:]) {
			others = append(others, ch)
		}
	}
	// A leading dimension scaled as other dimensions were (a volume's sides all doubled) is
	// part of one resize, not a batch of its own.
	for _, ch := range others {
		for i := 1; i < len(ch.oldShape.Dims); i++ {
			if a, b := ch.oldShape.Dims[i], ch.newShape.Dims[i]; a != b && old*b == new*a {
				return 0, 0, false, nil
			}
		}
	}
	return old, new, old != new, others
}

// otherDims says how the dimensions after the first of an array shape changed:
// "dimension 1: 32 → 24".
func otherDims(ch Change) string {
	a, b := ch.oldShape, ch.newShape
	var parts []string
	for i := 1; i < len(a.Dims) && i < len(b.Dims); i++ {
		if a.Dims[i] != b.Dims[i] {
			parts = append(parts, fmt.Sprintf("dimension %d: %d → %d", i, a.Dims[i], b.Dims[i]))
		}
	}
	return strings.Join(parts, ", ")
}

// resultsLeading says whether the entry result (or an element of it) changed its leading
// dimension the same way as the parameters.
func resultsLeading(results []Change, old, new int64) string {
	for _, ch := range results {
		if leadingChanged(ch.oldShape, ch.newShape, old, new) {
			return fmt.Sprintf("the result follows: %s → %s", short(ch.Old), short(ch.New))
		}
	}
	return ""
}

func leadingChanged(a, b hlo.Shape, old, new int64) bool {
	if a.IsTuple && b.IsTuple && len(a.Tuple) == len(b.Tuple) {
		for i := range a.Tuple {
			if leadingChanged(a.Tuple[i], b.Tuple[i], old, new) {
				return true
			}
		}
		return false
	}
	return !a.IsTuple && !b.IsTuple && len(a.Dims) > 0 && len(b.Dims) > 0 && a.Dims[0] == old && b.Dims[0] == new
}

func shapeSummary(chs []Change) string {
	var parts []string
	for i, ch := range chs {
		if i == 3 {
			parts = append(parts, "…")
			break
		}
		parts = append(parts, fmt.Sprintf("%s → %s", ch.oldShape.NoLayout(), ch.newShape.NoLayout()))
	}
	return strings.Join(parts, ", ")
}

func constSummary(ch Change) string {
	s := short(ch.Old) + " → " + short(ch.New)
	if ch.OpName != "" {
		s += " (op_name " + quoteShort(ch.OpName) + ")"
	}
	return s
}

func attrNames(chs []Change) string {
	var names []string
	for _, ch := range chs {
		names = append(names, ch.Attr)
	}
	return strings.Join(names, ", ")
}

var collectives = map[string]bool{"all-reduce": true, "all-gather": true, "reduce-scatter": true, "all-to-all": true,
	"collective-permute": true, "all-reduce-start": true, "all-gather-start": true, "collective-permute-start": true,
	"all-to-all-start": true}

func collectiveDelta(t *tally) string {
	var parts []string
	for _, op := range slices.Sorted(maps.Keys(t.addedOps)) {
		if collectives[op] {
			parts = append(parts, fmt.Sprintf("+%d %s", t.addedOps[op], op))
		}
	}
	for _, op := range slices.Sorted(maps.Keys(t.removedOps)) {
		if collectives[op] {
			parts = append(parts, fmt.Sprintf("-%d %s", t.removedOps[op], op))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "collectives " + strings.Join(parts, ", ")
}

func firstCollective(t *tally) Change {
	for _, ch := range t.structure {
		if ch.Kind == KindAdded && collectives[strings.Fields(ch.New)[0]] || ch.Kind == KindRemoved && collectives[strings.Fields(ch.Old)[0]] {
			return ch
		}
	}
	return Change{}
}

func opDelta(r *Result) string {
	var parts []string
	if r.Added+r.Removed > 0 {
		parts = append(parts, fmt.Sprintf("%d instruction(s) added, %d removed", r.Added, r.Removed))
	}
	var ops []string
	for _, op := range slices.Sorted(maps.Keys(r.t.addedOps)) {
		ops = append(ops, fmt.Sprintf("+%d %s", r.t.addedOps[op], op))
	}
	for _, op := range slices.Sorted(maps.Keys(r.t.removedOps)) {
		ops = append(ops, fmt.Sprintf("-%d %s", r.t.removedOps[op], op))
	}
	if len(ops) > 6 {
		ops = append(ops[:6], "…")
	}
	if len(ops) > 0 {
		parts = append(parts, "("+strings.Join(ops, ", ")+")")
	}
	if n := r.Counts[KindCompAdded] + r.Counts[KindCompRemoved]; n > 0 {
		parts = append(parts, fmt.Sprintf("%d computation(s) added or removed", n))
	}
	if n := r.Counts[KindOpcode]; n > 0 {
		parts = append(parts, fmt.Sprintf("%d opcode change(s)", n))
	}
	return strings.Join(parts, " ")
}

// maxRepeatLines bounds the evidence lines of repeated blocks.
const maxRepeatLines = 3

// The bounds of a repeated block: at least minBlockOps instructions per copy (smaller counts
// divide too easily to say anything), at most maxCopies copies.
const (
	minBlockOps = 3
	maxCopies   = 64
)

// repeatsOf are the source lines (op metadata, file:line) whose instruction counts in a and b
// differ and are both whole multiples of one block: their greatest common divisor, of at least
// minBlockOps instructions, with at most maxCopies copies either side. Nil when the modules'
// ops name no source (no metadata), or nil modules.
func repeatsOf(a, b *hlo.Module) []Repeat {
	if a == nil || b == nil {
		return nil
	}
	ca, cb := opsBySource(a), opsBySource(b)
	var out []Repeat
	for src, na := range ca {
		nb := cb[src]
		if nb == 0 || na == nb {
			continue
		}
		g := gcd(na, nb)
		if g < minBlockOps || na/g > maxCopies || nb/g > maxCopies {
			continue
		}
		out = append(out, Repeat{Source: src, Ops: g, From: na / g, To: nb / g})
	}
	slices.SortFunc(out, func(x, y Repeat) int {
		return cmp.Or(cmp.Compare(y.Ops*max(y.From, y.To), x.Ops*max(x.From, x.To)), strings.Compare(x.Source, y.Source))
	})
	return out
}

// growthsOf are the program's own source lines whose instruction count differs between the
// modules, in both, and is not a repeated block (reps): the largest changes first, at most
// maxRepeatLines.
func growthsOf(a, b *hlo.Module, reps []Repeat) []Growth {
	if a == nil || b == nil {
		return nil
	}
	ca, cb := opsBySource(a), opsBySource(b)
	var out []Growth
	for src, na := range ca {
		nb := cb[src]
		if nb == 0 || na == nb || slices.ContainsFunc(reps, func(r Repeat) bool { return r.Source == src }) ||
			!frameworks.IsUserFile(src[:max(strings.LastIndex(src, ":"), 0)]) {
			continue
		}
		out = append(out, Growth{Source: src, From: na, To: nb})
	}
	abs := func(g Growth) int { return max(g.To-g.From, g.From-g.To) }
	slices.SortFunc(out, func(x, y Growth) int { return cmp.Or(cmp.Compare(abs(y), abs(x)), strings.Compare(x.Source, y.Source)) })
	return out[:min(len(out), maxRepeatLines)]
}

// opsBySource counts a module's instructions by their metadata's source line.
func opsBySource(m *hlo.Module) map[string]int {
	out := map[string]int{}
	for _, c := range m.Computations {
		for _, in := range c.Instructions {
			if src := in.Metadata().Source(); src != "" {
				out[src]++
			}
		}
	}
	return out
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}
