package diff

import "github.com/recomp/recomp/hlo"

// matcher pairs the instructions of two computations. Matching is near-linear: each pass
// pairs what the passes before left, by a stronger identity first:
//
//  1. parameters (pairParams);
//  2. instructions whose whole-subgraph hashes are equal and unique on both sides;
//  3. identical instructions that repeat (the constant 0 in ten places), in order, before a
//     shape-blind pass could pair a constant with another value;
//  4. instructions with equal skeleton hashes (opcode and dataflow, shapes and values
//     ignored), in order;
//  5. the roots, when their opcodes agree;
//  6. operands of matched pairs that have the same opcode;
//  7. what is left, by the same opcode and op_name where that is unique on both sides (an op
//     whose input changed type or shape, so that neither its hash nor its skeleton matched);
//  8. constants the passes paired by value against what their op metadata says, paired again
//     by it (constantsByMeta).
type matcher struct {
	c      *comparer
	ca, cb *hlo.Computation
	ma, mb []int // the index matched on the other side, -1 when none
	pairs  [][2]int
}

func newMatcher(c *comparer, ca, cb *hlo.Computation) *matcher {
	mt := &matcher{c: c, ca: ca, cb: cb, ma: make([]int, len(ca.Instructions)), mb: make([]int, len(cb.Instructions)),
		pairs: make([][2]int, 0, min(len(ca.Instructions), len(cb.Instructions)))}
	for i := range mt.ma {
		mt.ma[i] = -1
	}
	for j := range mt.mb {
		mt.mb[j] = -1
	}
	return mt
}

func (mt *matcher) pair(i, j int) {
	mt.ma[i], mt.mb[j] = j, i
	mt.pairs = append(mt.pairs, [2]int{i, j})
}

func (mt *matcher) run() {
	for _, p := range pairParams(mt.ca, mt.cb) {
		mt.pair(p[0], p[1])
	}
	fa, fb := mt.c.fa.Instructions(mt.ca), mt.c.fb.Instructions(mt.cb)
	mt.unique(fa, fb)
	mt.inOrder(fa, fb)
	mt.inOrder(mt.c.sa.Instructions(mt.ca), mt.c.sb.Instructions(mt.cb))
	mt.roots()
	mt.operands()
	mt.byOpName()
	mt.constantsByMeta()
}

// unique pairs instructions whose hash occurs once on each side.
func (mt *matcher) unique(fa, fb []uint64) {
	type seen struct {
		inA, inB int32 // how often the hash occurs on each side, up to 2
		j        int32 // where in B (when once)
	}
	counts := make(map[uint64]seen, len(fa))
	for _, h := range fa {
		s := counts[h]
		s.inA = min(s.inA+1, 2)
		counts[h] = s
	}
	for j, h := range fb {
		if s, ok := counts[h]; ok {
			s.inB = min(s.inB+1, 2)
			s.j = int32(j)
			counts[h] = s
		}
	}
	for i, h := range fa {
		if s := counts[h]; mt.ma[i] < 0 && s.inA == 1 && s.inB == 1 && mt.mb[s.j] < 0 {
			mt.pair(i, int(s.j))
		}
	}
}

// inOrder pairs the unmatched instructions of equal hash in the order they come. The unmatched
// instructions of B of each hash are a list threaded through next (first[h] is its head), so
// that no slice is made per hash.
func (mt *matcher) inOrder(ha, hb []uint64) {
	first := make(map[uint64]int32, len(hb))
	next := make([]int32, len(hb))
	for j := len(hb) - 1; j >= 0; j-- {
		if mt.mb[j] < 0 {
			if head, ok := first[hb[j]]; ok {
				next[j] = head
			} else {
				next[j] = -1
			}
			first[hb[j]] = int32(j)
		}
	}
	for i, h := range ha {
		if mt.ma[i] >= 0 {
			continue
		}
		if j, ok := first[h]; ok && j >= 0 {
			mt.pair(i, int(j))
			first[h] = next[j]
		}
	}
}

func (mt *matcher) roots() {
	ra, rb := mt.ca.Root, mt.cb.Root
	if ra == nil || rb == nil || ra.Opcode != rb.Opcode {
		return
	}
	i, _ := mt.ca.IndexOf(ra.Name)
	j, _ := mt.cb.IndexOf(rb.Name)
	if mt.ma[i] < 0 && mt.mb[j] < 0 {
		mt.pair(i, j)
	}
}

