package hlo

import (
	"bytes"
	"strings"
)

// CanonicalLiteral returns a constant's literal with white space and comments removed and
// every number printed in one way, so that literals printed by different XLA versions compare equal when
// their values are equal (1 and 1.0, 7.4505806e-09 and 7.4505806e-9).
func CanonicalLiteral(lit string) string {
	var b strings.Builder
	b.Grow(len(lit))
	WriteCanonicalLiteral(&b, lit)
	return b.String()
}

// literal checks a constant's literal against its shape s, from the current position up to
// (not including) the ')' that closes it, as XLA's ParseLiteral does: one value for a scalar,
// one brace level per dimension with as many elements as the dimension has (not checked for
// dynamic dimensions), {...} for an elided array, (re, im) for complex values, and
// (literal, ...) for a tuple. Values are numbers, true, false, inf and nan; they are not
// checked against the element type's range.
func (p *parser) literal(s Shape, depth int) bool {
	if s.IsTuple {
		return p.tupleLiteral(s, depth)
	}
	p.skip()
	if len(s.Dims) == 0 {
		return p.literalValue(s)
	}
	return p.denseLiteral(s)
}

// tupleLiteral reads '(' literal, ... ')' for the elements of tuple shape s.
func (p *parser) tupleLiteral(s Shape, depth int) bool {
	if depth >= MaxTupleDepth {
		p.errorf("tuple literal nested deeper than %d levels", MaxTupleDepth)
		return false
	}
	if !p.expect('(') {
		return false
	}
	if p.accept(')') {
		return true
	}
	for i, t := range s.Tuple {
		if i > 0 && !p.expect(',') {
			return false
		}
		if !p.literal(t, depth+1) {
			return false
		}
	}
	return p.expect(')')
}

// literalValue reads one element: a number, or (re, im) for a complex element type.
func (p *parser) literalValue(s Shape) bool {
	if p.pos < len(p.src) && p.src[p.pos] == '(' {
		if s.Elem != "c64" && s.Elem != "c128" {
			p.errorf("expected number, found '(' (%s is not complex)", s.Elem)
			return false
		}
		p.pos++
		p.skip()
		if !p.number() {
			p.expectedWord("real part of a complex number")
			return false
		}
		if !p.expect(',') {
			return false
		}
		p.skip()
		if !p.number() {
			p.expectedWord("imaginary part of a complex number")
			return false
		}
		return p.expect(')')
	}
	if !p.number() {
		p.expectedWord("number")
		return false
	}
	return true
}

// denseLiteral reads the nested braces of an array literal of shape s (rank > 0).
//
// (Its cyclomatic complexity is over 25: it is XLA's literal grammar, one loop with a case per
// token, counting the elements of each dimension, which reads better whole.)
func (p *parser) denseLiteral(s Shape) bool {
	rank := len(s.Dims)
	var small [8]int64
	var seen []int64
	if rank <= len(small) {
		seen = small[:rank]
	} else {
		seen = make([]int64, rank)
	}
	// checked reports whether dimension i has a static size to count against.
	checked := func(i int) bool { return s.Dims[i] >= 0 && (i >= 64 || s.Bounded&(1<<uint(i)) == 0) }
	level := 0
	for {
		p.skip()
		if p.pos >= len(p.src) {
			p.expected("'}' to close the literal")
			return false
		}
		switch c := p.src[p.pos]; {
		case c == '{':
			if level == rank {
				p.errorf("expected number, found '{' (%s has rank %d)", s.NoLayout(), rank)
				return false
			}
			if level > 0 {
				seen[level-1]++
				if checked(level-1) && seen[level-1] > s.Dims[level-1] {
					p.errorf("expected '}', found '{' (dimension %d of %s has %d elements)", level-1, s.NoLayout(), s.Dims[level-1])
					return false
				}
			}
			level++
			seen[level-1] = 0
			p.pos++
		case c == '}':
			if level == 0 {
				p.expected("'{'")
				return false
			}
			if checked(level-1) && seen[level-1] != s.Dims[level-1] {
				p.errorf("expected %d elements in dimension %d of %s, found %d", s.Dims[level-1], level-1, s.NoLayout(), seen[level-1])
				return false
			}
			level--
			p.pos++
			if level == 0 {
				return true
			}
		case c == ',':
			if level == 0 {
				p.expected("'{'")
				return false
			}
			p.pos++
		case c == '.' && p.pos+2 < len(p.src) && p.src[p.pos+1] == '.' && p.src[p.pos+2] == '.':
			if level != 1 {
				p.errorf("expected number, found '...' (only a whole literal is elided, as {...})")
				return false
			}
			seen[0] = s.Dims[0]
			p.pos += 3
		default:
			if level != rank {
				p.errorf("expected '{', found %s (%s has rank %d)", p.foundWord(), s.NoLayout(), rank)
				return false
			}
			seen[rank-1]++
			if checked(rank-1) && seen[rank-1] > s.Dims[rank-1] {
				p.errorf("expected '}', found %s (dimension %d of %s has %d elements)", p.foundWord(), rank-1, s.NoLayout(), s.Dims[rank-1])
				return false
			}
			if !p.literalValue(s) {
				return false
			}
		}
	}
}

