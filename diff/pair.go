package diff

import (
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/cespare/xxhash/v2"
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
	// Text is the pair's text diff when Options.Text asked for it (nil for an identical pair).
	Text *TextDiff
}

// DumpDiff is the comparison of two dumps.
type DumpDiff struct {
	Pairs     []*Pair
	UnpairedA []*DumpFile
	UnpairedB []*DumpFile
}

// Options say what Dumps and Explain compute for each pair while its modules are in memory.
type Options struct {
	Text bool // the text diff of each pair that differs (Pair.Text)
	// MaxTexts bounds the pairs that get a text diff, in order (0: no bound).
	MaxTexts    int
	TextOptions TextOptions
}

// TextsLeftOut is how many differing pairs got no text diff because of Options.MaxTexts.
func TextsLeftOut(pairs []*Pair) int {
	n := 0
	for _, p := range pairs {
		if p.Text == nil && p.Result != nil && !p.Result.Identical {
			n++
		}
	}
	return n
}

// maxSimilarity bounds the module pairs whose structure is scored to pair one family's
// modules (similarity pairing is quadratic): beyond it, what fingerprints left is paired in
// dump order, and an extra compilation is scored against its neighbours in dump order only.
const maxSimilarity = 4096

// extraWindow is how many neighbours an extra compilation is scored against when the family is
// too large to score them all.
const extraWindow = 8

// MaxKeptChanges bounds the changes the pairs of one Dumps or Explain call list together
// (each lists at most MaxChanges). The pairs after it list none: their ChangeCount, Counts,
// causes and evidence still say what changed, so explaining 100 000 versions of a program
// holds what each comparison concluded, not every change it saw.
const MaxKeptChanges = 20_000

// comparing is the state of one Dumps or Explain call: the changes left to list, and the
// change counts seen so far (versions of one program that changed alike share one map).
type comparing struct {
	opt    Options
	budget int
	texts  int // text diffs made
	counts map[string]map[ChangeKind]int
}

func newComparing(opt Options) *comparing {
	return &comparing{opt: opt, budget: MaxKeptChanges, counts: map[string]map[ChangeKind]int{}}
}

// compare compares a pair, computes its text diff when asked, and lets go of the modules: a
// Result keeps what was found, not the graphs (release), and lists its changes while the
// budget lasts.
func (cg *comparing) compare(p *Pair, ma, mb *hlo.Module) {
	r := Compare(ma, mb)
	if cg.opt.Text && !r.Identical && (cg.opt.MaxTexts == 0 || cg.texts < cg.opt.MaxTexts) {
		td := r.Text(cg.opt.TextOptions)
		p.Text = &td
		cg.texts++
	}
	k := min(len(r.Changes), cg.budget)
	cg.budget -= k
	if k == 0 {
		r.Changes = nil
	} else {
		r.Changes = append(make([]Change, 0, k), r.Changes[:k]...) // no spare capacity held
	}
	r.release()
	r.Counts = cg.shared(r.Counts)
	p.Result = r
}

// shared returns a map equal to counts that earlier pairs may share (Counts are only read).
func (cg *comparing) shared(counts map[ChangeKind]int) map[ChangeKind]int {
	keys := make([]string, 0, len(counts))
	for k, n := range counts {
		keys = append(keys, string(k)+"="+strconv.Itoa(n))
	}
	sort.Strings(keys)
	key := strings.Join(keys, ",")
	if m, ok := cg.counts[key]; ok {
		return m
	}
	if len(cg.counts) < 10_000 {
		cg.counts[key] = counts
	}
	return counts
}

