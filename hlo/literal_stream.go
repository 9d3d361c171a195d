package hlo

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/cespare/xxhash/v2"
)

// Constants can be huge (a dumped weight matrix of hundreds of MB is one literal). These
// functions read a literal as CanonicalLiteral does, piece by piece, without building its
// canonical form: a fingerprint hashes it as it goes, a comparison stops holding nothing, and a
// report shows a summary instead of the values.

// litScanner yields the pieces of a literal that CanonicalLiteral keeps: the structural
// characters { } ( ) , and the tokens between them; white space is skipped.
type litScanner struct {
	s string
	i int
}

func isLitSep(c byte) bool {
	switch c {
	case '{', '}', '(', ')', ',', ' ', '\t', '\n', '\r':
		return true
	}
	return false
}

// next returns the next piece and whether it is a token (a number, true, ..., nan); ok is false
// at the end.
func (l *litScanner) next() (piece string, token, ok bool) {
	for l.i < len(l.s) {
		c := l.s[l.i]
		switch c {
		case ' ', '\t', '\n', '\r':
			l.i++
			continue
		case '{', '}', '(', ')', ',':
			l.i++
			return l.s[l.i-1 : l.i], false, true
		case '/':
			// A comment, skipped as CanonicalLiteral skips it: /*i0=0*/ before the rows of a
			// literal (an unclosed one ends the literal), or to the end of the line.
			if l.i+1 < len(l.s) && l.s[l.i+1] == '*' {
				end := strings.Index(l.s[l.i+2:], "*/")
				if end < 0 {
					l.i = len(l.s)
					return "", false, false
				}
				l.i += end + 4
			} else {
				for l.i < len(l.s) && l.s[l.i] != '\n' && l.s[l.i] != '\r' {
					l.i++
				}
			}
			continue
		}
		start := l.i
		for l.i < len(l.s) && !isLitSep(l.s[l.i]) && l.s[l.i] != '/' {
			l.i++
		}
		return l.s[start:l.i], true, true
	}
	return "", false, false
}

// appendCanonicalNumber appends token t printed in one way to dst, without allocating: an
// integer value as an integer (1.0 as 1), any other number as strconv's shortest 'g' form,
// and anything else (true, inf, nan(0x7f), ...) as it is.
func appendCanonicalNumber(dst []byte, t string) []byte {
	switch t {
	case "true", "false", "...", "inf", "-inf", "nan", "-nan":
		return append(dst, t...)
	}
	if strings.HasPrefix(t, "nan(") || strings.HasPrefix(t, "-nan(") {
		return append(dst, t...)
	}
	if isIntSyntax(t) { // (ParseInt allocates an error for every float it is handed)
		if v, err := strconv.ParseInt(t, 10, 64); err == nil {
			return strconv.AppendInt(dst, v, 10)
		}
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || math.IsInf(v, 0) || math.IsNaN(v) {
		return append(dst, t...)
	}
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return strconv.AppendInt(dst, int64(v), 10)
	}
	return strconv.AppendFloat(dst, v, 'g', -1, 64)
}

// isIntSyntax reports whether t is an optional sign and decimal digits: the only tokens
// strconv.ParseInt(t, 10, 64) can accept.
func isIntSyntax(t string) bool {
	if t != "" && (t[0] == '-' || t[0] == '+') {
		t = t[1:]
	}
	if t == "" {
		return false
	}
	for i := 0; i < len(t); i++ {
		if t[i] < '0' || t[i] > '9' {
			return false
		}
	}
	return true
}

// nextCanonical appends the next piece of the canonical form to buf[:0] and returns it (a
// token as appendCanonicalNumber prints it); ok is false at the end.
func (l *litScanner) nextCanonical(buf []byte) (piece []byte, ok bool) {
	p, tok, ok := l.next()
	if tok {
		return appendCanonicalNumber(buf[:0], p), ok
	}
	return append(buf[:0], p...), ok
}

// WriteCanonicalLiteral writes the bytes of CanonicalLiteral(lit) to w, piece by piece, never
// holding the canonical form (a fingerprint of a module with a 100 MB constant).
func WriteCanonicalLiteral(w io.Writer, lit string) {
	var buf [64]byte
	sc := litScanner{s: lit}
	for p, ok := sc.nextCanonical(buf[:0]); ok; p, ok = sc.nextCanonical(buf[:0]) {
		w.Write(p)
	}
}

// hashCanonicalLiteral is WriteCanonicalLiteral into a digest (a concrete type: the digest of
// each instruction stays on the stack).
func hashCanonicalLiteral(d *xxhash.Digest, lit string) {
	var buf [64]byte
	sc := litScanner{s: lit}
	for p, ok := sc.nextCanonical(buf[:0]); ok; p, ok = sc.nextCanonical(buf[:0]) {
		d.Write(p)
	}
}

// LiteralDiff is how two literals compare as their canonical forms would.
type LiteralDiff struct {
	Equal bool
	// Elements counts the tokens (numbers) of each literal.
	Elements [2]int
	// Differ counts the elements that differ at the same position; First is the index of the
	// first of them (-1 when none), Old and New its values as printed.
	Differ   int
	First    int
	Old, New string
	// Shape says the literals differ in their structure (nesting or number of elements), so
	// the elements after the first structural difference are not compared.
	Shape bool
}

// CompareLiterals compares two literals as CanonicalLiteral(a) == CanonicalLiteral(b) would,
// piece by piece, without building either canonical form, and says where they differ.
func CompareLiterals(a, b string) LiteralDiff {
	d := LiteralDiff{First: -1}
	sa, sb := litScanner{s: a}, litScanner{s: b}
	var ba, bb [64]byte
	for !d.Shape {
		pa, ta, oka := sa.next()
		pb, tb, okb := sb.next()
		switch {
		case !oka && !okb:
			d.Equal = d.Differ == 0
			return d
		case oka != okb || ta != tb || !ta && pa != pb:
			d.Shape = true
			if ta {
				d.Elements[0]++
			}
			if tb {
				d.Elements[1]++
			}
			continue
		case !ta:
			continue
		}
		d.Elements[0]++
		d.Elements[1]++
		if pa == pb || string(appendCanonicalNumber(ba[:0], pa)) == string(appendCanonicalNumber(bb[:0], pb)) {
			continue
		}
		if d.Differ == 0 {
			d.First, d.Old, d.New = d.Elements[0]-1, pa, pb
		}
		d.Differ++
	}
	d.Elements[0] += countTokens(&sa)
	d.Elements[1] += countTokens(&sb)
	return d
}

func countTokens(sc *litScanner) int {
	n := 0
	for {
		_, tok, ok := sc.next()
		if !ok {
			return n
		}
		if tok {
			n++
		}
	}
}

// LiteralSummary says what a literal holds without its values: its first elements as printed,
// how many there are, its size, and the xxhash of its text (different digests, different text),
// e.g. "{0.5, 1.5, 2.5, 3.5, …} (14000000 elements, 92.0 MiB, xxhash 5f2a9c1e7b3d4410)".
func LiteralSummary(lit string) string {
	const head = 4
	sc := litScanner{s: lit}
	cut, n := 0, 0
	for n < head {
		_, tok, ok := sc.next()
		if !ok {
			break
		}
		if tok {
			n++
			cut = sc.i
		}
	}
	prefix := strings.TrimSpace(lit[:cut])
	n += countTokens(&sc)
	return fmt.Sprintf("%s, …} (%d elements, %s, xxhash %016x)", prefix, n, sizeString(len(lit)), xxhash.Sum64String(lit))
}

func sizeString(n int) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
