package logscan

import (
	"bytes"
	"encoding/binary"
	"runtime"
	"slices"
	"sync"
	"unsafe"
)

// prefilter finds the lines that contain an anchor in one pass over the text, with a
// Horspool-style shift table over byte pairs (Wu-Manber with a block of 2): at each window of
// m bytes (the shortest anchor), the pair at its end says how far the window can move before
// an anchor could start in it, so most of the text is skipped without being compared.
type prefilter struct {
	m     int            // window: the length of the shortest anchor
	shift [1 << 16]uint8 // per byte pair at the window's end: how far the window may move
	slot  [1 << 16]uint8 // per byte pair with shift 0: 1 + index into cands
	cands [][]int        // anchors whose first m bytes end with that pair
	pats  [][]byte
	// sweep is the shift-table search for the sweep words (the second class of literal: a line
	// holding one and no anchor is a swept line, Scanner.sweepRegion); nil when there are none.
	// The vector search finds both classes in one pass.
	sweep *prefilter
	// short are the anchors much shorter than the others (short.go), which the sweep's shift
	// table finds after the sweep words (its pats end with them): their lines are candidates. The
	// vector search takes them with the other anchors.
	short [][]byte
	teddy *teddy // the vector search's tables (anchors and sweep words); used where teddyVector is set
}

// adaptSample is how much of the start of a log the prefilter samples to choose the vector
// search's fingerprints (adapt); adaptMin the least it adapts on.
const (
	adaptSample = 256 << 10
	adaptMin    = 64 << 10
)

// adapt returns the prefilter with the vector search's fingerprints chosen by how often they
// occur in sample (the start of the log to scan): the same lines are found, with fewer
// candidates to verify where the log's common words hold the static choice's fingerprints. It
// returns p itself where there is no vector search.
func (p *prefilter) adapt(sample []byte) *prefilter {
	if p.teddy == nil || teddyVector == nil {
		return p
	}
	sample = sample[:min(len(sample), adaptSample)]
	t := newTeddyFrom(p.anchorPats(), p.sweepPats(), countGrams(sample, p.teddy.fpLen))
	// The counts leave the nibble tables' cross products out (a bucket holding "ile?" and "tep="
	// also lets "tile" through): keep the choice that gives fewer candidates in the sample.
	if teddyCandidates(t, sample) >= teddyCandidates(p.teddy, sample) {
		return p
	}
	q := *p
	q.teddy = t
	return &q
}

// teddyCandidates counts the positions of text the vector scan reports for t.
func teddyCandidates(t *teddy, text []byte) int {
	buf := teddyBufs.Get().(*[teddyBatch]uint32)
	defer teddyBufs.Put(buf)
	total := 0
	for pos := 0; pos < len(text); {
		n, next := teddyVector(t, text, pos, buf[:])
		if n == 0 && next == pos {
			n, next = teddyScanGeneric(t, text, pos, buf[:])
			if n == 0 && next == pos {
				break
			}
		}
		total += n
		pos = next
	}
	return total
}

// emptyFilter finds no line: a Scanner without a grammar reads no message.
var emptyFilter = &prefilter{m: 0}

// newPrefilter returns the prefilter finding the lines that hold an anchor and, apart, those
// that hold a sweep word and no anchor (sweep may be empty).
func newPrefilter(anchors, sweep []string) *prefilter {
	long, short := splitAnchors(anchors)
	p := newShiftTable(long)
	for _, a := range short {
		p.short = append(p.short, []byte(a))
	}
	if len(sweep)+len(short) > 0 {
		p.sweep = newShiftTable(slices.Concat(sweep, short))
	}
	p.teddy = newTeddy(p.anchorPats(), p.sweepPats())
	return p
}

// sweepPats are the sweep words, nil when there are none.
func (p *prefilter) sweepPats() [][]byte {
	if p.sweep == nil || len(p.sweep.pats) == len(p.short) {
		return nil
	}
	return p.sweep.pats[:len(p.sweep.pats)-len(p.short)]
}

// newShiftTable returns the prefilter's shift-table search for anchors, without a vector search.
func newShiftTable(anchors []string) *prefilter {
	p := &prefilter{m: 255}
	for _, a := range anchors {
		p.pats = append(p.pats, []byte(a))
		p.m = min(p.m, len(a))
	}
	for i := range p.shift {
		p.shift[i] = uint8(p.m - 1)
	}
	for k, a := range p.pats {
		for j := 0; j+2 <= p.m; j++ {
			pair := pairKey(a[j], a[j+1])
			p.shift[pair] = min(p.shift[pair], uint8(p.m-2-j))
		}
		pair := pairKey(a[p.m-2], a[p.m-1])
		if p.slot[pair] == 0 {
			p.cands = append(p.cands, nil)
			p.slot[pair] = uint8(len(p.cands))
		}
		s := p.slot[pair] - 1
		p.cands[s] = append(p.cands[s], k)
	}
	return p
}

// pairKey is the table index of two consecutive bytes: their value as a uint16 in this
// machine's byte order, which is how lines reads them.
func pairKey(a, b byte) int { return int(binary.NativeEndian.Uint16([]byte{a, b})) }

// lineAround returns the start and end (without the newline) of the line of text holding pos.
func lineAround(text []byte, pos int) (start, end int) {
	start = bytes.LastIndexByte(text[:pos], '\n') + 1
	end = len(text)
	if j := bytes.IndexByte(text[pos:], '\n'); j >= 0 {
		end = pos + j
	}
	return start, end
}

// span is one candidate line: text[start:end], without its newline. candidates sets nl, the
// newlines of the region before start (lines leaves it 0).
type span struct{ start, end, nl int }

