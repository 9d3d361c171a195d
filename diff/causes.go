package diff

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/recomp/recomp/hlo"
)

// Cause kinds, in the order they are ranked.
const (
	CauseDtype          = "dtype"
	CauseSharding       = "sharding"
	CauseBatchSize      = "batch_size"
	CauseInputShape     = "input_shape"
	CauseConstant       = "constant_value"
	CauseModuleConfig   = "module_config"
	CauseLayout         = "layout"
	CauseGraphStructure = "graph_structure"
	CauseIdentical      = "identical"
)

// Cause is one reason why two modules differ, in the user's terms.
type Cause struct {
	Kind     string
	Summary  string
	Evidence []string
	Advice   string
}

// Advice per cause kind.
var advice = map[string]string{
	CauseDtype: "cast inputs to one dtype before they reach the compiled function (watch mixed-precision policies, " +
		"Python scalars that become weakly typed, and f64 creeping in from NumPy)",
	CauseSharding: "keep the device mesh, partition count and in/out shardings the same between runs and steps; " +
		"a different tensor-parallel degree or mesh shape is a different program",
	CauseBatchSize: "keep the batch size constant: drop the last partial batch (drop_remainder=True, drop_last=True) " +
		"or pad it to the full size; if the leading dimension is a data-dependent count, pad it to a few fixed bucket sizes",
	CauseInputShape: "feed fixed shapes: pad inputs to a fixed size or to a small set of buckets; for tf.function give " +
		"an input_signature (or reduce_retracing=True); in JAX avoid passing differently-shaped arrays to one jit",
	CauseConstant: "a value is baked into the graph as a constant (a Python float such as a learning rate, a step " +
		"counter, or frozen weights): pass it as an input tensor/array argument instead, so changing it does not change the graph",
	CauseModuleConfig: "the module's compile configuration changed (buffer donation and aliasing, replica or partition " +
		"count, frontend attributes): keep donate_argnums / aliasing and the compile options the same",
	CauseLayout: "inputs arrive with different memory layouts (a transposed or non-contiguous array, a different " +
		"device layout) or a layout-affecting option changed: make inputs contiguous and keep layouts fixed",
	CauseGraphStructure: "the program itself changed: look for Python control flow on values, lists or tf.concat " +
		"growing in a loop, a function re-defined per step, or options that change which ops are emitted",
	CauseIdentical: "the graphs are the same, so the recompile came from outside the graph: a function wrapped again " +
		"in each step (jax.jit of a new lambda or closure, a tf.function created in a loop: wrap it once, outside the loop), " +
		"compile flags (XLA_FLAGS, TF_POPLAR_FLAGS), the device or its configuration, a different framework or SDK version, " +
		"or an executable cache that was not enabled or not shared between processes",
}

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
	case ch.Param >= 0 && ch.Entry:
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
	if len([]rune(s)) > 90 {
		r := []rune(s)
		s = string(r[:40]) + "…" + string(r[len(r)-49:])
	}
	return `"` + s + `"`
}

func changeLine(ch Change) string {
	return fmt.Sprintf("%s: %s → %s", where(ch), short(ch.Old), short(ch.New))
}

func short(s string) string {
	if len(s) > 120 {
		return s[:80] + "…" + s[len(s)-30:]
	}
	return s
}

