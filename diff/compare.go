package diff

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/recomp/recomp/frameworks"
	"github.com/recomp/recomp/hlo"
	"github.com/recomp/recomp/internal/lazyre"
)

// ChangeKind says what differs between two paired instructions, computations or headers; the
// names are part of the JSON contract.
type ChangeKind string

// Change kinds.
const (
	KindShape          ChangeKind = "shape"
	KindDtype          ChangeKind = "dtype"
	KindLayout         ChangeKind = "layout"
	KindConstant       ChangeKind = "constant_value"
	KindConstantElided ChangeKind = "constant_elided"
	KindSharding       ChangeKind = "sharding"
	KindReplicaGroups  ChangeKind = "replica_groups"
	KindAttribute      ChangeKind = "attribute"
	KindBackendConfig  ChangeKind = "backend_config"
	KindOpcode         ChangeKind = "opcode"
	KindAdded          ChangeKind = "instruction_added"
	KindRemoved        ChangeKind = "instruction_removed"
	KindCompAdded      ChangeKind = "computation_added"
	KindCompRemoved    ChangeKind = "computation_removed"
	KindHeader         ChangeKind = "module_header"
)

// Change is one difference between two paired modules.
type Change struct {
	Kind        ChangeKind
	Computation string // the computation in B (in A for removals)
	Instruction string // "old_name → new_name" when the names differ
	OpName      string // metadata op_name of the instruction (B, else A)
	Source      string // metadata source_file:source_line
	Attr        string // the attribute or header field, for attribute and header changes
	Old, New    string
	// IsParam marks a change of a parameter instruction; Param is its number (in B).
	IsParam bool
	Param   int
	Entry   bool // in the entry computation
	Root    bool // the entry computation's result
	LineA   int
	LineB   int

	oldShape, newShape hlo.Shape
	inputToConstant    bool // a parameter of A replaced by a constant in B
}

// EntryParam reports whether the change is of a parameter of the entry computation.
func (ch Change) EntryParam() bool { return ch.IsParam && ch.Entry }

// MaxChanges is how many changes a Result keeps; all of them are counted and classified.
const MaxChanges = 400

// Result is the comparison of two modules.
type Result struct {
	A, B        *hlo.Module
	Identical   bool
	Changes     []Change
	ChangeCount int
	Counts      map[ChangeKind]int
	Causes      []Cause
	Notes       []string
	Matched     int // instruction pairs
	Added       int
	Removed     int
	// Computations are the computations compared, each with its counterpart and the
	// instruction matching (for the text diff).
	Computations []CompPair

	t *tally // what the cause rules read; nil once released
}

// CompPair is two computations compared with each other. MatchB[j] is the index in A of the
// instruction matched with B's instruction j, or -1 when it was added.
type CompPair struct {
	A, B   *hlo.Computation
	MatchB []int
}

// release lets go of the modules: the text diff can no longer be made, the rest of the
// Result stays. The strings of its changes are copied, since the parser's strings are views of
// the module's text.
func (r *Result) release() {
	r.A, r.B, r.Computations, r.t = nil, nil, nil, nil
	for i := range r.Changes {
		ch := &r.Changes[i]
		ch.Computation, ch.Instruction, ch.OpName = strings.Clone(ch.Computation), strings.Clone(ch.Instruction), strings.Clone(ch.OpName)
		ch.Source, ch.Attr, ch.Old, ch.New = strings.Clone(ch.Source), strings.Clone(ch.Attr), strings.Clone(ch.Old), strings.Clone(ch.New)
		ch.oldShape, ch.newShape = hlo.Shape{}, hlo.Shape{}
	}
}

