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
//     whose input changed type or shape, so that neither its hash nor its skeleton matched).
type matcher struct {
	c      *comparer
	ca, cb *hlo.Computation
	ma, mb []int // the index matched on the other side, -1 when none
	pairs  [][2]int
	ia, ib map[string]int
}

func newMatcher(c *comparer, ca, cb *hlo.Computation) *matcher {
	mt := &matcher{c: c, ca: ca, cb: cb, ma: make([]int, len(ca.Instructions)), mb: make([]int, len(cb.Instructions)),
		ia: indexByName(ca), ib: indexByName(cb)}
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
}

// unique pairs instructions whose hash occurs once on each side.
func (mt *matcher) unique(fa, fb []uint64) {
	countA := make(map[uint64]int, len(fa))
	for _, h := range fa {
		countA[h]++
	}
	uniqueB := make(map[uint64]int, len(fb))
	countB := make(map[uint64]int, len(fb))
	for j, h := range fb {
		countB[h]++
		uniqueB[h] = j
	}
	for i, h := range fa {
		if mt.ma[i] < 0 && countA[h] == 1 && countB[h] == 1 && mt.mb[uniqueB[h]] < 0 {
			mt.pair(i, uniqueB[h])
		}
	}
}

// inOrder pairs the unmatched instructions of equal hash in the order they come.
func (mt *matcher) inOrder(ha, hb []uint64) {
	groups := make(map[uint64][]int, len(hb))
	for j, h := range hb {
		if mt.mb[j] < 0 {
			groups[h] = append(groups[h], j)
		}
	}
	for i, h := range ha {
		if l := groups[h]; mt.ma[i] < 0 && len(l) > 0 {
			mt.pair(i, l[0])
			groups[h] = l[1:]
		}
	}
}

func (mt *matcher) roots() {
	ra, rb := mt.ca.Root, mt.cb.Root
	if ra == nil || rb == nil || ra.Opcode != rb.Opcode {
		return
	}
	if i, j := mt.ia[ra.Name], mt.ib[rb.Name]; mt.ma[i] < 0 && mt.mb[j] < 0 {
		mt.pair(i, j)
	}
}

// operands walks the pairs (the list grows as it goes) and pairs their operands.
func (mt *matcher) operands() {
	for k := 0; k < len(mt.pairs); k++ {
		x, y := mt.ca.Instructions[mt.pairs[k][0]], mt.cb.Instructions[mt.pairs[k][1]]
		for o := 0; o < len(x.Operands) && o < len(y.Operands); o++ {
			i, oka := mt.ia[x.Operands[o]]
			j, okb := mt.ib[y.Operands[o]]
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
			if k := key(in); m[i] < 0 && k != "" {
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
