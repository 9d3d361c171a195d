package logscan

import (
	"bytes"
	"math/bits"
	"slices"
	"sync"
)

// teddy is the vector prefilter (Teddy, from Hyperscan, as ripgrep's aho-corasick and others
// use it): a window of fpLen bytes of each anchor (its fingerprint: the leading bytes in
// Teddy, here the window made of the rarest bytes) goes into one of 8 buckets, and for each
// fingerprint position k two 16-entry tables give, for the low and the high nibble of a byte,
// the buckets whose fingerprint may have that byte at position k. A position p of the text is a
// candidate when, ANDing the tables' entries for text[p+k] over k, some bucket is left: a vector
// unit tests 16 or 32 positions at once with byte shuffles (teddyAVX2, teddyNEON). Candidates are
// then verified against the anchors that start with the pair of bytes found there.
//
// The nibble tables let through more than the fingerprints (a bucket holding "com" and "Exe" also
// accepts "Eom"), never less, so verification decides; the candidates the vector code reports are
// exactly those teddyScanGeneric reports, which the tests check.
type teddy struct {
	// masks (the first field: the assembly reads it at offset 0)[2k] and masks[2k+1] are the low- and high-nibble tables of fingerprint byte k, each
	// repeated in both 16-byte halves (AVX2 shuffles within 128-bit lanes). Positions k >= fpLen
	// accept every byte (all ones), so the vector code can always test teddyMaxFp.
	masks [2 * teddyMaxFp][32]byte
	fpLen int // fingerprint length: 2 to teddyMaxFp bytes, at most the shortest anchor
	// first holds, per pair of bytes (pairKey), 1 + an index into byFirst: the anchors whose
	// fingerprint starts with that pair, for verification.
	first   [1 << 16]uint16
	byFirst [][]teddyAnchor
}

// teddyMaxFp is the longest fingerprint the vector code tests.
const teddyMaxFp = 4

// newTeddy returns the tables for anchors and sweep words (the second class of literal: a line
// holding one and no anchor is reported apart), nil where the vector search cannot find them.
func newTeddy(anchors, sweep [][]byte) *teddy { return newTeddyFrom(anchors, sweep, nil) }

// newTeddyFrom is newTeddy choosing each anchor's fingerprint by how often its windows occur in
// a sample of the text to scan (seen: a window's count there, saturated; nil: no sample), the
// static rarity breaking ties. A log's own common words (TF's source paths hold "compiler" on
// every line) then stay out of the fingerprints.
func newTeddyFrom(anchors, sweep [][]byte, seen *gramCounts) *teddy {
	if len(anchors) == 0 {
		return nil
	}
	t := &teddy{fpLen: teddyMaxFp}
	nAnchors := len(anchors)
	anchors = append(anchors[:nAnchors:nAnchors], sweep...)
	for _, a := range anchors {
		if len(a) < 2 || bytes.IndexByte(a, '\n') >= 0 {
			return nil // verification reads two bytes; a candidate's anchor lies in its line
		}
		t.fpLen = min(t.fpLen, len(a))
	}
	// Each anchor's fingerprint is its window of fpLen bytes least likely in a log (by byteRarity):
	// the leading bytes of "compiling " or "executable" are in most lines of a TF log.
	type fp struct {
		window string
		anchor []byte
		off    int
		sweep  bool
	}
	var fps []fp
	for i, a := range anchors {
		best, bestScore, bestSeen := 0, 1<<30, 1<<30
		for off := 0; off+t.fpLen <= len(a); off++ {
			score := -6 * off
			for _, c := range a[off : off+t.fpLen] {
				score += int(byteFrequency[c])
			}
			n := 0
			if seen != nil {
				n = seen.count(a[off : off+t.fpLen])
			}
			if n < bestSeen || n == bestSeen && score < bestScore {
				best, bestScore, bestSeen = off, score, n
			}
		}
		fps = append(fps, fp{string(a[best : best+t.fpLen]), a, best, i >= nAnchors})
	}
	// Distinct fingerprints, sorted, in 8 runs: similar fingerprints share a bucket, so the
	// nibble tables' cross products add few false candidates; with a sample, each goes into the
	// bucket where it lets through the fewest of the sample's common windows (gramCounts.assign).
	var windows []string
	for _, f := range fps {
		windows = append(windows, f.window)
	}
	slices.Sort(windows)
	windows = slices.Compact(windows)
	for i := range t.masks {
		for j := range t.masks[i] {
			if i/2 >= t.fpLen {
				t.masks[i][j] = 0xff
			}
		}
	}
	buckets := seen.assign(windows, t.fpLen)
	for i, w := range windows {
		bit := byte(1) << (i * 8 / len(windows))
		if buckets != nil {
			bit = byte(1) << buckets[i]
		}
		for k := 0; k < t.fpLen; k++ {
			lo, hi := w[k]&0xf, w[k]>>4
			t.masks[2*k][lo] |= bit
			t.masks[2*k][16+lo] |= bit
			t.masks[2*k+1][hi] |= bit
			t.masks[2*k+1][16+hi] |= bit
		}
	}
	for _, f := range fps {
		key := pairKey(f.window[0], f.window[1])
		if t.first[key] == 0 {
			t.byFirst = append(t.byFirst, nil)
			t.first[key] = uint16(len(t.byFirst))
		}
		s := t.first[key] - 1
		t.byFirst[s] = append(t.byFirst[s], teddyAnchor{f.anchor, f.off, f.sweep})
	}
	for _, b := range t.byFirst {
		// anchors before sweep words: verify stops at the first literal found
		slices.SortStableFunc(b, func(x, y teddyAnchor) int { return cmpBool(x.sweep, y.sweep) })
	}
	return t
}