// Compare compares two modules structurally and classifies the differences.
func Compare(a, b *hlo.Module) *Result {
	r := &Result{A: a, B: b, Counts: map[ChangeKind]int{}, t: newTally()}
	renumber := paramRenumbering(a.Entry, b.Entry)
	c := &comparer{r: r, a: a, b: b,
		renumber: renumber, fa: hlo.NewHasher(a, hlo.HashOptions{}), fb: hlo.NewHasher(b, hlo.HashOptions{EntryParams: renumber}),
		sa: hlo.NewHasher(a, hlo.HashOptions{Skeleton: true}), sb: hlo.NewHasher(b, hlo.HashOptions{Skeleton: true, EntryParams: renumber}),
		pairAB: map[*hlo.Computation]*hlo.Computation{}, pairBA: map[*hlo.Computation]*hlo.Computation{}}
	c.header()
	if a.Entry != nil && b.Entry != nil {
		c.pairComps(a.Entry, b.Entry)
	}
	c.drain()
	c.pairLeftoverComps()
	c.drain()
	for _, ca := range a.Computations {
		if c.pairAB[ca] == nil {
			c.add(Change{Kind: KindCompRemoved, Computation: ca.Name, Old: ca.Name + " (" + strconv.Itoa(len(ca.Instructions)) + " instructions)", LineA: ca.Line})
		}
	}
	for _, cb := range b.Computations {
		if c.pairBA[cb] == nil {
			c.add(Change{Kind: KindCompAdded, Computation: cb.Name, New: cb.Name + " (" + strconv.Itoa(len(cb.Instructions)) + " instructions)", LineB: cb.Line})
		}
	}
	r.Identical = r.ChangeCount == 0
	if r.t.elided > 0 {
		r.Notes = append(r.Notes, strconv.Itoa(r.t.elided)+" large constant(s) are printed as {...} in both modules: their values cannot be compared from text")
	}
	if r.t.handles > 0 {
		r.Notes = append(r.Notes, strconv.Itoa(r.t.handles)+" host-callback handle(s) differ: pointers the framework bakes in for each registration of a callback, not part of the program")
	}
	r.t.paramsA, r.t.paramsB = countParams(a.Entry), countParams(b.Entry)
	r.Causes = classify(r)
	return r
}

type comparer struct {
	r              *Result
	a, b           *hlo.Module
	users          map[*hlo.Computation][][]int32 // B's computations' users by instruction (sourceOf), made when first asked
	fa, fb, sa, sb *hlo.Hasher
	pairAB, pairBA map[*hlo.Computation]*hlo.Computation
	queue          [][2]*hlo.Computation
	callbackArgs   map[string]bool // B's instructions passed to host-callback custom calls
	renumber       map[int]int     // B's entry parameters numbered as A's (paramRenumbering), nil when by number
}

func (c *comparer) pairComps(ca, cb *hlo.Computation) {
	if ca == nil || cb == nil || c.pairAB[ca] != nil || c.pairBA[cb] != nil {
		return
	}
	c.pairAB[ca], c.pairBA[cb] = cb, ca
	c.queue = append(c.queue, [2]*hlo.Computation{ca, cb})
}

func (c *comparer) drain() {
	for len(c.queue) > 0 {
		p := c.queue[0]
		c.queue = c.queue[1:]
		c.compareComputations(p[0], p[1])
	}
}

// pairLeftoverComps pairs computations that no call reached: by equal hash, then by name with
// counters stripped, then by skeleton hash.
func (c *comparer) pairLeftoverComps() {
	type key func(h *hlo.Hasher, s *hlo.Hasher, x *hlo.Computation) string
	keys := []key{
		func(h, _ *hlo.Hasher, x *hlo.Computation) string { return strconv.FormatUint(h.Computation(x), 16) },
		func(_, _ *hlo.Hasher, x *hlo.Computation) string { return frameworks.Family(x.Name) },
		func(_, s *hlo.Hasher, x *hlo.Computation) string { return strconv.FormatUint(s.Computation(x), 16) },
	}
	for _, k := range keys {
		byKey := map[string][]*hlo.Computation{}
		for _, cb := range c.b.Computations {
			if c.pairBA[cb] == nil {
				kk := k(c.fb, c.sb, cb)
				byKey[kk] = append(byKey[kk], cb)
			}
		}
		for _, ca := range c.a.Computations {
			if c.pairAB[ca] != nil {
				continue
			}
			kk := k(c.fa, c.sa, ca)
			if l := byKey[kk]; len(l) > 0 {
				c.pairComps(ca, l[0])
				byKey[kk] = l[1:]
			}
		}
	}
}

func (c *comparer) add(ch Change) {
	r := c.r
	r.ChangeCount++
	r.Counts[ch.Kind]++
	if len(r.Changes) < MaxChanges {
		r.Changes = append(r.Changes, ch)
	}
	r.t.add(ch)
}