// operands walks the pairs (the list grows as it goes) and pairs their operands.
func (mt *matcher) operands() {
	for k := 0; k < len(mt.pairs); k++ {
		x, y := mt.ca.Instructions[mt.pairs[k][0]], mt.cb.Instructions[mt.pairs[k][1]]
		for o := 0; o < len(x.Operands) && o < len(y.Operands); o++ {
			i, oka := mt.ca.IndexOf(x.Operands[o])
			j, okb := mt.cb.IndexOf(y.Operands[o])
			if oka && okb && mt.ma[i] < 0 && mt.mb[j] < 0 && mt.ca.Instructions[i].Opcode == mt.cb.Instructions[j].Opcode {
				mt.pair(i, j)
			}
		}
	}
}

func (mt *matcher) byOpName() {
	key := func(in *hlo.Instruction) string {
		if on := in.Metadata().OpName; on != "" {
			return in.Opcode + "\x00" + on
		}
		return ""
	}
	left := func(comp *hlo.Computation, m []int) map[string][]int {
		out := map[string][]int{}
		for i, in := range comp.Instructions {
			if m[i] >= 0 {
				continue // (most are matched by now: no key is made for them)
			}
			if k := key(in); k != "" {
				out[k] = append(out[k], i)
			}
		}
		return out
	}
	la, lb := left(mt.ca, mt.ma), left(mt.cb, mt.mb)
	for k, as := range la {
		if bs := lb[k]; len(as) == 1 && len(bs) == 1 {
			mt.pair(as[0], bs[0])
		}
	}
}

// constantsByMeta pairs again the constants that the hash passes paired by their value alone
// (a constant's hash is its value) where their op metadata (op type, op_name, source line) says
// otherwise and a value changed among them: a Python number p baked in by one op and p - 1 by
// its backward, p moving 2.5 → 3.5, has the old p - 1 equal to the new p, and a pairing by value
// mixes the two up. It acts only when the metadata pairs every such constant one to one with the
// same shape (each key once on each side); otherwise the pairs stay as they are.
func (mt *matcher) constantsByMeta() {
	key := func(in *hlo.Instruction) string {
		m := in.Metadata()
		if m.OpName == "" && m.SourceFile == "" {
			return ""
		}
		return m.OpType + "\x00" + m.OpName + "\x00" + m.Source()
	}
	var odd []int // indexes in mt.pairs
	changed := false
	for k, p := range mt.pairs {
		x, y := mt.ca.Instructions[p[0]], mt.cb.Instructions[p[1]]
		if x.Opcode != "constant" || y.Opcode != "constant" {
			continue
		}
		mx, _ := x.Attr("metadata")
		my, _ := y.Attr("metadata")
		if mx == my {
			continue // the same metadata: not parsed (most pairs)
		}
		kx, ky := key(x), key(y)
		if kx == ky || kx == "" || ky == "" {
			continue
		}
		odd = append(odd, k)
		changed = changed || x.Literal != y.Literal
	}
	if !changed {
		return
	}
	if !mt.constantsOneToOne(odd, key) {
		mt.constantsLeft(odd, key)
	}
}

// constantsOneToOne pairs again the constants of the odd pairs by key, when the keys pair them
// one to one with the same shape; it says whether it did.
func (mt *matcher) constantsOneToOne(odd []int, key func(*hlo.Instruction) string) bool {
	inB := make(map[string]int, len(odd))
	for _, k := range odd {
		j := mt.pairs[k][1]
		kb := key(mt.cb.Instructions[j])
		if _, twice := inB[kb]; twice {
			return false
		}
		inB[kb] = j
	}
	to := make([]int, len(odd))
	for n, k := range odd {
		x := mt.ca.Instructions[mt.pairs[k][0]]
		j, ok := inB[key(x)]
		if !ok || x.Shape.String() != mt.cb.Instructions[j].Shape.String() {
			return false
		}
		delete(inB, key(x)) // each key once on A's side too
		to[n] = j
	}
	for n, k := range odd {
		i, j := mt.pairs[k][0], to[n]
		mt.pairs[k][1], mt.ma[i], mt.mb[j] = j, j, i
	}
	return true
}

// constantsLeft pairs the A side of an odd pair with the one constant of B that no pass paired,
// of its key and shape (a constant of the new ops took its place by value or by order): the odd
// pair's B side is then a constant B added.
func (mt *matcher) constantsLeft(odd []int, key func(*hlo.Instruction) string) {
	left := map[string][]int{}
	for j, in := range mt.cb.Instructions {
		if mt.mb[j] < 0 && in.Opcode == "constant" {
			if k := key(in); k != "" {
				left[k] = append(left[k], j)
			}
		}
	}
	for _, k := range odd {
		i, j := mt.pairs[k][0], mt.pairs[k][1]
		x := mt.ca.Instructions[i]
		js := left[key(x)]
		if len(js) != 1 || x.Shape.String() != mt.cb.Instructions[js[0]].Shape.String() {
			continue
		}
		delete(left, key(x))
		mt.mb[j] = -1
		mt.pairs[k][1], mt.ma[i], mt.mb[js[0]] = js[0], js[0], i
	}
}