// number reads a literal value: an integer or decimal number, true, false, inf, -inf, nan or
// -nan, and a nan's payload (nan(0x7f)).
func (p *parser) number() bool {
	s := p.pos
	end := s
	for end < len(p.src) && (isIdentChar(p.src[end]) || p.src[end] == '+') {
		end++
	}
	tok := p.str(p.src[s:end])
	if !isNumber(tok) {
		return false
	}
	p.pos = end
	if (tok == "nan" || tok == "-nan") && p.pos+3 < len(p.src) && p.src[p.pos] == '(' {
		q := p.pos + 1
		if p.src[q] != '0' || p.src[q+1] != 'x' {
			p.pos = q
			p.expectedWord("nan payload 0x...")
			return false
		}
		q += 2
		h := q
		for q < len(p.src) && (isDigit(p.src[q]) || p.src[q] >= 'a' && p.src[q] <= 'f' || p.src[q] >= 'A' && p.src[q] <= 'F') {
			q++
		}
		if q == h || q >= len(p.src) || p.src[q] != ')' {
			p.pos = q
			p.expectedWord("')' after a nan payload")
			return false
		}
		p.pos = q + 1
	}
	return true
}

// isNumber reports whether t is a literal value as XLA's lexer reads one.
func isNumber(t string) bool {
	switch t {
	case "true", "false", "inf", "-inf", "nan", "-nan":
		return true
	}
	i := 0
	if i < len(t) && t[i] == '-' {
		i++
	}
	digits := 0
	for i < len(t) && isDigit(t[i]) {
		i++
		digits++
	}
	if i < len(t) && t[i] == '.' {
		i++
		for i < len(t) && isDigit(t[i]) {
			i++
			digits++
		}
	}
	if digits == 0 {
		return false
	}
	if i < len(t) && (t[i] == 'e' || t[i] == 'E') {
		i++
		if i < len(t) && (t[i] == '+' || t[i] == '-') {
			i++
		}
		e := i
		for i < len(t) && isDigit(t[i]) {
			i++
		}
		if i == e {
			return false
		}
	}
	return i == len(t)
}

// literalAttr reads the value of a custom-call's literal= attribute: a shape and a literal
// of it (literal=s32[2]{0} {1, 2}), or a tuple of those in parentheses.
func (p *parser) literalAttr() (string, bool) {
	p.skip()
	start := p.pos
	if !p.typedLiteral(0) {
		return "", false
	}
	if p.pos < len(p.src) && !endsValue(p.src[p.pos]) {
		p.expectedWord("',' after the value of literal")
		return "", false
	}
	return p.text(start, bytes.ContainsAny(p.src[start:p.pos], "\n\t\r%/")), true
}

// typedLiteral reads shape literal, or '(' typedLiteral, ... ')'.
func (p *parser) typedLiteral(depth int) bool {
	if depth >= MaxTupleDepth {
		p.errorf("tuple literal nested deeper than %d levels", MaxTupleDepth)
		return false
	}
	if p.pos < len(p.src) && p.src[p.pos] == '(' {
		p.pos++
		for p.peek() != ')' {
			if !p.typedLiteral(depth + 1) {
				return false
			}
			if p.peek() != ')' && !p.expect(',') {
				return false
			}
			p.skip()
		}
		p.pos++
		return true
	}
	s, ok := p.shapeAt(depth)
	if !ok {
		return false
	}
	return p.literal(s, depth)
}