func (c *comparer) header() {
	names := map[string]bool{}
	var order []string
	for _, a := range append(append([]hlo.Attr(nil), c.a.Attrs...), c.b.Attrs...) {
		if !names[a.Name] {
			names[a.Name] = true
			order = append(order, a.Name)
		}
	}
	sort.Strings(order)
	for _, n := range order {
		va, oka := c.a.Attr(n)
		vb, okb := c.b.Attr(n)
		if n == "frontend_attributes" {
			va, vb = hlo.WithoutFingerprints(va), hlo.WithoutFingerprints(vb)
		}
		if va == vb || (n == "buffer_donor" || n == "input_output_alias") && va == c.asA(vb) ||
			n == "entry_computation_layout" && c.renumber != nil && inputsInAnyOrder(va) == inputsInAnyOrder(vb) {
			continue // (the same inputs donated, or laid out, numbered anew)
		}
		ch := Change{Kind: KindHeader, Attr: n, Old: va, New: vb}
		if !oka {
			ch.Old = "(absent)"
		}
		if !okb {
			ch.New = "(absent)"
		}
		c.add(ch)
	}
}

// compareComputations matches the instructions of two computations (see matcher) and records
// their differences.
func (c *comparer) compareComputations(ca, cb *hlo.Computation) {
	mt := newMatcher(c, ca, cb)
	mt.run()
	entry := ca == c.a.Entry && cb == c.b.Entry
	var gone, came map[int]bool
	var constOnly []bool
	if entry {
		gone, came = c.inputsBecameConstants(ca, cb, mt.ma, mt.mb)
		constOnly = constantValued(ca)
		c.constantsBecameInputs(ca, cb, mt.ma, mt.mb, constOnly)
	}
	c.r.Computations = append(c.r.Computations, CompPair{A: ca, B: cb, MatchB: mt.mb})
	slices.SortFunc(mt.pairs, func(x, y [2]int) int { return x[1] - y[1] })
	for _, p := range mt.pairs {
		c.r.Matched++
		c.compareInstructions(ca.Instructions[p[0]], cb.Instructions[p[1]], cb, entry)
	}
	for i, in := range ca.Instructions {
		if mt.ma[i] < 0 && !gone[i] {
			c.r.Removed++
			c.r.t.removedOps[in.Opcode]++
			if !(entry && constOnly[i]) && !identityOp(ca, in) {
				c.r.t.removedComputed++
			}
			c.add(unmatched(KindRemoved, ca, in, entry))
		}
	}
	for j, in := range cb.Instructions {
		if mt.mb[j] < 0 && !came[j] {
			c.r.Added++
			c.r.t.addedOps[in.Opcode]++
			c.add(unmatched(KindAdded, cb, in, entry))
		}
	}
	if entry {
		c.carriedState(ca, cb, mt.ma, mt.mb, gone, came)
	}
}

// carriedState finds the entry parameters of B that hold state the first graph created and
// returned: B takes inputs A did not (and A lost none), A's result holds a value of each one's
// shape besides those of its own inputs, and both return the same shapes. An optimizer whose
// first step initialises its state inside the graph (optax's opt_state=None, then opt.init in
// the step, folded from zeros into the update) and returns it, while the next step takes it
// in, compiles so. It records those parameters, and counts the instructions B added that none
// of them feeds and a compiler adds for nothing (tally.unfed): the rest of the difference is
// the update of the state now read from them.
func (c *comparer) carriedState(ca, cb *hlo.Computation, ma, mb []int, gone, came map[int]bool) {
	var fresh []int
	for j, in := range cb.Instructions {
		if in.Opcode == "parameter" && mb[j] < 0 && !came[j] {
			fresh = append(fresh, j)
		}
	}
	if len(fresh) == 0 || !returnsState(ca, cb, ma, gone, fresh) {
		return
	}
	fed := fedBy(cb, fresh)
	for j, in := range cb.Instructions {
		if mb[j] < 0 && !came[j] && !fed[j] && !plumbing[in.Opcode] {
			c.r.t.unfed++
		}
	}
	for _, j := range fresh {
		p := cb.Instructions[j]
		md := p.Metadata()
		keep(&c.r.t.carried, Change{Kind: KindAdded, Computation: cb.Name, Instruction: p.Name, OpName: md.OpName, Source: md.Source(),
			New: p.Shape.String(), IsParam: true, Param: p.Param, Entry: true, LineB: p.Line})
	}
}