func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

// teddyAnchor is a literal and the offset of its fingerprint in it; sweep says it is a sweep
// word, not an anchor.
type teddyAnchor struct {
	lit   []byte
	off   int
	sweep bool
}

// at says whether position p of text passes the nibble tables; text[p:p+fpLen] must exist.
func (t *teddy) at(text []byte, p int) bool {
	m := byte(0xff)
	for k := 0; k < t.fpLen; k++ {
		c := text[p+k]
		m &= t.masks[2*k][c&0xf] & t.masks[2*k+1][c>>4]
	}
	return m != 0
}

// teddyScanGeneric is the reference for the vector scans: it appends to out the positions
// p >= pos of text that pass the nibble tables, stopping when out is full, and returns how many
// it appended and where to resume. Only positions at which a fingerprint fits are reported.
func teddyScanGeneric(t *teddy, text []byte, pos int, out []uint32) (n, next int) {
	last := len(text) - t.fpLen
	for p := pos; p <= last; p++ {
		if t.at(text, p) {
			if n == len(out) {
				return n, p
			}
			out[n] = uint32(p)
			n++
		}
	}
	return n, max(pos, last+1)
}

// teddyBatch is how many candidate positions one call of the vector scan may report.
const teddyBatch = 512

// teddyBufs holds the candidate batches of teddy.lines: one on its stack would escape (the scan
// is called through a function value) and cost an allocation per call.
var teddyBufs = sync.Pool{New: func() any { return new([teddyBatch]uint32) }}

// teddyMaxText bounds the text one vector scan reads: positions are reported as uint32.
const teddyMaxText = 1 << 31

// lines appends to out the lines of text (which starts at a line start) that contain an anchor,
// and to swept those that contain a sweep word and no anchor, with offsets shifted by base,
// finding candidates with scan (a vector scan, or the generic one) and finishing the last
// positions, which the vector scan cannot load a whole block for, with the generic scan.
func (t *teddy) lines(scan teddyScanner, text []byte, base int, out, swept []span) ([]span, []span) {
	buf := teddyBufs.Get().(*[teddyBatch]uint32)
	defer teddyBufs.Put(buf)
	// next position to scan; candidates before skip are in a line already found to hold an
	// anchor, those before skipSweep in one found to hold a sweep word (only an anchor matters
	// there); sweptAt is the start of the last swept line.
	pos, skip, skipSweep, sweptAt := 0, 0, 0, -1
	for pos < len(text) {
		n, next := scan(t, text, pos, buf[:])
		if next == pos && n == 0 {
			// the vector scan cannot go on (too close to the end): finish generically
			n, next = teddyScanGeneric(t, text, pos, buf[:])
			if n == 0 && next == pos {
				break
			}
		}
		pos = next
		for _, c := range buf[:n] {
			p := int(c)
			if p < skip {
				continue
			}
			switch t.verify(text, p, p < skipSweep) {
			case foundAnchor:
				ls, le := lineAround(text, p)
				if ls == sweptAt {
					swept = swept[:len(swept)-1] // the line holds an anchor after all
					sweptAt = -1
				}
				out = append(out, span{start: base + ls, end: base + le})
				skip = le + 1
			case foundSweep:
				ls, le := lineAround(text, p)
				swept = append(swept, span{start: base + ls, end: base + le})
				sweptAt, skipSweep = ls, le+1
			}
		}
	}
	return out, swept
}

