package hlo

import (
	"encoding/binary"
	"fmt"
	"iter"
	"slices"
	"sort"
	"strings"

	"github.com/cespare/xxhash/v2"
)

// Fingerprint returns the normalised fingerprint of m as 16 hex digits. It is the same for
// modules that differ only in instruction and computation names, .N suffixes, metadata,
// operand-index comments, the module name and id, and the order of instructions that does not
// change the dataflow; it differs for any change of shape, element type, layout, constant,
// attribute, a computation's execution thread, or structure. Elided constants ({...}) hash as elided: equal fingerprints do not
// prove that two elided constants are equal.
func Fingerprint(m *Module) string {
	return fmt.Sprintf("%016x", NewHasher(m, HashOptions{}).Module())
}

// HashOptions choose what a Hasher leaves out.
type HashOptions struct {
	// Skeleton leaves out shapes, constant values and attribute values, keeping opcodes,
	// attribute names, parameter numbers and the dataflow: two versions of a graph that differ
	// only in shapes or constants have the same skeleton hashes.
	Skeleton bool
	// EntryParams renumbers the parameters of the entry computation: parameter n hashes as
	// EntryParams[n] where n is a key. Two versions of a program of which one gained or lost
	// inputs number the inputs both have alike, so what they compute from them hashes alike.
	EntryParams map[int]int
}

// Hasher computes structural hashes of the computations and instructions of one module.
type Hasher struct {
	m     *Module
	opt   HashOptions
	comps map[*Computation]*compHashes

	// scratch reused from one instruction to the next, so that hashing a module allocates per
	// computation, not per instruction
	d     *xxhash.Digest
	attrs []Attr     // an instruction's attributes, sorted
	deps  []int      // the dependencies of the instructions on instr's stack, one run each
	stack []depFrame // instr's stack
}

type compHashes struct {
	sum   uint64
	state uint8 // 0 new, 1 in progress, 2 done
	instr []uint64
	done  []uint8
}

// depFrame is an instruction on instr's stack: its dependencies are deps[from:to], of which
// next is the first not yet visited.
type depFrame struct {
	i, from, next, to int
}

// NewHasher returns a Hasher for m.
func NewHasher(m *Module, opt HashOptions) *Hasher {
	return &Hasher{m: m, opt: opt, comps: map[*Computation]*compHashes{}, d: xxhash.New()}
}

const cycleHash = 0x9e3779b97f4a7c15

// callAttrs are the attributes whose values name computations.
var callAttrs = map[string]bool{"to_apply": true, "calls": true, "condition": true, "body": true,
	"true_computation": true, "false_computation": true, "branch_computations": true,
	"called_computations": true, "select": true, "scatter": true}

// Module returns the hash of the whole module.
func (h *Hasher) Module() uint64 {
	d := xxhash.New()
	if h.m.Entry != nil {
		writeU64(d, h.Computation(h.m.Entry))
	}
	attrs := append([]Attr(nil), h.m.Attrs...)
	sort.SliceStable(attrs, func(i, j int) bool { return attrs[i].Name < attrs[j].Name })
	for _, a := range attrs {
		v := a.Value
		if a.Name == "frontend_attributes" {
			v = WithoutFingerprints(v)
		}
		d.WriteString(a.Name)
		d.WriteString("=")
		d.WriteString(v)
		d.WriteString("\x00")
	}
	all := make([]uint64, 0, len(h.m.Computations))
	for _, c := range h.m.Computations {
		all = append(all, h.Computation(c))
	}
	sort.Slice(all, func(i, j int) bool { return all[i] < all[j] })
	for _, v := range all {
		writeU64(d, v)
	}
	return d.Sum64()
}

// WithoutFingerprints drops fingerprint_* keys from a frontend_attributes value: XLA derives
// them from the module itself, so they change whenever anything else does.
func WithoutFingerprints(v string) string {
	var parts []string
	for _, kv := range KeyValues(v) {
		if strings.HasPrefix(kv[0], "fingerprint") {
			continue
		}
		parts = append(parts, kv[0]+"="+kv[1])
	}
	return strings.Join(parts, ",")
}

// Computation returns the hash of a computation of the module.
func (h *Hasher) Computation(c *Computation) uint64 {
	h.ensure(c)
	if ch := h.state(c); ch.state == 2 {
		return ch.sum
	}
	return cycleHash
}

// Instructions returns the hash of every instruction of c, in order.
func (h *Hasher) Instructions(c *Computation) []uint64 {
	h.ensure(c)
	return h.state(c).instr
}

