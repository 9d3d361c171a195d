package logscan

import (
	"bytes"
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

func newTeddy(anchors [][]byte) *teddy { return newTeddyFrom(anchors, nil) }

// newTeddyFrom is newTeddy choosing each anchor's fingerprint by how often its windows occur in
// a sample of the text to scan (seen: a window's count there, saturated; nil: no sample), the
// static rarity breaking ties. A log's own common words (TF's source paths hold "compiler" on
// every line) then stay out of the fingerprints.
func newTeddyFrom(anchors [][]byte, seen *gramCounts) *teddy {
	if len(anchors) == 0 {
		return nil
	}
	t := &teddy{fpLen: teddyMaxFp}
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
	}
	var fps []fp
	for _, a := range anchors {
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
		fps = append(fps, fp{string(a[best : best+t.fpLen]), a, best})
	}
	// Distinct fingerprints, sorted, in 8 runs: similar fingerprints share a bucket, so the
	// nibble tables' cross products add few false candidates.
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
	for i, w := range windows {
		bit := byte(1) << (i * 8 / len(windows))
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
		t.byFirst[s] = append(t.byFirst[s], teddyAnchor{f.anchor, f.off})
	}
	return t
}

// teddyAnchor is an anchor and the offset of its fingerprint in it.
type teddyAnchor struct {
	lit []byte
	off int
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
// with offsets shifted by base, finding candidates with scan (a vector scan, or the generic one)
// and finishing the last positions, which the vector scan cannot load a whole block for, with
// the generic scan.
func (t *teddy) lines(scan teddyScanner, text []byte, base int, out []span) []span {
	buf := teddyBufs.Get().(*[teddyBatch]uint32)
	defer teddyBufs.Put(buf)
	pos, skip := 0, 0 // next position to scan; candidates before skip are in a line already found
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
			if p < skip || !t.verify(text, p) {
				continue
			}
			ls, le := lineAround(text, p)
			out = append(out, span{start: base + ls, end: base + le})
			skip = le + 1
		}
	}
	return out
}

// verify says whether an anchor whose fingerprint is at text[p:] is in text there.
func (t *teddy) verify(text []byte, p int) bool {
	if p+1 >= len(text) {
		return false
	}
	s := t.first[pairKey(text[p], text[p+1])]
	if s == 0 {
		return false
	}
	for _, a := range t.byFirst[s-1] {
		if start := p - a.off; start >= 0 && bytes.HasPrefix(text[start:], a.lit) {
			return true
		}
	}
	return false
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
// 64K saturating counters: a collision can only make a window look commoner than it is.
type gramCounts struct {
	n int
	c [1 << 16]uint8
}

func gramHash(w []byte) uint32 {
	var x uint32
	for _, b := range w {
		x = x<<8 | uint32(b)
	}
	return (x * 2654435761) >> 16
}

func countGrams(sample []byte, n int) *gramCounts {
	g := &gramCounts{n: n}
	for i := 0; i+n <= len(sample); i++ {
		if h := gramHash(sample[i : i+n]); g.c[h] < 255 {
			g.c[h]++
		}
	}
	return g
}

func (g *gramCounts) count(w []byte) int { return int(g.c[gramHash(w)]) }