// What teddy.verify finds at a candidate position.
const (
	foundNothing = iota
	foundAnchor
	foundSweep
)

// verify says whether an anchor (foundAnchor) or else a sweep word (foundSweep, unless
// anchorsOnly) whose fingerprint is at text[p:] is in text there.
func (t *teddy) verify(text []byte, p int, anchorsOnly bool) int {
	if p+1 >= len(text) {
		return foundNothing
	}
	s := t.first[pairKey(text[p], text[p+1])]
	if s == 0 {
		return foundNothing
	}
	for _, a := range t.byFirst[s-1] {
		if a.sweep && anchorsOnly {
			break
		}
		if start := p - a.off; start >= 0 && bytes.HasPrefix(text[start:], a.lit) {
			if a.sweep {
				return foundSweep
			}
			return foundAnchor
		}
	}
	return foundNothing
}

// teddyScanner is the signature of teddyScanGeneric and its vector versions: a vector version may
// stop before the end of text (returning next < len(text)) when fewer than a block's bytes are left,
// and never reports a position the generic scan would not.
type teddyScanner func(t *teddy, text []byte, pos int, out []uint32) (n, next int)

// namedScanner is a vector scan and the name tests report it by.
type namedScanner struct {
	name string
	scan teddyScanner
}

// teddyVectors are the vector scans this build has and this CPU runs (set by the files for
// each architecture); teddyVector is the one the prefilter uses, nil where there is none: the
// prefilter then uses its portable shift-table search.
var (
	teddyVectors []namedScanner
	teddyVector  teddyScanner
)

// gramCounts counts the windows of n bytes (2 to teddyMaxFp) of a sample of text, hashed into
// 64K saturating counters: a collision can only make a window look commoner than it is. top
// holds the sample's commonest windows exactly, for choosing buckets (assign).
type gramCounts struct {
	n   int
	c   [1 << 16]uint8
	top []gramCount
}

// gramCount is a window of the sample (its bytes packed, the first the highest) and how often it
// occurs there.
type gramCount struct{ gram, count uint32 }

// gramTop bounds gramCounts.top; gramSlots is the size of the exact table countGrams fills it
// from (windows beyond its capacity are left out: the sample's commonest come early), over the
// first gramExact bytes of the sample (the same buckets on the dense and Poplar logs of
// recomp-bench -shapes as the whole 256 KB, for less of adapt's time).
const (
	gramTop   = 1024
	gramSlots = 1 << 16
	gramExact = 128 << 10
)

func gramHash(w []byte) uint32 {
	var x uint32
	for _, b := range w {
		x = x<<8 | uint32(b)
	}
	return (x * 2654435761) >> 16
}

func countGrams(sample []byte, n int) *gramCounts {
	g := &gramCounts{n: n}
	keys := make([]uint32, gramSlots)
	counts := make([]uint32, gramSlots)
	used := 0
	for i := 0; i+n <= len(sample); i++ {
		var x uint32
		for _, b := range sample[i : i+n] {
			x = x<<8 | uint32(b)
		}
		h := (x * 2654435761) >> 16
		if g.c[h] < 255 {
			g.c[h]++
		}
		for j := h; i < gramExact; j = (j + 1) & (gramSlots - 1) {
			if counts[j] == 0 {
				if used < gramSlots*3/4 {
					keys[j], counts[j] = x, 1
					used++
				}
				break
			}
			if keys[j] == x {
				counts[j]++
				break
			}
		}
	}
	// the gramTop commonest (seen more than once), without sorting: the least count that keeps
	// at most gramTop, from a histogram of the counts
	var hist [256]int
	for _, c := range counts {
		hist[min(c, 255)]++
	}
	least, kept := 256, 0
	for c := 255; c >= 2 && kept+hist[c] <= gramTop; c-- {
		least, kept = c, kept+hist[c]
	}
	g.top = make([]gramCount, 0, kept)
	for j, c := range counts {
		if int(min(c, 255)) >= least {
			g.top = append(g.top, gramCount{keys[j], c})
		}
	}
	return g
}