// returnsState says whether A's result holds a value of the shape of each of B's fresh
// parameters besides those of A's own inputs, both return the same shapes, and A lost no
// input.
func returnsState(ca, cb *hlo.Computation, ma []int, gone map[int]bool, fresh []int) bool {
	if ca.Root == nil || cb.Root == nil || ca.Root.Shape.NoLayout() != cb.Root.Shape.NoLayout() {
		return false
	}
	outs := map[string]int{}
	if ca.Root.Shape.IsTuple {
		for _, s := range ca.Root.Shape.Tuple {
			outs[s.NoLayout()]++
		}
	} else {
		outs[ca.Root.Shape.NoLayout()]++
	}
	for i, in := range ca.Instructions {
		if in.Opcode != "parameter" {
			continue
		}
		if ma[i] < 0 || gone[i] {
			return false // A lost an input: not state carried over
		}
		if k := in.Shape.NoLayout(); outs[k] > 0 {
			outs[k]--
		}
	}
	for _, j := range fresh {
		k := cb.Instructions[j].Shape.NoLayout()
		if outs[k] == 0 {
			return false
		}
		outs[k]--
	}
	return true
}

// fedBy marks the instructions of cb that the instructions from feed, directly or through
// others (from included).
func fedBy(cb *hlo.Computation, from []int) []bool {
	users := make(map[int][]int, len(cb.Instructions))
	for j, in := range cb.Instructions {
		for _, op := range in.Operands {
			if k, ok := cb.IndexOf(op); ok {
				users[k] = append(users[k], j)
			}
		}
	}
	fed := make([]bool, len(cb.Instructions))
	queue := append([]int(nil), from...)
	for _, j := range from {
		fed[j] = true
	}
	for len(queue) > 0 {
		j := queue[0]
		queue = queue[1:]
		for _, u := range users[j] {
			if !fed[u] {
				fed[u] = true
				queue = append(queue, u)
			}
		}
	}
	return fed
}

// unmatched is the change of an instruction only one side has.
func unmatched(kind ChangeKind, comp *hlo.Computation, in *hlo.Instruction, entry bool) Change {
	md := in.Metadata()
	ch := Change{Kind: kind, Computation: comp.Name, Instruction: in.Name, OpName: md.OpName, Source: md.Source(),
		IsParam: in.Opcode == "parameter", Param: max(in.Param, 0), Entry: entry}
	what := in.Opcode + " " + in.Shape.String()
	if kind == KindRemoved {
		ch.Old, ch.LineA = what, in.Line
	} else {
		ch.New, ch.LineB = what, in.Line
	}
	return ch
}

// shapeKind says how two shapes differ: dtype, shape (dimensions or tuple structure, or a
// shape only one side knows), layout, or "" when they are equal.
func shapeKind(a, b hlo.Shape) ChangeKind {
	if a.Known() != b.Known() {
		return KindShape // one side's text left the shape out ("unknown"): no element type to compare
	}
	if a.IsTuple != b.IsTuple {
		return KindShape
	}
	if a.IsTuple {
		if len(a.Tuple) != len(b.Tuple) {
			return KindShape
		}
		best := ChangeKind("")
		rank := map[ChangeKind]int{"": 0, KindLayout: 1, KindShape: 2, KindDtype: 3}
		for i := range a.Tuple {
			if k := shapeKind(a.Tuple[i], b.Tuple[i]); rank[k] > rank[best] {
				best = k
			}
		}
		return best
	}
	switch {
	case a.Elem != b.Elem:
		return KindDtype
	case !a.SameDims(b):
		return KindShape
	case a.HasLayout && b.HasLayout && a.Layout != b.Layout:
		return KindLayout
	}
	return ""
}