// Dumps pairs the modules of two dumps and compares each pair. Two single files are always
// paired with each other. Otherwise modules pair within a family (module name with counters
// stripped) and stage: in order when both sides have as many, else equal fingerprints first and
// then the most similar structure. Modules the dumps do not hold are read again when compared,
// two at a time; a module that no longer reads becomes a Problem of its dump and its pair is
// left out.
func Dumps(a, b *Dump, opt Options) *DumpDiff {
	out := &DumpDiff{}
	cg := newComparing(opt)
	var pairs []*Pair
	if len(a.Files) == 1 && len(b.Files) == 1 {
		pairs = append(pairs, &Pair{A: a.Files[0], B: b.Files[0], PairedBy: PairedByArgument})
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
			ps, ua, ub := pairFamily(a, b, fa[f], fb[f])
			pairs = append(pairs, ps...)
			out.UnpairedA = append(out.UnpairedA, ua...)
			out.UnpairedB = append(out.UnpairedB, ub...)
		}
	}
	for _, p := range pairs {
		ma, okA := a.Module(p.A)
		mb, okB := b.Module(p.B)
		if okA && okB {
			cg.compare(p, ma, mb)
			out.Pairs = append(out.Pairs, p)
		}
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

func pairFamily(da, db *Dump, as, bs []*DumpFile) (pairs []*Pair, ua, ub []*DumpFile) {
	if len(as) == len(bs) {
		for i := range as {
			pairs = append(pairs, &Pair{A: as[i], B: bs[i], PairedBy: PairedByOrder})
		}
		return pairs, nil, nil
	}
	fp := &familyPairing{da: da, db: db, as: as, bs: bs, usedA: make([]bool, len(as)), usedB: make([]bool, len(bs)),
		skel: map[*DumpFile]map[uint64]int{}, unread: map[*DumpFile]bool{}}
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
// them. A module that cannot be read again is left out (its dump has the Problem, once) and is
// no one's counterpart.
type familyPairing struct {
	da, db       *Dump
	as, bs       []*DumpFile
	usedA, usedB []bool
	pairs        []*Pair
	skel         map[*DumpFile]map[uint64]int // skeleton counts, computed once per file
	unread       map[*DumpFile]bool           // modules that could not be read again
}

// module is a file's module, read at most once more after it failed.
func (fp *familyPairing) module(d *Dump, f *DumpFile) (*hlo.Module, bool) {
	if fp.unread[f] {
		return nil, false
	}
	m, ok := d.Module(f)
	if !ok {
		fp.unread[f] = true
	}
	return m, ok
}

func (fp *familyPairing) add(i, j int, by PairedBy) {
	fp.usedA[i], fp.usedB[j] = true, true
	fp.pairs = append(fp.pairs, &Pair{A: fp.as[i], B: fp.bs[j], PairedBy: by})
}

// byFingerprint pairs modules with equal normalised fingerprints, each A with the first B of
// its fingerprint not yet paired.
func (fp *familyPairing) byFingerprint() {
	byFP := map[string][]int{}
	for j, f := range fp.bs {
		m, ok := fp.module(fp.db, f)
		if !ok {
			fp.usedB[j] = true
			continue
		}
		h := hlo.Fingerprint(m)
		byFP[h] = append(byFP[h], j)
	}
	for i, f := range fp.as {
		m, ok := fp.module(fp.da, f)
		if !ok {
			fp.usedA[i] = true
			continue
		}
		h := hlo.Fingerprint(m)
		if l := byFP[h]; len(l) > 0 {
			byFP[h] = l[1:]
			fp.add(i, l[0], PairedByFingerprint)
		}
	}
}

func (fp *familyPairing) skeleton(d *Dump, f *DumpFile) map[uint64]int {
	if fp.skel[f] == nil {
		m, ok := fp.module(d, f)
		if !ok {
			return map[uint64]int{}
		}
		fp.skel[f] = skeletons(m)
	}
	return fp.skel[f]
}

func (fp *familyPairing) sim(a, b *DumpFile) float64 {
	return similarity(fp.skeleton(fp.da, a), fp.skeleton(fp.db, b))
}

func unused(used []bool) []int {
	var out []int
	for i, u := range used {
		if !u {
			out = append(out, i)
		}
	}
	return out
}

// bySimilarity pairs the rest, most similar structure first; in dump order when there are too
// many to score (maxSimilarity).
func (fp *familyPairing) bySimilarity() {
	ua, ub := unused(fp.usedA), unused(fp.usedB)
	if len(ua)*len(ub) > maxSimilarity {
		for k := 0; k < len(ua) && k < len(ub); k++ {
			fp.add(ua[k], ub[k], PairedByOrder)
		}
		return
	}
	type cand struct {
		i, j int
		sim  float64
	}
	var cands []cand
	for _, i := range ua {
		for _, j := range ub {
			cands = append(cands, cand{i, j, fp.sim(fp.as[i], fp.bs[j])})
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
// Of equally similar counterparts the nearest in dump order wins; when the family is too large
// to score every counterpart, the extraWindow nearest are scored. What cannot be paired at all
// is returned unpaired.
func (fp *familyPairing) extras() (ua, ub []*DumpFile) {
	leftA, leftB := unused(fp.usedA), unused(fp.usedB)
	readable := func(files []*DumpFile) []*DumpFile {
		var out []*DumpFile
		for _, f := range files {
			if !fp.unread[f] {
				out = append(out, f)
			}
		}
		return out
	}
	as, bs := readable(fp.as), readable(fp.bs)
	best := func(at int, n int, others []*DumpFile, sim func(o *DumpFile) float64) *DumpFile {
		window := len(others)
		if (len(leftA)+len(leftB))*len(others) > maxSimilarity {
			window = extraWindow
		}
		// the counterparts nearest in dump order first: a tie goes to the nearest
		var cands []*DumpFile
		if len(others) > 0 {
			mid := min(at*len(others)/max(n, 1), len(others)-1)
			for d := 0; len(cands) < window && (mid-d >= 0 || mid+d < len(others)); d++ {
				if mid-d >= 0 {
					cands = append(cands, others[mid-d])
				}
				if d > 0 && mid+d < len(others) && len(cands) < window {
					cands = append(cands, others[mid+d])
				}
			}
		}
		var b *DumpFile
		bs := -1.0
		for _, o := range cands {
			if s := sim(o); s > bs {
				b, bs = o, s
			}
		}
		return b
	}
	for _, i := range leftA {
		a := fp.as[i]
		if o := best(i, len(fp.as), bs, func(o *DumpFile) float64 { return fp.sim(a, o) }); o != nil {
			fp.pairs = append(fp.pairs, &Pair{A: a, B: o, PairedBy: PairedByExtra})
		} else {
			ua = append(ua, a)
		}
	}
	for _, j := range leftB {
		b := fp.bs[j]
		if o := best(j, len(fp.bs), as, func(o *DumpFile) float64 { return fp.sim(o, b) }); o != nil {
			fp.pairs = append(fp.pairs, &Pair{A: o, B: b, PairedBy: PairedByExtra})
		} else {
			ub = append(ub, b)
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

// History is one program of one dump: its files in dump order and, when it was compiled more
// than once, each version compared with its closest earlier version.
type History struct {
	Family string
	Files  []*DumpFile
	// Steps compare each version with its closest earlier version (a version that cannot be read
	// again is skipped): one of equal fingerprint when there is one, else the most similar of
	// the last ones (variantWindow); of equally close ones, the latest.
	Steps []*Pair
}

// Explain returns every module family of a dump, in the order of their first file, and
// compares each version of a family with its closest earlier version.
func Explain(d *Dump, opt Options) []*History {
	return ExplainBy(d, func(f *DumpFile) string { return f.Family }, opt)
}

// variantWindow bounds the distinct earlier versions of a program that a new version is scored
// against (besides the latest of each program of its group): scoring is linear in their size.
// Equal fingerprints are found among all earlier versions.
const variantWindow = 8

// sameProgram is the least similarity of their skeletons (instructions other than parameters
// and constants, shapes and values left out) at which two versions of a group are one program
// compiled again. Below it they are two programs that share a name: PyTorch/XLA's
// SyncTensorsGraph of a training step and of an .item() read measured 0.01, versions of one
// program whose structure changed 0.26 and more (a Python bool, a loop count, an optimizer's
// state, a Python scalar become a constant).
const sameProgram = 0.1

// minSplit is the fewest instructions (of the skeleton) both versions must have for their
// dissimilarity to split them into two programs: in a graph of one or two instructions one
// change (a convert for a new dtype, a fused op) is all of it (diff/testdata/dumps: gpu-names).
const minSplit = 3

// maxPrograms bounds the programs one group is split into; a version unlike all of them joins
// the closest.
const maxPrograms = 16

// variant is an earlier version of a program: its file, fingerprint, program (of its group),
// place among the group's versions, a digest of its inputs' shapes, and, while it may be
// scored (variantWindow), the sorted hashes of its instructions, whole and as skeletons.
type variant struct {
	file     *DumpFile
	fp       uint64
	program  int
	sequence int
	inputs   uint64
	full, sk []uint64
}

// summarize returns a module's fingerprint, the sorted hashes of its instructions (whole: a
// constant or shape that changed changes every hash it reaches) and of their skeletons
// (shapes and values left out: the program's structure), and a digest of its inputs' shapes.
func summarize(m *hlo.Module) (fp uint64, full, sk []uint64, inputs uint64) {
	fp = hlo.NewHasher(m, hlo.HashOptions{}).Module()
	// Both leave out the inputs' numbers: a version that gained inputs (an optimizer's state,
	// pending ops merged into a step with inputs of their own) numbers the others anew.
	anyNumber := map[int]int{}
	if m.Entry != nil {
		for _, in := range m.Entry.Instructions {
			if in.Opcode == "parameter" {
				anyNumber[in.Param] = 0
			}
		}
	}
	h := hlo.NewHasher(m, hlo.HashOptions{EntryParams: anyNumber})
	hs := hlo.NewHasher(m, hlo.HashOptions{Skeleton: true, EntryParams: anyNumber})
	for _, c := range m.Computations {
		full = append(full, h.Instructions(c)...)
		for i, v := range hs.Instructions(c) {
			if op := c.Instructions[i].Opcode; op != "parameter" && op != "constant" {
				sk = append(sk, v) // (leaves any two programs share say nothing of their structure)
			}
		}
	}
	slices.Sort(full)
	slices.Sort(sk)
	if m.Entry != nil {
		d := xxhash.New()
		for _, in := range m.Entry.Instructions {
			if in.Opcode == "parameter" {
				d.WriteString(strconv.Itoa(in.Param) + ":" + in.Shape.String() + "\x00")
			}
		}
		inputs = d.Sum64()
	}
	return fp, full, sk, inputs
}

// sortedSimilarity is similarity of two sorted multisets of hashes.
func sortedSimilarity(a, b []uint64) float64 {
	if len(a) == 0 && len(b) == 0 {
		return 1
	}
	common := 0
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch {
		case a[i] == b[j]:
			common++
			i++
			j++
		case a[i] < b[j]:
			i++
		default:
			j++
		}
	}
	return float64(common) / float64(max(len(a), len(b)))
}

// ExplainBy is Explain with the files grouped by key instead of by module family: the
// identity a log gives each compilation (a Python frame for PyTorch/XLA's unnamed graphs,
// a Keras step). Files whose key is "" are left out (eager one-op programs, which share a name
// without being one program).
//
// Each version is compared with its closest earlier version, not with the one just before: one
// of the same fingerprint (the same graph compiled again: the cause is outside it), else the
// most similar by the instructions they share whole, of equally similar ones the latest. So a
// family that alternates between variants (64 and 40 rows, a jit rebuilt each epoch) compares
// each recompilation with the variant it repeats, and says why that one was not reused. A
// version whose structure shares too little with every earlier one (sameProgram) is another
// program that shares the name, not a recompilation: it starts a history of its own, named
// "KEY #2" and so on.
//
// Memory does not grow with the number of versions but with what their comparisons found: the
// group's fingerprints, and the hashes of the variantWindow latest distinct versions; a module
// the dump does not hold is read again when it is compared.
//
// The files of each process of a dump (DumpFile.PID) are compared among themselves: another
// process's module of the same key is no version of this one's, and its history is its own.
func ExplainBy(d *Dump, key func(*DumpFile) string, opt Options) []*History {
	type group struct {
		pid int
		key string
	}
	groups := map[group][]*DumpFile{}
	for _, f := range d.Files {
		if k := key(f); k != "" {
			g := group{f.PID, k}
			groups[g] = append(groups[g], f)
		}
	}
	var out []*History
	cg := newComparing(opt)
	for _, f := range d.Files {
		g := group{f.PID, key(f)}
		files := groups[g]
		if g.key == "" || files == nil {
			continue // left out, or already done
		}
		delete(groups, g)
		out = append(out, explainGroup(d, g.key, files, cg)...)
	}
	return out
}

// explainGroup compares the versions of one group, each with its closest earlier version.
func explainGroup(d *Dump, key string, files []*DumpFile, cg *comparing) []*History {
	hs := []*History{{Family: key}}
	byFP := map[uint64]*variant{} // the latest version of each fingerprint
	var window []*variant         // the latest distinct versions, oldest first
	var latest []*variant         // the latest version of each program
	scored := func(v *variant) bool { return slices.Contains(window, v) || latest[v.program] == v }
	var prev *variant
	var mPrev *hlo.Module
	for n, f := range files {
		m, ok := d.Module(f)
		if !ok {
			continue
		}
		fp, full, sk, inputs := summarize(m)
		v := &variant{file: f, fp: fp, full: full, sk: sk, sequence: n, inputs: inputs}
		base, by := closest(v, byFP, window, latest, len(hs))
		switch {
		case base != nil:
			v.program = base.program
			before := latest[base.program] // the program's version just before
			if base == before {
				by = PairedByOrder
			}
			mBase := mPrev
			if base != prev {
				mBase = nil
				if mb, ok := d.Module(base.file); ok {
					mBase = mb
				}
			}
			if mBase != nil {
				p := &Pair{A: base.file, B: f, PairedBy: by}
				cg.compare(p, mBase, m)
				if base != before {
					p.Result.Notes = append(p.Result.Notes, closestNote(base, before, v, p.Result))
				}
				hs[v.program].Steps = append(hs[v.program].Steps, p)
			}
		case prev != nil: // another program of the same name
			v.program = len(hs)
			hs = append(hs, &History{Family: key + " #" + strconv.Itoa(len(hs)+1)})
		}
		hs[v.program].Files = append(hs[v.program].Files, f)
		byFP[fp] = v
		var dropped []*variant
		window = slices.DeleteFunc(window, func(w *variant) bool {
			if w.fp == fp {
				dropped = append(dropped, w)
			}
			return w.fp == fp
		})
		if window = append(window, v); len(window) > variantWindow {
			dropped = append(dropped, window[0])
			window = window[1:]
		}
		if v.program < len(latest) {
			dropped = append(dropped, latest[v.program])
			latest[v.program] = v
		} else {
			latest = append(latest, v)
		}
		for _, w := range dropped {
			if !scored(w) {
				w.full, w.sk = nil, nil // (what is no longer scored lets go of its hashes)
			}
		}
		prev, mPrev = v, m
	}
	return hs
}

// closest chooses the earlier version v is compared with: the latest of its fingerprint, else
// the most similar of the window and of each program's latest version that is the same program
// (sameProgram), of equals the latest. nil: none is (v is the first, or another program).
func closest(v *variant, byFP map[uint64]*variant, window, latest []*variant, programs int) (*variant, PairedBy) {
	if b := byFP[v.fp]; b != nil {
		return b, PairedByFingerprint
	}
	var best, fallback *variant
	bestSim, bestSk := -1.0, -1.0
	seen := map[*variant]bool{}
	for _, c := range append(append([]*variant(nil), window...), latest...) {
		if seen[c] || c.full == nil {
			continue
		}
		seen[c] = true
		sk := sortedSimilarity(c.sk, v.sk)
		if sk > bestSk || sk == bestSk && c.sequence > fallback.sequence {
			fallback, bestSk = c, sk
		}
		if sk < sameProgram && min(len(c.sk), len(v.sk)) >= minSplit {
			continue
		}
		if sim := sortedSimilarity(c.full, v.full); sim > bestSim || sim == bestSim && c.sequence > best.sequence {
			best, bestSim = c, sim
		}
	}
	if best == nil && programs >= maxPrograms {
		best = fallback // too many programs of one name: the closest
	}
	return best, PairedBySimilarity
}

// closestNote says that a version was compared with an earlier version than the one just
// before, and why that one, which had the same inputs, could not be reused.
func closestNote(base, prev, v *variant, r *Result) string {
	s := "compared with " + filepath.Base(base.file.Path) + ", its closest earlier version, not with " +
		filepath.Base(prev.file.Path) + ", the one just before"
	if base.inputs != v.inputs || len(r.Causes) == 0 {
		return s
	}
	why := r.Causes[0].Summary
	if r.Causes[0].Kind == CauseIdentical {
		why = "the graph is the same, so what differed is outside it (a function made anew, compile options or flags, the cache)"
	}
	return s + "; it was compiled for the same inputs and could not be reused: " + why
}