// lines appends to out the lines of text (which starts at a line start) that contain an
// anchor, and to swept those that contain a sweep word and no anchor, with offsets shifted by
// base.
func (p *prefilter) lines(text []byte, base int, out, swept []span) ([]span, []span) {
	if p.teddy != nil && teddyVector != nil && len(text) < teddyMaxText {
		return p.teddy.lines(teddyVector, text, base, out, swept)
	}
	return p.shiftBoth(text, base, out, swept)
}

// shiftBoth is lines with the portable shift-table searches: one pass for the anchors, one for
// the sweep words, whose lines are kept where the first found none.
func (p *prefilter) shiftBoth(text []byte, base int, out, swept []span) ([]span, []span) {
	first := len(out)
	out = p.shiftLines(text, base, out)
	if p.sweep == nil {
		return out, swept
	}
	from := len(swept)
	swept = p.sweep.shiftLines(text, base, swept)
	if len(p.short) > 0 {
		out, swept = p.promote(text, base, out, first, swept, from)
	}
	found, k := out[first:], 0
	keep := swept[:from]
	for _, sw := range swept[from:] {
		for k < len(found) && found[k].start < sw.start {
			k++
		}
		if k < len(found) && found[k].start == sw.start {
			continue
		}
		keep = append(keep, sw)
	}
	return out, keep
}

// shiftLines is lines with the portable shift-table search.
func (p *prefilter) shiftLines(text []byte, base int, out []span) []span {
	m := p.m
	pos, last := 0, len(text)-m
	if last < 0 || m < 2 {
		return out
	}
	// The window's last two bytes are read as one native-order uint16 (see pairKey);
	// pos <= last keeps every read inside text.
	end := unsafe.Pointer(unsafe.SliceData(text[m-2:]))
	for pos <= last {
		pair := int(*(*uint16)(unsafe.Add(end, pos)))
		if s := p.shift[pair]; s != 0 {
			pos += int(s)
			continue
		}
		found := false
		for _, k := range p.cands[p.slot[pair]-1] {
			if bytes.HasPrefix(text[pos:], p.pats[k]) {
				found = true
				break
			}
		}
		if !found {
			pos++
			continue
		}
		ls, le := lineAround(text, pos)
		out = append(out, span{start: base + ls, end: base + le})
		pos = le + 1
	}
	return out
}

// scanPart finds the candidate lines of text (part of a region, at offset base in it) and
// counts its newlines: each span's nl is the count before it in text. With findNUL it also
// looks for a NUL byte: nul is its offset in the region, -1 when there is none. Counting here
// puts the line count on the goroutines of the parallel search instead of a pass of its own.
func (p *prefilter) scanPart(text []byte, base int, out, swept []span, findNUL bool) (spans, swept2 []span, newlines, nul int) {
	first := len(out)
	out, swept = p.lines(text, base, out, swept)
	prev := 0
	for k := first; k < len(out); k++ {
		start := out[k].start - base
		newlines += bytes.Count(text[prev:start], newline)
		out[k].nl = newlines
		prev = start
	}
	newlines += bytes.Count(text[prev:], newline)
	nul = -1
	if findNUL {
		if i := bytes.IndexByte(text, 0); i >= 0 {
			nul = base + i
		}
	}
	return out, swept, newlines, nul
}

var newline = []byte{'\n'}

// parallelMin is the smallest part of a region worth handing to a goroutine of its own.
const parallelMin = 256 << 10

// regionScan is what candidates finds in a region besides its candidate lines.
type regionScan struct {
	newlines int // in the whole region
	nul      int // the offset of the first NUL byte when asked for, else -1
}

// partScratch is one parallel part's candidate and swept lines, reused between calls.
type partScratch struct{ spans, swept []span }

// candidates returns the candidate lines of region, each with the newlines before it (nl), the
// lines holding a sweep word and no anchor (swept), and the region's newline count and first NUL
// byte (when findNUL), using up to GOMAXPROCS goroutines on parts split at line boundaries.
// parts is scratch space reused between calls.
func (p *prefilter) candidates(region []byte, out, swept []span, parts *[]partScratch, findNUL bool) ([]span, []span, regionScan) {
	n := min(runtime.GOMAXPROCS(0), len(region)/parallelMin)
	if n <= 1 {
		out, swept, nl, nul := p.scanPart(region, 0, out, swept, findNUL)
		return out, swept, regionScan{newlines: nl, nul: nul}
	}
	for len(*parts) < n {
		*parts = append(*parts, partScratch{})
	}
	bounds := make([]int, n+1)
	for i := 1; i < n; i++ {
		b := len(region) * i / n
		if b < bounds[i-1] {
			b = bounds[i-1]
		}
		if j := bytes.IndexByte(region[b:], '\n'); j >= 0 {
			b += j + 1
		} else {
			b = len(region)
		}
		bounds[i] = b
	}
	bounds[n] = len(region)
	nls, nuls := make([]int, n), make([]int, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ps := &(*parts)[i]
			ps.spans, ps.swept, nls[i], nuls[i] = p.scanPart(region[bounds[i]:bounds[i+1]], bounds[i], ps.spans[:0], ps.swept[:0], findNUL)
		}()
	}
	wg.Wait()
	rs := regionScan{nul: -1}
	for i := range n {
		for _, sp := range (*parts)[i].spans {
			sp.nl += rs.newlines
			out = append(out, sp)
		}
		swept = append(swept, (*parts)[i].swept...)
		rs.newlines += nls[i]
		if rs.nul < 0 {
			rs.nul = nuls[i]
		}
	}
	return out, swept, rs
}