func (c *comparer) compareInstructions(x, y *hlo.Instruction, cb *hlo.Computation, entry bool) {
	md := y.Metadata()
	if md.OpName == "" {
		md = x.Metadata()
	}
	base := Change{Computation: cb.Name, Instruction: y.Name, OpName: md.OpName, Source: c.sourceOf(cb, y, md),
		Entry: entry, Root: y.Root, LineA: x.Line, LineB: y.Line}
	if x.Name != y.Name {
		base.Instruction = x.Name + " → " + y.Name
	}
	if x.Opcode == "parameter" && y.Opcode == "parameter" {
		base.IsParam, base.Param = true, y.Param
	}
	if x.Opcode != y.Opcode {
		ch := base
		ch.Kind, ch.Old, ch.New = KindOpcode, x.Opcode, y.Opcode
		c.add(ch)
	}
	if k := shapeKind(x.Shape, y.Shape); k != "" {
		ch := base
		ch.Kind, ch.Old, ch.New = k, x.Shape.String(), y.Shape.String()
		ch.oldShape, ch.newShape = x.Shape, y.Shape
		c.add(ch)
	}
	if x.Opcode == "constant" && y.Opcode == "constant" && c.handle(y) {
		c.r.t.handles++
	} else if x.Opcode == "constant" && y.Opcode == "constant" && x.Shape.Elem == y.Shape.Elem {
		// (a constant whose element type changed is printed at the new precision: its dtype
		// change says it all)
		switch {
		case x.Elided() && y.Elided():
			c.r.t.elided++
		case x.Elided() || y.Elided():
			ch := base
			ch.Kind, ch.Old, ch.New = KindConstantElided, shownLiteral(x.Literal), shownLiteral(y.Literal)
			c.add(ch)
		default:
			if d := hlo.CompareLiterals(x.Literal, y.Literal); !d.Equal {
				ch := base
				ch.Kind = KindConstant
				ch.Old, ch.New = constantValues(x.Literal, y.Literal, d)
				c.add(ch)
			}
		}
	}
	c.compareAttrs(x, y, base)
	ca, cb2 := x.CalledComputations(), y.CalledComputations()
	for i := 0; i < len(ca) && i < len(cb2); i++ {
		c.pairComps(c.a.Computation(ca[i]), c.b.Computation(cb2[i]))
	}
}

func (c *comparer) compareAttrs(x, y *hlo.Instruction, base Change) {
	seen := map[string]bool{}
	check := func(name string) {
		if seen[name] || name == "metadata" || name == "control-predecessors" || hlo.IsCallAttr(name) {
			return
		}
		seen[name] = true
		va, oka := x.Attr(name)
		vb, okb := y.Attr(name)
		if va == vb && oka == okb {
			return
		}
		ch := base
		ch.Attr, ch.Old, ch.New = name, va, vb
		if !oka {
			ch.Old = "(absent)"
		}
		if !okb {
			ch.New = "(absent)"
		}
		switch name {
		case "sharding":
			ch.Kind = KindSharding
		case "replica_groups", "source_target_pairs":
			ch.Kind = KindReplicaGroups
		case "backend_config":
			ch.Kind = KindBackendConfig
		default:
			ch.Kind = KindAttribute
		}
		c.add(ch)
	}
	for _, a := range x.Attrs {
		check(a.Name)
	}
	for _, a := range y.Attrs {
		check(a.Name)
	}
}

// pairParams pairs the parameters of two computations. With as many on both sides they pair by
// number. Otherwise (a layer added, an input dropped) numbers shift, so they pair by what they
// are: the same op_name, then the same op_name, source line and shape, then the same shape
// where it is unique, then the same shape in order; the rest are added or removed (a
// parameter whose shape changed too pairs by op_name only).
func pairParams(ca, cb *hlo.Computation) [][2]int {
	var pa, pb []int
	for i, in := range ca.Instructions {
		if in.Opcode == "parameter" {
			pa = append(pa, i)
		}
	}
	for j, in := range cb.Instructions {
		if in.Opcode == "parameter" {
			pb = append(pb, j)
		}
	}
	var out [][2]int
	if len(pa) == len(pb) && !reordered(ca, cb) {
		byNum := make(map[int]int, len(pb))
		for _, j := range pb {
			byNum[cb.Instructions[j].Param] = j
		}
		used := map[int]bool{}
		for _, i := range pa {
			if j, ok := byNum[ca.Instructions[i].Param]; ok && !used[j] {
				used[j] = true
				out = append(out, [2]int{i, j})
			}
		}
		return out
	}
	usedA, usedB := map[int]bool{}, map[int]bool{}
	pairBy := func(key func(in *hlo.Instruction) string, unique bool) {
		ka, kb := map[string][]int{}, map[string][]int{}
		for _, i := range pa {
			if k := key(ca.Instructions[i]); !usedA[i] && k != "" {
				ka[k] = append(ka[k], i)
			}
		}
		for _, j := range pb {
			if k := key(cb.Instructions[j]); !usedB[j] && k != "" {
				kb[k] = append(kb[k], j)
			}
		}
		for _, i := range pa {
			k := key(ca.Instructions[i])
			as, bs := ka[k], kb[k]
			if usedA[i] || len(as) == 0 || len(bs) == 0 || unique && (len(as) != 1 || len(bs) != 1) {
				continue
			}
			j := bs[0]
			kb[k] = bs[1:]
			usedA[i], usedB[j] = true, true
			out = append(out, [2]int{i, j})
		}
	}
	pairBy(func(in *hlo.Instruction) string { return in.Metadata().OpName }, true)
	pairBy(func(in *hlo.Instruction) string {
		if md := in.Metadata(); md.Source() != "" {
			return md.OpName + "@" + md.Source() + "/" + in.Shape.NoLayout()
		}
		return ""
	}, true)
	pairBy(func(in *hlo.Instruction) string { return in.Shape.String() }, true)
	pairBy(func(in *hlo.Instruction) string { return in.Shape.String() }, false)
	return out
}

