package diff

import (
	"sort"

	"github.com/recomp/recomp/hlo"
)

// PairedBy says how two modules were paired; the names are part of the JSON contract.
type PairedBy string

// Ways of pairing.
const (
	PairedByArgument    PairedBy = "argument"    // two files given on the command line
	PairedByOrder       PairedBy = "order"       // the i-th module of a family on each side
	PairedByFingerprint PairedBy = "fingerprint" // equal normalised fingerprints
	PairedBySimilarity  PairedBy = "similarity"  // the most similar structure
	PairedByExtra       PairedBy = "extra"       // a compilation left over, with its closest counterpart
)

// Pair is two dump files that should hold the same graph, and how they compare.
type Pair struct {
	A, B     *DumpFile
	PairedBy PairedBy
	Result   *Result
}

// DumpDiff is the comparison of two dumps.
type DumpDiff struct {
	Pairs     []*Pair
	UnpairedA []*DumpFile
	UnpairedB []*DumpFile
}

// Dumps pairs the modules of two dumps and compares each pair. Two single files are always
// paired with each other. Otherwise modules pair within a family (module name with counters
// stripped) and stage: in order when both sides have as many, else equal fingerprints first and
// then the most similar structure.
func Dumps(a, b *Dump) *DumpDiff {
	out := &DumpDiff{}
	if len(a.Files) == 1 && len(b.Files) == 1 {
		out.Pairs = append(out.Pairs, &Pair{A: a.Files[0], B: b.Files[0], PairedBy: PairedByArgument})
	} else {
		fa, fb := byFamily(a.Files), byFamily(b.Files)
		var fams []string
		for f := range fa {
			fams = append(fams, f)
		}
		for f := range fb {
			if fa[f] == nil {
				fams = append(fams, f)
			}
		}
		sort.Strings(fams)
		for _, f := range fams {
			pairs, ua, ub := pairFamily(fa[f], fb[f])
			out.Pairs = append(out.Pairs, pairs...)
			out.UnpairedA = append(out.UnpairedA, ua...)
			out.UnpairedB = append(out.UnpairedB, ub...)
		}
	}
	for _, p := range out.Pairs {
		p.Result = Compare(p.A.Module, p.B.Module)
	}
	return out
}

func byFamily(files []*DumpFile) map[string][]*DumpFile {
	m := map[string][]*DumpFile{}
	for _, f := range files {
		m[f.Family] = append(m[f.Family], f)
	}
	return m
}

func pairFamily(as, bs []*DumpFile) (pairs []*Pair, ua, ub []*DumpFile) {
	if len(as) == len(bs) {
		for i := range as {
			pairs = append(pairs, &Pair{A: as[i], B: bs[i], PairedBy: PairedByOrder})
		}
		return pairs, nil, nil
	}
	fp := &familyPairing{as: as, bs: bs, usedA: make([]bool, len(as)), usedB: make([]bool, len(bs)),
		skel: map[*DumpFile]map[uint64]int{}}
	fp.byFingerprint()
	fp.bySimilarity()
	ua, ub = fp.extras()
	pairs = fp.pairs
	sort.SliceStable(pairs, func(x, y int) bool {
		if pairs[x].B.ID != pairs[y].B.ID {
			return pairs[x].B.ID < pairs[y].B.ID
		}
		return pairs[x].A.ID < pairs[y].A.ID
	})
	return pairs, ua, ub
}

// familyPairing pairs the modules of one family when the two sides have different numbers of
// them.
type familyPairing struct {
	as, bs       []*DumpFile
	usedA, usedB []bool
	pairs        []*Pair
	skel         map[*DumpFile]map[uint64]int // skeleton counts, computed once per file
}

func (fp *familyPairing) add(i, j int, by PairedBy) {
	fp.usedA[i], fp.usedB[j] = true, true
	fp.pairs = append(fp.pairs, &Pair{A: fp.as[i], B: fp.bs[j], PairedBy: by})
}

// byFingerprint pairs modules with equal normalised fingerprints.
func (fp *familyPairing) byFingerprint() {
	fpB := make([]string, len(fp.bs))
	for j, f := range fp.bs {
		fpB[j] = hlo.Fingerprint(f.Module)
	}
	for i, f := range fp.as {
		h := hlo.Fingerprint(f.Module)
		for j := range fp.bs {
			if !fp.usedB[j] && h == fpB[j] {
				fp.add(i, j, PairedByFingerprint)
				break
			}
		}
	}
}