func classify(r *Result) []Cause {
	var causes []Cause
	add := func(kind, summary string, ev []string) {
		causes = append(causes, Cause{Kind: kind, Summary: summary, Evidence: ev, Advice: advice[kind]})
	}

	// Entry parameters whose sharding changed: their per-device shape follows the sharding.
	shardedParam := map[int]bool{}
	for _, ch := range r.sharding {
		if ch.Entry && ch.Param >= 0 {
			shardedParam[ch.Param] = true
		}
	}
	sort.SliceStable(r.params, func(i, j int) bool { return r.params[i].Param < r.params[j].Param })

	// dtype: entry parameters whose element type changed, else any dtype change
	var dtypeParams, dimParams, shardShapes []Change
	for _, ch := range r.params {
		if shardedParam[ch.Param] && ch.Kind != KindDtype {
			shardShapes = append(shardShapes, ch)
			continue
		}
		if ch.Kind == KindDtype {
			dtypeParams = append(dtypeParams, ch)
		}
		if ch.oldShape.IsTuple || ch.newShape.IsTuple || !ch.oldShape.SameDims(ch.newShape) {
			dimParams = append(dimParams, ch)
		}
	}
	switch {
	case len(dtypeParams) > 0:
		add(CauseDtype, fmt.Sprintf("input dtype changed: %s (%d parameter(s))", transitions(dtypeParams, elemOf), len(dtypeParams)),
			evidenceOf(dtypeParams, changeLine))
	case len(r.params) == 0 && len(r.dtypes) > 0:
		add(CauseDtype, fmt.Sprintf("element types changed inside the graph: %s (%d instruction(s))", transitions(r.dtypes, elemOf), r.Counts[KindDtype]),
			evidenceOf(r.dtypes, changeLine))
	}

	// sharding: sharding attributes, replica groups, collectives added or removed, partitions
	var sh []string
	for _, ch := range r.header {
		if ch.Attr == "num_partitions" || ch.Attr == "replica_count" {
			sh = append(sh, fmt.Sprintf("module %s: %s → %s", ch.Attr, ch.Old, ch.New))
		}
	}
	coll := collectiveDelta(r)
	sh = append(sh, evidenceOf(r.sharding, changeLine)...)
	for _, ch := range shardShapes {
		sh = append(sh, "per-device shape follows: "+changeLine(ch))
	}
	if coll != "" && len(sh) == 0 {
		sh = append(sh, coll+" ("+where(firstCollective(r))+")")
	}
	if len(sh) > 0 {
		n := r.Counts[KindSharding] + r.Counts[KindReplicaGroups]
		summary := "sharding or device mesh changed"
		if n > 0 {
			summary += fmt.Sprintf(" (%d sharding/replica-group attribute(s))", n)
		}
		if coll != "" {
			summary += "; " + coll
		}
		add(CauseSharding, summary, sh)
	}

	// batch size or input shape
	constants, constCount := r.constants, r.Counts[KindConstant]
	if len(dimParams) > 0 {
		if old, new, ok := leadingDimOnly(dimParams); ok && len(dtypeParams) == 0 {
			ev := evidenceOf(dimParams, changeLine)
			if res := resultsLeading(r.results, old, new); res != "" {
				ev = append(ev, res)
			}
			var follow []Change
			follow, constants = followsBatch(constants, old, new)
			constCount -= len(follow)
			for _, ch := range follow {
				ev = append(ev, fmt.Sprintf("constant follows the batch size (a mean or count over the batch): %s: %s → %s", where(ch), short(ch.Old), short(ch.New)))
			}
			add(CauseBatchSize, fmt.Sprintf("batch size (leading dimension) changed %d → %d in %d parameter(s)", old, new, len(dimParams)), ev)
		} else {
			add(CauseInputShape, fmt.Sprintf("input shapes changed in %d parameter(s): %s", len(dimParams), shapeSummary(dimParams)),
				evidenceOf(dimParams, changeLine))
		}
	} else if len(r.results) > 0 && len(causes) == 0 {
		add(CauseInputShape, "the result shape changed", evidenceOf(r.results, changeLine))
	}

	if len(constants) > 0 && constCount > 0 {
		add(CauseConstant, fmt.Sprintf("%d constant(s) baked into the graph changed: %s", constCount, constSummary(constants[0])),
			evidenceN(constants, constCount, func(ch Change) string {
				return fmt.Sprintf("%s: %s → %s", where(ch), short(ch.Old), short(ch.New))
			}))
	}

	var cfg []Change
	layoutHeader := false
	for _, ch := range r.header {
		switch ch.Attr {
		case "num_partitions", "replica_count":
			continue
		case "entry_computation_layout":
			if len(r.params) > 0 || len(r.results) > 0 {
				continue // follows from the parameter or result changes
			}
			layoutHeader = true
			continue
		}
		cfg = append(cfg, ch)
	}
	if len(cfg) > 0 {
		add(CauseModuleConfig, fmt.Sprintf("module configuration changed: %s", attrNames(cfg)),
			evidenceOf(cfg, func(ch Change) string {
				return fmt.Sprintf("module %s: %s → %s", ch.Attr, short(ch.Old), short(ch.New))
			}))
	}

	if len(r.layouts) > 0 || layoutHeader {
		var ev []string
		if layoutHeader {
			for _, ch := range r.header {
				if ch.Attr == "entry_computation_layout" {
					ev = append(ev, fmt.Sprintf("module entry_computation_layout: %s → %s", short(ch.Old), short(ch.New)))
				}
			}
		}
		ev = append(ev, evidenceN(r.layouts, r.Counts[KindLayout], changeLine)...)
		add(CauseLayout, fmt.Sprintf("layouts changed on %d instruction(s) whose shape and dtype did not", r.Counts[KindLayout]), ev)
	}

	structural := r.Added + r.Removed + r.Counts[KindCompAdded] + r.Counts[KindCompRemoved] + r.Counts[KindOpcode]
	if structural > 0 {
		summary := fmt.Sprintf("the graph's structure changed: %s", opDelta(r))
		add(CauseGraphStructure, summary, evidenceOf(r.structure, func(ch Change) string {
			switch ch.Kind {
			case KindAdded:
				return fmt.Sprintf("added %s", where(ch)+": "+ch.New)
			case KindRemoved:
				return fmt.Sprintf("removed %s", where(ch)+": "+ch.Old)
			case KindCompAdded:
				return "added computation " + ch.New
			case KindCompRemoved:
				return "removed computation " + ch.Old
			}
			return changeLine(ch)
		}))
	} else if len(causes) == 0 && (len(r.attrs) > 0 || len(r.shapes) > 0 || len(r.dtypes) > 0 || r.Counts[KindConstantElided] > 0) {
		var all []Change
		all = append(all, r.shapes...)
		all = append(all, r.attrs...)
		add(CauseGraphStructure, fmt.Sprintf("instructions inside the graph changed (%d attribute, %d shape change(s)) with the inputs unchanged",
			r.Counts[KindAttribute]+r.Counts[KindBackendConfig], r.Counts[KindShape]),
			evidenceOf(all, func(ch Change) string {
				if ch.Attr != "" {
					return fmt.Sprintf("%s: %s %s → %s", where(ch), ch.Attr, short(ch.Old), short(ch.New))
				}
				return changeLine(ch)
			}))
	}

	if len(causes) == 0 {
		summary := "the modules are identical after normalisation (names, numbering, metadata and comments ignored)"
		if r.elided > 0 {
			summary = fmt.Sprintf("the modules are identical as far as the text shows; %d elided constant(s) cannot be compared", r.elided)
		}
		add(CauseIdentical, summary, nil)
	}
	return causes
}