// ensure hashes c and every computation it calls, callees first. It walks the call graph
// with a stack of its own, not by recursion, so a chain of calls as long as the input allows
// cannot overflow the goroutine stack; a computation that calls itself hashes as a cycle.
func (h *Hasher) ensure(root *Computation) {
	type frame struct {
		c       *Computation
		callees []*Computation
		next    int
	}
	var stack []frame
	push := func(c *Computation) {
		if ch := h.state(c); ch.state == 0 {
			ch.state = 1
			stack = append(stack, frame{c: c, callees: h.callees(c)})
		}
	}
	push(root)
	for len(stack) > 0 {
		f := &stack[len(stack)-1]
		if f.next < len(f.callees) {
			f.next++
			push(f.callees[f.next-1])
			continue
		}
		h.finish(f.c)
		stack = stack[:len(stack)-1]
	}
}

func (h *Hasher) callees(c *Computation) []*Computation {
	var out []*Computation
	for _, in := range c.Instructions {
		for _, a := range in.Attrs {
			if callAttrs[a.Name] {
				for _, n := range splitNames(a.Value) {
					if callee := h.m.Computation(n); callee != nil {
						out = append(out, callee)
					}
				}
			}
		}
	}
	return out
}

// finish hashes the instructions of c, whose callees are hashed (or part of a cycle).
func (h *Hasher) finish(c *Computation) {
	ch := h.state(c)
	for i := range c.Instructions {
		h.instr(c, ch, i)
	}
	sorted := append([]uint64(nil), ch.instr...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i] < sorted[j] })
	d := xxhash.New()
	if c.Root != nil {
		i, _ := c.IndexOf(c.Root.Name)
		writeU64(d, ch.instr[i])
	}
	for _, v := range sorted {
		writeU64(d, v)
	}
	writeCompAttrs(d, c.Attrs)
	ch.sum = d.Sum64()
	ch.state = 2
}

// writeCompAttrs hashes the attributes after a computation's closing brace: its
// execution_thread says where it runs. execution_thread="main" is the default XLA does not
// print, so it hashes as no attribute.
func writeCompAttrs(d *xxhash.Digest, attrs []Attr) {
	for _, a := range sortedAttrs(attrs, nil) { // (once per computation)
		if a.Name == "execution_thread" && a.Value == `"main"` {
			continue
		}
		d.WriteString("\x03")
		d.WriteString(a.Name)
		d.WriteString("=")
		d.WriteString(a.Value)
		d.WriteString("\x00")
	}
}

func (h *Hasher) state(c *Computation) *compHashes {
	ch := h.comps[c]
	if ch == nil {
		ch = &compHashes{instr: make([]uint64, len(c.Instructions)), done: make([]uint8, len(c.Instructions))}
		h.comps[c] = ch
	}
	return ch
}

// deps appends to out the instructions whose hashes instruction i's hash includes: its
// operands and control predecessors.
func deps(c *Computation, i int, out []int) []int {
	in := c.Instructions[i]
	for _, op := range in.Operands {
		if j, ok := c.IndexOf(op); ok {
			out = append(out, j)
		}
	}
	if v, ok := in.Attr("control-predecessors"); ok {
		for n := range eachName(v) {
			if j, ok := c.IndexOf(n); ok {
				out = append(out, j)
			}
		}
	}
	return out
}

// instr hashes instruction i after its operands, with a stack of its own (a dataflow chain as
// long as the module is deep must not recurse); an operand on a cycle hashes as cycleHash. The
// stack's frames keep their dependencies in one buffer, each frame's after its parent's.
func (h *Hasher) instr(c *Computation, ch *compHashes, i int) uint64 {
	if ch.done[i] == 2 {
		return ch.instr[i]
	}
	ch.done[i] = 1
	h.deps = deps(c, i, h.deps[:0])
	stack := append(h.stack[:0], depFrame{i: i, to: len(h.deps)})
	for len(stack) > 0 {
		f := &stack[len(stack)-1]
		if f.next < f.to {
			j := h.deps[f.next]
			f.next++
			if ch.done[j] == 0 {
				ch.done[j] = 1
				from := len(h.deps)
				h.deps = deps(c, j, h.deps)
				stack = append(stack, depFrame{i: j, from: from, next: from, to: len(h.deps)})
			}
			continue
		}
		ch.instr[f.i] = h.hashInstr(c, ch, f.i)
		ch.done[f.i] = 2
		h.deps = h.deps[:f.from]
		stack = stack[:len(stack)-1]
	}
	h.stack = stack[:0]
	return ch.instr[i]
}

// dep is the hash of a dependency: its hash when done, cycleHash when it is on a cycle.
func dep(ch *compHashes, j int) uint64 {
	if ch.done[j] == 2 {
		return ch.instr[j]
	}
	return cycleHash
}

