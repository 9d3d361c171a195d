package logscan

import (
	"bytes"
	"fmt"
	"regexp"
	"regexp/syntax"
)

// LineRegexp is a regular expression matched against each line of a log as a user reads it (the
// warm-up marker of --after): ^ and $ are the start and end of the line, after the prefixes a
// launcher or recomp run put before it (timestamps, rank labels) and without its line ending. Each piece of a line a terminal redraws (split at \r) is a line of its own.
type LineRegexp struct {
	expr string
	line *regexp.Regexp // the user's expression, matched against one line
	wide *regexp.Regexp // the same without anchors: finds candidate lines in a whole region
}

// NewLineRegexp compiles an expression matched line by line (an --after marker).
func NewLineRegexp(expr string) (*LineRegexp, error) {
	line, err := regexp.Compile(expr)
	if err != nil {
		return nil, fmt.Errorf("warm-up marker %q: %v", expr, err)
	}
	tree, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return nil, fmt.Errorf("warm-up marker %q: %v", expr, err)
	}
	wide, err := regexp.Compile(unanchor(tree).String())
	if err != nil {
		return nil, fmt.Errorf("warm-up marker %q: %v", expr, err)
	}
	return &LineRegexp{expr: expr, line: line, wide: wide}, nil
}

// String returns the expression as the user wrote it.
func (m *LineRegexp) String() string { return m.expr }

// MatchLine reports whether one line of a log (its line ending removed) matches.
func (m *LineRegexp) MatchLine(line []byte) bool {
	for len(line) > 0 {
		seg := line
		if i := bytes.IndexByte(line, '\r'); i >= 0 {
			seg, line = line[:i], line[i+1:]
		} else {
			line = nil
		}
		if bytes.IndexByte(seg, 0x1b) >= 0 {
			seg = reANSI.ReplaceAll(seg, nil)
		}
		if bytes.Contains(seg, []byte("]<std")) {
			seg, _ = stripMPITags(seg)
		}
		seg, _ = stripOrchestrator(seg)
		if m.line.Match(seg) {
			return true
		}
	}
	return false
}

// unanchor replaces the line and text anchors of a parsed expression by empty matches: the result
// matches wherever the expression matches a line, and perhaps elsewhere.
func unanchor(re *syntax.Regexp) *syntax.Regexp {
	switch re.Op {
	case syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText:
		return &syntax.Regexp{Op: syntax.OpEmptyMatch}
	}
	for i, sub := range re.Sub {
		re.Sub[i] = unanchor(sub)
	}
	return re
}

// markerHit is a line that matched the marker: its offset in a region and its rank.
type markerHit struct {
	at   int
	rank string
}

// findMarkers returns the lines of region that match the marker and are the first match of
// their rank: once one was found, a log whose lines carry no rank is searched no further.
func (s *Scanner) findMarkers(region []byte) []markerHit {
	m := s.opt.Marker
	if m == nil || (s.markersOut > 0 && !s.ranked) {
		return nil
	}
	var out []markerHit
	seen := map[string]bool{}
	for from := 0; from < len(region); {
		loc := m.wide.FindIndex(region[from:])
		if loc == nil {
			break
		}
		start := bytes.LastIndexByte(region[:from+loc[0]], '\n') + 1
		end := indexByteFrom(region, '\n', from+loc[0])
		if end < 0 {
			end = len(region)
		}
		from = end + 1
		line := region[start:end]
		if !m.MatchLine(line) {
			continue
		}
		c, rank := s.cleanQuiet(line)
		if _, h := stripOrchestrator(c); h.rank != "" {
			rank = h.rank
		}
		if p := s.procs[rank]; (p != nil && p.markerFound) || seen[rank] {
			continue
		}
		seen[rank] = true
		out = append(out, markerHit{at: start, rank: rank})
		if !s.ranked && rank == "" {
			break
		}
	}
	return out
}