func (g *gramCounts) count(w []byte) int { return int(g.c[gramHash(w)]) }

// assign chooses the bucket (0 to 7) of each window (n bytes, sorted): the bucket whose tables,
// with the window added, let through the fewest more occurrences of the sample's common windows
// (the fewest windows on a tie); then each window in turn moves to the bucket where it costs
// least given the others, for a few rounds. nil without a sample.
func (g *gramCounts) assign(windows []string, n int) []int {
	if g == nil || len(g.top) == 0 || n != g.n {
		return nil
	}
	a := newBucketing(g)
	out := make([]int, len(windows))
	for i, w := range windows {
		out[i] = a.place(w)
	}
	for range assignRounds {
		moved := false
		for i := range windows {
			from := out[i]
			a.bs[from] = bucketTop{}
			for j, w := range windows {
				if j != i && out[j] == from {
					a.add(&a.bs[from], w)
				}
			}
			out[i] = a.place(windows[i])
			moved = moved || out[i] != from
		}
		if !moved {
			break
		}
	}
	return out
}

// topWords is how many words a bitmap over gramCounts.top takes.
const topWords = (gramTop + 63) / 64

type topBitmap [topWords]uint64

// bucketing is gramCounts.assign's state. A bucket's tables let a window through when each of its
// bytes' nibbles is in the bucket's set for that position; the sets are kept as bitmaps over
// g.top (which of its windows have a nibble the bucket accepts there), so that a bucket's cost is
// a few ANDs and ORs of bitmaps.
type bucketing struct {
	g *gramCounts
	// has[k][0][v]: the top windows whose byte k has low nibble v; has[k][1][v]: high nibble v
	has [teddyMaxFp][2][16]topBitmap
	bs  [8]bucketTop
}

// bucketTop is one bucket as bucketing follows it.
type bucketTop struct {
	acc  [teddyMaxFp][2]topBitmap // per position and half: the top windows with an accepted nibble
	pass topBitmap                // the top windows the bucket lets through
	size int
}

func newBucketing(g *gramCounts) *bucketing {
	a := &bucketing{g: g}
	for j, t := range g.top {
		for k := 0; k < g.n; k++ {
			c := byte(t.gram >> (8 * (g.n - 1 - k)))
			a.has[k][0][c&0xf][j/64] |= 1 << (j % 64)
			a.has[k][1][c>>4][j/64] |= 1 << (j % 64)
		}
	}
	return a
}

// place adds w to the bucket where it costs least and returns that bucket.
func (a *bucketing) place(w string) int {
	best, bestCost := 0, -1
	for b := range a.bs {
		if c := a.cost(&a.bs[b], w); bestCost < 0 || c < bestCost || c == bestCost && a.bs[b].size < a.bs[best].size {
			best, bestCost = b, c
		}
	}
	a.add(&a.bs[best], w)
	return best
}

func (a *bucketing) add(b *bucketTop, w string) {
	n := a.g.n
	for k := 0; k < n; k++ {
		for h, v := range [2]byte{w[k] & 0xf, w[k] >> 4} {
			for i := range topWords {
				b.acc[k][h][i] |= a.has[k][h][v][i]
			}
		}
	}
	for i := range topWords {
		p := ^uint64(0)
		for k := 0; k < n; k++ {
			p &= b.acc[k][0][i] & b.acc[k][1][i]
		}
		b.pass[i] = p
	}
	b.size++
}

// cost is how many more occurrences of the top windows b lets through with w added.
func (a *bucketing) cost(b *bucketTop, w string) int {
	n, c := a.g.n, 0
	for i := range topWords {
		p := ^uint64(0)
		for k := 0; k < n; k++ {
			p &= (b.acc[k][0][i] | a.has[k][0][w[k]&0xf][i]) & (b.acc[k][1][i] | a.has[k][1][w[k]>>4][i])
		}
		for p &^= b.pass[i]; p != 0; p &= p - 1 {
			if j := i*64 + bits.TrailingZeros64(p); j < len(a.g.top) {
				c += int(a.g.top[j].count)
			}
		}
	}
	return c
}

// assignRounds bounds the rounds in which gramCounts.assign moves windows between buckets.
const assignRounds = 3