func (h *Hasher) hashInstr(c *Computation, ch *compHashes, i int) uint64 {
	in := c.Instructions[i]
	d := h.d
	d.Reset()
	d.WriteString(in.Opcode)
	d.WriteString("\x00")
	if !h.opt.Skeleton {
		writeShape(d, in.Shape)
	} else {
		writeU64(d, uint64(len(in.Shape.Dims)))
		if in.Shape.IsTuple {
			writeU64(d, uint64(len(in.Shape.Tuple))+1000)
		}
	}
	switch in.Opcode {
	case "parameter":
		n := in.Param
		if v, ok := h.opt.EntryParams[n]; ok && c == h.m.Entry {
			n = v
		}
		writeU64(d, uint64(n))
	case "constant":
		if !h.opt.Skeleton {
			hashCanonicalLiteral(d, in.Literal) // never builds the canonical form of a huge constant
		}
	}
	d.WriteString("\x01")
	for _, a := range sortedAttrs(in.Attrs, &h.attrs) {
		if a.Name == "metadata" {
			continue
		}
		d.WriteString(a.Name)
		d.WriteString("=")
		switch {
		case callAttrs[a.Name]:
			for n := range eachName(a.Value) {
				if callee := h.m.Computation(n); callee != nil {
					if cs := h.state(callee); cs.state == 2 {
						writeU64(d, cs.sum)
					} else {
						writeU64(d, cycleHash)
					}
				} else {
					d.WriteString(n)
				}
			}
		case a.Name == "control-predecessors":
			var preds []uint64
			for n := range eachName(a.Value) {
				if j, ok := c.IndexOf(n); ok {
					preds = append(preds, dep(ch, j))
				}
			}
			sort.Slice(preds, func(i, j int) bool { return preds[i] < preds[j] })
			for _, p := range preds {
				writeU64(d, p)
			}
		case h.opt.Skeleton && a.Name != "direction" && a.Name != "kind" && a.Name != "custom_call_target" && a.Name != "fusion_kind":
			// values of shape-dependent attributes are left out of the skeleton
		default:
			d.WriteString(a.Value)
		}
		d.WriteString("\x00")
	}
	d.WriteString("\x02")
	for _, op := range in.Operands {
		if j, ok := c.IndexOf(op); ok {
			writeU64(d, dep(ch, j))
		} else {
			d.WriteString("?")
			d.WriteString(op)
		}
	}
	return d.Sum64()
}

// sortedAttrs returns attrs sorted by name (stable): attrs itself when it is sorted, else a
// sorted copy, made in *buf when buf is not nil.
func sortedAttrs(attrs []Attr, buf *[]Attr) []Attr {
	sorted := true
	for i := 1; i < len(attrs); i++ {
		if attrs[i].Name < attrs[i-1].Name {
			sorted = false
			break
		}
	}
	if sorted {
		return attrs
	}
	var out []Attr
	if buf != nil {
		out = (*buf)[:0]
	}
	out = append(out, attrs...)
	slices.SortStableFunc(out, func(a, b Attr) int { return strings.Compare(a.Name, b.Name) })
	if buf != nil {
		*buf = out
	}
	return out
}

// eachName yields the names of "{a, b}" or "a", as splitNames returns them, without a slice.
func eachName(v string) iter.Seq[string] {
	return func(yield func(string) bool) {
		v = strings.TrimSpace(v)
		v = strings.TrimPrefix(v, "{")
		v = strings.TrimSuffix(v, "}")
		for f := range strings.SplitSeq(v, ",") {
			if f = strings.TrimSpace(f); f != "" && !yield(strings.TrimPrefix(f, "%")) {
				return
			}
		}
	}
}

// splitNames reads "{a, b}" or "a" into names.
func splitNames(v string) []string {
	v = strings.TrimSpace(v)
	v = strings.TrimPrefix(v, "{")
	v = strings.TrimSuffix(v, "}")
	var out []string
	for _, f := range strings.Split(v, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, strings.TrimPrefix(f, "%"))
		}
	}
	return out
}

// CalledComputations returns the names of the computations an instruction calls.
func (in *Instruction) CalledComputations() []string {
	var out []string
	for _, a := range in.Attrs {
		if callAttrs[a.Name] {
			out = append(out, splitNames(a.Value)...)
		}
	}
	return out
}

// IsCallAttr reports whether the attribute's value names computations.
func IsCallAttr(name string) bool { return callAttrs[name] }

func writeShape(d *xxhash.Digest, s Shape) {
	if !s.Known() {
		d.WriteString("?")
		return
	}
	if s.IsTuple {
		d.WriteString("(")
		for _, t := range s.Tuple {
			writeShape(d, t)
			d.WriteString(",")
		}
		d.WriteString(")")
		return
	}
	d.WriteString(s.Elem)
	for _, v := range s.Dims {
		writeU64(d, uint64(v))
	}
	writeU64(d, s.Bounded)
	if s.HasLayout {
		d.WriteString("{" + s.Layout + "}")
	}
}

func writeU64(d *xxhash.Digest, v uint64) {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], v)
	d.Write(b[:])
}