// followsBatch splits off the scalar constants whose change is the batch-size change: the
// value times the batch, or over it, stays the same (1/128 → 1/96 for a mean over 32 → 24
// rows of 4).
func followsBatch(chs []Change, oldB, newB int64) (follow, rest []Change) {
	near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-6*math.Max(math.Abs(a), math.Abs(b)) }
	for _, ch := range chs {
		o, errO := strconv.ParseFloat(strings.TrimSpace(ch.Old), 64)
		n, errN := strconv.ParseFloat(strings.TrimSpace(ch.New), 64)
		if errO == nil && errN == nil && o != 0 && n != 0 && oldB != newB &&
			(near(o*float64(oldB), n*float64(newB)) || near(o/float64(oldB), n/float64(newB))) {
			follow = append(follow, ch)
			continue
		}
		rest = append(rest, ch)
	}
	return follow, rest
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

// leadingDimOnly reports whether every change alters only dimension 0, the same way.
func leadingDimOnly(chs []Change) (int64, int64, bool) {
	var old, new int64 = -2, -2
	for _, ch := range chs {
		a, b := ch.oldShape, ch.newShape
		if a.IsTuple || b.IsTuple || len(a.Dims) != len(b.Dims) || len(a.Dims) == 0 || a.Elem != b.Elem {
			return 0, 0, false
		}
		for i := 1; i < len(a.Dims); i++ {
			if a.Dims[i] != b.Dims[i] {
				return 0, 0, false
			}
		}
		if old == -2 {
			old, new = a.Dims[0], b.Dims[0]
		} else if a.Dims[0] != old || b.Dims[0] != new {
			return 0, 0, false
		}
	}
	return old, new, old != new
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

func collectiveDelta(r *Result) string {
	var parts []string
	for _, op := range sortedKeys(r.addedOps) {
		if collectives[op] {
			parts = append(parts, fmt.Sprintf("+%d %s", r.addedOps[op], op))
		}
	}
	for _, op := range sortedKeys(r.removedOps) {
		if collectives[op] {
			parts = append(parts, fmt.Sprintf("-%d %s", r.removedOps[op], op))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "collectives " + strings.Join(parts, ", ")
}

func firstCollective(r *Result) Change {
	for _, ch := range r.structure {
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
	for _, op := range sortedKeys(r.addedOps) {
		ops = append(ops, fmt.Sprintf("+%d %s", r.addedOps[op], op))
	}
	for _, op := range sortedKeys(r.removedOps) {
		ops = append(ops, fmt.Sprintf("-%d %s", r.removedOps[op], op))
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

func sortedKeys(m map[string]int) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
