package logscan

import (
	"bytes"
	"slices"
)

// shortAnchor is the length under which an anchor is searched for by the portable shift table
// with the sweep words, where the other anchors are all at least that long: a shift table's
// window is its shortest literal's, and one 6-byte anchor among 10-byte ones would shorten the
// distance it skips over every log (Keras's "Epoch " and "s/step": 34 % slower over a log without
// them, measured with a 5-byte one). The sweep words' table already has a window of 6.
const shortAnchor = 8

// splitAnchors puts apart the anchors shorter than shortAnchor, when some are at least that long.
func splitAnchors(anchors []string) (long, short []string) {
	for _, a := range anchors {
		if len(a) < shortAnchor {
			short = append(short, a)
		} else {
			long = append(long, a)
		}
	}
	if len(long) == 0 {
		return short, nil
	}
	return long, short
}

// anchorPats are the anchors' literals, the short ones last.
func (p *prefilter) anchorPats() [][]byte {
	if len(p.short) == 0 {
		return p.pats
	}
	return slices.Concat(p.pats, p.short)
}

// anchorLines is shiftLines for every anchor, the short ones included.
func (p *prefilter) anchorLines(text []byte, base int, out []span) []span {
	first := len(out)
	out = p.shiftLines(text, base, out)
	if len(p.short) > 0 {
		out, _ = p.promote(text, base, out, first, p.sweep.shiftLines(text, base, nil), 0)
	}
	return out
}

// promote moves the lines of swept[from:] (found by the sweep's table) that hold a short anchor
// into out[first:] (the lines the other anchors' table found in text), in order, each once.
func (p *prefilter) promote(text []byte, base int, out []span, first int, swept []span, from int) ([]span, []span) {
	var more []span
	keep := swept[:from]
	for _, sw := range swept[from:] {
		line := text[sw.start-base : sw.end-base]
		if slices.ContainsFunc(p.short, func(a []byte) bool { return bytes.Contains(line, a) }) {
			more = append(more, sw)
		} else {
			keep = append(keep, sw)
		}
	}
	if len(more) == 0 {
		return out, keep
	}
	found := slices.Clone(out[first:])
	out = out[:first]
	i, j := 0, 0
	for i < len(found) || j < len(more) {
		switch {
		case j == len(more) || i < len(found) && found[i].start < more[j].start:
			out = append(out, found[i])
			i++
		case i == len(found) || more[j].start < found[i].start:
			out = append(out, more[j])
			j++
		default: // the same line
			out = append(out, found[i])
			i, j = i+1, j+1
		}
	}
	return out, keep
}