// paramRenumbering numbers B's entry parameters as A's when the two entries have different
// numbers of parameters (nil when they have as many: they pair by number): each parameter of B
// paired with one of A (pairParams) takes its number, the others numbers no parameter of A has.
// The instructions computed from the inputs both have then hash alike, and are matched, where
// an input added before them would shift every number after it.
func paramRenumbering(ca, cb *hlo.Computation) map[int]int {
	if ca == nil || cb == nil || countParams(ca) == countParams(cb) && !reordered(ca, cb) {
		return nil
	}
	out := map[int]int{}
	for _, in := range cb.Instructions {
		if in.Opcode == "parameter" {
			out[in.Param] = 1<<30 + in.Param
		}
	}
	for _, p := range pairParams(ca, cb) {
		out[cb.Instructions[p[1]].Param] = ca.Instructions[p[0]].Param
	}
	return out
}

// inputsBecameConstants finds the entry parameters of A that are gone because a constant of
// B took their place: an instruction both sides share has the parameter as an operand in A and
// a constant of the same shape in its place in B. That is a value passed at run time that is
// now baked into the graph (PyTorch/XLA folds the Python scalars 0 and 1, JAX a closed-over
// value): a constant_value change, not a parameter removed and a constant added.
func (c *comparer) inputsBecameConstants(ca, cb *hlo.Computation, ma, mb []int) (gone, came map[int]bool) {
	gone, came = map[int]bool{}, map[int]bool{}
	swappedOperands(ca, cb, mb, func(pi, cj int) {
		p, cn := ca.Instructions[pi], cb.Instructions[cj]
		if ma[pi] >= 0 || gone[pi] || p.Opcode != "parameter" || cn.Opcode != "constant" || p.Shape.NoLayout() != cn.Shape.NoLayout() {
			return
		}
		gone[pi] = true
		if mb[cj] < 0 {
			came[cj] = true
		}
		md := cn.Metadata()
		c.add(Change{Kind: KindConstant, Computation: cb.Name, Instruction: p.Name + " → " + cn.Name, OpName: md.OpName,
			Source: c.sourceOf(cb, cn, md), Old: "parameter(" + strconv.Itoa(p.Param) + ")", New: shownLiteral(cn.Literal), IsParam: true, Param: p.Param,
			Entry: true, LineA: p.Line, LineB: cn.Line, inputToConstant: true})
	})
	return gone, came
}

// swappedOperands calls f with each operand of an instruction of A (its index in A) and the
// operand in the same place of the instruction of B matched with it (its index in B).
func swappedOperands(ca, cb *hlo.Computation, mb []int, f func(ai, bj int)) {
	for j, y := range cb.Instructions {
		i := mb[j]
		if i < 0 {
			continue
		}
		x := ca.Instructions[i]
		for k := 0; k < len(x.Operands) && k < len(y.Operands); k++ {
			ai, oka := ca.IndexOf(x.Operands[k])
			bj, okb := cb.IndexOf(y.Operands[k])
			if oka && okb {
				f(ai, bj)
			}
		}
	}
}