func (fp *familyPairing) sim(a, b *DumpFile) float64 {
	for _, f := range []*DumpFile{a, b} {
		if fp.skel[f] == nil {
			fp.skel[f] = skeletons(f.Module)
		}
	}
	return similarity(fp.skel[a], fp.skel[b])
}

// bySimilarity pairs the rest, most similar structure first.
func (fp *familyPairing) bySimilarity() {
	type cand struct {
		i, j int
		sim  float64
	}
	var cands []cand
	for i := range fp.as {
		if fp.usedA[i] {
			continue
		}
		for j := range fp.bs {
			if !fp.usedB[j] {
				cands = append(cands, cand{i, j, fp.sim(fp.as[i], fp.bs[j])})
			}
		}
	}
	sort.SliceStable(cands, func(x, y int) bool { return cands[x].sim > cands[y].sim })
	for _, c := range cands {
		if !fp.usedA[c.i] && !fp.usedB[c.j] {
			fp.add(c.i, c.j, PairedBySimilarity)
		}
	}
}

// extras compares a compilation left over in a family that the other side has too with its
// most similar counterpart: that is the question the user asks (why did this one compile?).
// What cannot be paired at all is returned unpaired.
func (fp *familyPairing) extras() (ua, ub []*DumpFile) {
	best := func(f *DumpFile, others []*DumpFile) *DumpFile {
		var b *DumpFile
		bs := -1.0
		for _, o := range others {
			if s := fp.sim(f, o); s > bs {
				b, bs = o, s
			}
		}
		return b
	}
	for i, u := range fp.usedA {
		if u {
			continue
		}
		if o := best(fp.as[i], fp.bs); o != nil {
			fp.pairs = append(fp.pairs, &Pair{A: fp.as[i], B: o, PairedBy: PairedByExtra})
		} else {
			ua = append(ua, fp.as[i])
		}
	}
	for j, u := range fp.usedB {
		if u {
			continue
		}
		if o := best(fp.bs[j], fp.as); o != nil {
			fp.pairs = append(fp.pairs, &Pair{A: o, B: fp.bs[j], PairedBy: PairedByExtra})
		} else {
			ub = append(ub, fp.bs[j])
		}
	}
	return ua, ub
}

// skeletons counts the skeleton hashes of a module's instructions.
func skeletons(m *hlo.Module) map[uint64]int {
	h := hlo.NewHasher(m, hlo.HashOptions{Skeleton: true})
	out := map[uint64]int{}
	for _, c := range m.Computations {
		for _, v := range h.Instructions(c) {
			out[v]++
		}
	}
	return out
}

func similarity(ca, cb map[uint64]int) float64 {
	common, na, nb := 0, 0, 0
	for k, v := range ca {
		na += v
		common += min(v, cb[k])
	}
	for _, v := range cb {
		nb += v
	}
	if na == 0 && nb == 0 {
		return 1
	}
	return float64(common) / float64(max(na, nb))
}

// History is one module family of one dump: its files in dump order and, when it was compiled
// more than once, each version compared with the one before.
type History struct {
	Family string
	Files  []*DumpFile
	Steps  []*Pair // Steps[i] compares Files[i] with Files[i+1]
}

// Explain returns every module family of a dump, in the order of their first file, and
// compares each version of a family with the one before.
func Explain(d *Dump) []*History {
	return ExplainBy(d, func(f *DumpFile) string { return f.Family })
}

// ExplainBy is Explain with the files grouped by key instead of by module family: the
// identity a log gives each compilation (a Python frame for PyTorch/XLA's unnamed graphs,
// a Keras function). Files whose key is "" are left out (eager one-op programs, which share
// a name without being one program).
func ExplainBy(d *Dump, key func(*DumpFile) string) []*History {
	groups := map[string][]*DumpFile{}
	for _, f := range d.Files {
		if k := key(f); k != "" {
			groups[k] = append(groups[k], f)
		}
	}
	var out []*History
	for _, f := range d.Files {
		k := key(f)
		files := groups[k]
		if k == "" || files == nil {
			continue // left out, or already done
		}
		delete(groups, k)
		h := &History{Family: k, Files: files}
		for i := 1; i < len(h.Files); i++ {
			p := &Pair{A: h.Files[i-1], B: h.Files[i], PairedBy: PairedByOrder}
			p.Result = Compare(p.A.Module, p.B.Module)
			h.Steps = append(h.Steps, p)
		}
		out = append(out, h)
	}
	return out
}