// identityOp says whether an instruction passes its operand's value on unchanged: a convert
// to the type the operand already has, a copy, a reshape or bitcast to the operand's own
// shape. A framework's lowering emits or drops them by how a value reached it (PyTorch/XLA
// converts a computed f32 to f32, but not device data), so losing one is not a lost value.
func identityOp(comp *hlo.Computation, in *hlo.Instruction) bool {
	if len(in.Operands) != 1 {
		return false
	}
	j, ok := comp.IndexOf(in.Operands[0])
	if !ok {
		return false
	}
	switch in.Opcode {
	case "copy":
		return true
	case "convert", "reshape", "bitcast":
		return comp.Instructions[j].Shape.NoLayout() == in.Shape.NoLayout()
	}
	return false
}

// constantValued marks the instructions of a computation whose value follows from constants
// alone: constants, and ops without side effects all of whose operands are such.
func constantValued(comp *hlo.Computation) []bool {
	out := make([]bool, len(comp.Instructions))
	for i, in := range comp.Instructions {
		switch in.Opcode {
		case "parameter", "rng", "rng-bit-generator", "rng-get-and-update-state", "custom-call", "infeed", "recv",
			"send", "outfeed", "all-reduce", "all-gather", "all-to-all", "collective-permute", "after-all", "partition-id", "replica-id":
			continue
		}
		ok := true
		for _, op := range in.Operands {
			j, known := comp.IndexOf(op)
			ok = ok && known && j < i && out[j]
		}
		if ok {
			out[i] = true
		}
	}
	return out
}

// constantsBecameInputs finds the entry parameters of B that take the place of a value A
// computed from constants alone, of the same shape, as the operand of an instruction both
// share: a tensor the first graph built (PyTorch/XLA's torch.ones(..., device=...) before the
// first step) that is device data in the next. It returns B's parameters and records each.
func (c *comparer) constantsBecameInputs(ca, cb *hlo.Computation, ma, mb []int, constOnly []bool) {
	found := map[int]bool{}
	swappedOperands(ca, cb, mb, func(ai, pj int) {
		v, p := ca.Instructions[ai], cb.Instructions[pj]
		if ma[ai] >= 0 || mb[pj] >= 0 || found[pj] || !constOnly[ai] ||
			p.Opcode != "parameter" || v.Opcode == "constant" || v.Shape.NoLayout() != p.Shape.NoLayout() {
			return
		}
		found[pj] = true
		md := v.Metadata()
		keep(&c.r.t.materialized, Change{Kind: KindAdded, Computation: cb.Name, Instruction: v.Name + " → " + p.Name,
			OpName: md.OpName, Source: md.Source(), Old: v.Opcode + " " + v.Shape.String(), New: fmt.Sprintf("parameter(%d)", p.Param),
			IsParam: true, Param: p.Param, Entry: true, LineA: v.Line, LineB: p.Line})
	})
}

// handle reports whether a constant is a handle the framework bakes in for a host callback
// (a pointer passed to a custom call): it changes with every registration of the callback
// and says nothing about the program.
func (c *comparer) handle(in *hlo.Instruction) bool {
	if in.Shape.IsTuple || len(in.Shape.Dims) != 0 || (in.Shape.Elem != "s64" && in.Shape.Elem != "u64") {
		return false
	}
	if c.callbackArgs == nil {
		c.callbackArgs = map[string]bool{}
		for _, comp := range c.b.Computations {
			for _, user := range comp.Instructions {
				if target, _ := user.Attr("custom_call_target"); user.Opcode == "custom-call" && strings.Contains(target, "callback") {
					for _, op := range user.Operands {
						c.callbackArgs[op] = true
					}
				}
			}
		}
	}
	return c.callbackArgs[in.Name]
}

// reParamRef is a parameter number in buffer_donor's and input_output_alias's lists: "(3, {".
var reParamRef = lazyre.New(`\((\d+), \{`)

// asA writes B's parameter numbers of a header list as A's numbers for them (renumber); v
// unchanged when the parameters pair by number.
func (c *comparer) asA(v string) string {
	if c.renumber == nil {
		return v
	}
	return reParamRef.ReplaceAllStringFunc(v, func(m string) string {
		n, err := strconv.Atoi(m[1 : len(m)-3])
		if to, ok := c.renumber[n]; err == nil && ok {
			return "(" + strconv.Itoa(to) + ", {"
		}
		return m
	})
}

// inputsInAnyOrder is an entry_computation_layout ("{(f32[2]{0}, s32[])->(f32[])}") with its
// inputs sorted: the layouts of inputs numbered anew compare equal.
func inputsInAnyOrder(v string) string {
	in, out, ok := strings.Cut(v, ")->")
	if !ok {
		return v
	}
	in = strings.TrimPrefix(strings.TrimPrefix(in, "{"), "(")
	var parts []string
	depth, start := 0, 0
	for i, r := range in {
		switch r {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
		case ',':
			if depth == 0 {
				parts = append(parts, strings.TrimSpace(in[start:i]))
				start = i + 1
			}
		}
	}
	parts = append(parts, strings.TrimSpace(in[start:]))
	slices.Sort(parts)
	return strings.Join(parts, ", ") + ")->" + out
}

// reordered says whether two computations take as many parameters of the same shapes, in
// another order: PyTorch/XLA numbers a graph's inputs in the order its trace first used them, so
// a step whose trace changed (a loop run more times) numbers the same inputs anew. They are then
// paired by what they are, as when inputs were added, not by number (which would read as shapes
// changed). Two inputs that swapped shapes read as reordered too: the ops on them still differ.
func reordered(ca, cb *hlo.Computation) bool {
	var sa, sb []string
	same := true
	for _, in := range ca.Instructions {
		if in.Opcode == "parameter" {
			sa = append(sa, strconv.Itoa(in.Param)+" "+in.Shape.NoLayout())
		}
	}
	for _, in := range cb.Instructions {
		if in.Opcode == "parameter" {
			sb = append(sb, strconv.Itoa(in.Param)+" "+in.Shape.NoLayout())
		}
	}
	if len(sa) != len(sb) {
		return false
	}
	slices.Sort(sa)
	slices.Sort(sb)
	for i := range sa {
		same = same && sa[i] == sb[i]
		_, sa[i], _ = strings.Cut(sa[i], " ")
		_, sb[i], _ = strings.Cut(sb[i], " ")
	}
	if same {
		return false // every number has its shape: they pair by number
	}
	slices.Sort(sa)
	slices.Sort(sb)
	return slices.Equal(sa, sb)
}

func countParams(c *hlo.Computation) int {
	n := 0
	if c != nil {
		for _, in := range c.Instructions {
			if in.Opcode == "parameter" {
				n++
			}
		}
	}
	return n
}

// sourceOf is the line of the program an instruction of B (in comp, its metadata md) came from:
// its metadata's source line, else the innermost frame of its stack (JAX's stack_frame_id)
// in a file of the user's; for an op with no stack of its own (JAX's constants), the line of
// the first of its users, up to three deep, that has one (a constant's broadcast, then the
// multiply that takes it): in a module without stack tables (JAX 0.4's, which writes
// source_file and source_line on each op but none on a constant), the first user's own source
// line in a file of the user's. "" when none names one.
func (c *comparer) sourceOf(comp *hlo.Computation, in *hlo.Instruction, md hlo.Meta) string {
	if md.Source() != "" || in.Opcode == "parameter" {
		return md.Source() // (a parameter's stack is the jitted function's, not a line that made its value)
	}
	if s := c.b.Source(md, frameworks.IsUserFile); s != "" {
		return s
	}
	if md.StackFrame != 0 {
		return "" // its stack is all the library's
	}
	i, ok := comp.IndexOf(in.Name)
	if !ok {
		return ""
	}
	if c.users == nil {
		c.users = map[*hlo.Computation][][]int32{}
	}
	users, ok := c.users[comp]
	if !ok {
		users = make([][]int32, len(comp.Instructions))
		for j, u := range comp.Instructions {
			for _, op := range u.Operands {
				if k, found := comp.IndexOf(op); found && len(users[k]) < 8 {
					users[k] = append(users[k], int32(j))
				}
			}
		}
		c.users[comp] = users
	}
	level := []int32{int32(i)}
	for depth := 0; depth < 3 && len(level) > 0; depth++ {
		var next []int32
		for _, j := range level {
			for _, u := range users[j] {
				umd := comp.Instructions[u].Metadata()
				if umd.StackFrame != 0 || umd.SourceFile != "" {
					if len(c.b.Frames) == 0 && (!strings.HasSuffix(umd.SourceFile, ".py") || !frameworks.IsUserFile(umd.SourceFile)) {
						continue // a library's op (TF's ops.py), or no file (TF's placeholder name): no line of the program's
					}
					if s := c.b.Source(umd, frameworks.IsUserFile); s != "" {
						return s
					}
					continue
				}
				next = append(next, u)
			}
		}
		level = next
	}
	return ""
}
