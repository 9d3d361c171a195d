package hlo

import (
	"strings"
)

// The grammars of the values that XLA's parser checks and real dumps print: layouts, the
// module's input_output_alias and buffer_donor, window and result_accuracy. Each reader
// follows XLA's grammar from the current position and reports the first error where it is.

// isElemType reports whether s is an element type XLA prints (the lower-cased PrimitiveType
// names; opaque_type is an older spelling of opaque).
func isElemType(s string) bool {
	switch s {
	case "pred", "s1", "s2", "s4", "s8", "s16", "s32", "s64", "u1", "u2", "u4", "u8", "u16", "u32", "u64",
		"f16", "f32", "f64", "bf16", "c64", "c128", "token", "opaque", "opaque_type",
		"f8e5m2", "f8e4m3", "f8e4m3fn", "f8e4m3b11fnuz", "f8e3m4", "f8e5m2fnuz", "f8e4m3fnuz",
		"f8e8m0fnu", "f4e2m1fn", "f6e2m3fn", "f6e3m2fn":
		return true
	}
	return false
}

// intTok reads an integer, with an optional '-'.
func (p *parser) intTok() bool {
	p.skip()
	i := p.pos
	if i < len(p.src) && p.src[i] == '-' {
		i++
	}
	j := i
	for j < len(p.src) && isDigit(p.src[j]) {
		j++
	}
	if j == i {
		return false
	}
	p.pos = j
	return true
}

// word reads the letters, digits and '_' at the current position.
func (p *parser) word() string {
	p.skip()
	s := p.pos
	for p.pos < len(p.src) && (isIdentStart(p.src[p.pos]) || isDigit(p.src[p.pos])) {
		p.pos++
	}
	return p.str(p.src[s:p.pos])
}

// layoutWord takes the layout section letter w if it stands at the current position.
func (p *parser) layoutWord(w string) bool {
	p.skip()
	end := p.pos + len(w)
	if end <= len(p.src) && string(p.src[p.pos:end]) == w && (end == len(p.src) || !isIdentChar(p.src[end])) {
		p.pos = end
		return true
	}
	return false
}

// layoutGrammar reads a layout after its '{' at ls, up to and with the '}':
//
//	minor_to_major [':' [D(types)] [T(tile)...] [L(n)] [#(utype)] [*(utype)] [E(n)] [S(n)] [SC(d:i,...)...] [P(shape)] [M(n)]]
//
// The sections come in this order, as XLA's ParseLayout reads them. The layout is kept as
// text, without white space and comments.
//
// (Its cyclomatic complexity is over 25: it follows the grammar's sections in order, one
// optional step each, which reads better whole than split into helpers.)
func (p *parser) layoutGrammar(s *Shape, ls, depth int) bool {
	if c := p.peek(); isDigit(c) || c == '-' {
		for {
			if !p.intTok() {
				p.expectedWord("dimension number in layout")
				return false
			}
			if !p.accept(',') {
				break
			}
		}
	}
	if p.accept(':') {
		if p.layoutWord("D") && !p.parenList("dimension level type", p.dimLevelType) {
			return false
		}
		if p.layoutWord("T") {
			if p.peek() != '(' {
				return p.expect('(')
			}
			for p.peek() == '(' {
				if !p.parenList("tile dimension", p.tileDim) {
					return false
				}
			}
		}
		if p.layoutWord("L") && !p.parenInt() {
			return false
		}
		if p.accept('#') && !p.parenUnsigned() {
			return false
		}
		if p.accept('*') && !p.parenUnsigned() {
			return false
		}
		if p.layoutWord("E") && !p.parenInt() {
			return false
		}
		if p.layoutWord("S") && !p.parenInt() {
			return false
		}
		if p.layoutWord("SC") {
			if p.peek() != '(' {
				return p.expect('(')
			}
			for p.peek() == '(' {
				if !p.splitConfig() {
					return false
				}
			}
		}
		if p.layoutWord("P") {
			if depth >= MaxTupleDepth {
				p.errorf("shapes nested deeper than %d levels", MaxTupleDepth)
				return false
			}
			if !p.expect('(') {
				return false
			}
			if _, ok := p.shapeAt(depth + 1); !ok {
				return false
			}
			if !p.expect(')') {
				return false
			}
		}
		if p.layoutWord("M") && !p.parenInt() {
			return false
		}
	}
	if p.peek() != '}' {
		p.expectedWord("'}' to close layout")
		return false
	}
	s.Layout = cleanLayout(p.str(p.src[ls:p.pos]))
	s.HasLayout = true
	p.pos++
	return true
}

// cleanLayout drops white space and comments from a layout's text.
func cleanLayout(t string) string {
	if !strings.ContainsAny(t, " \t\r\n/") {
		return t
	}
	var b strings.Builder
	for i := 0; i < len(t); i++ {
		switch c := t[i]; {
		case c == ' ' || c == '\t' || c == '\r' || c == '\n':
		case c == '/' && i+1 < len(t) && t[i+1] == '*':
			end := strings.Index(t[i+2:], "*/")
			if end < 0 {
				return b.String()
			}
			i += end + 3
		case c == '/' && i+1 < len(t) && t[i+1] == '/':
			for i+1 < len(t) && t[i+1] != '\n' && t[i+1] != '\r' {
				i++
			}
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// parenList reads '(' [item (',' item)*] ')'.
func (p *parser) parenList(what string, item func() bool) bool {
	if !p.expect('(') {
		return false
	}
	if p.accept(')') {
		return true
	}
	for {
		if !item() {
			p.expectedWord(what)
			return false
		}
		if !p.accept(',') {
			return p.expect(')')
		}
	}
}

// dimLevelType reads D, C, S or H with an optional '+' and '~'.
func (p *parser) dimLevelType() bool {
	p.skip()
	m := p.mark()
	switch p.word() {
	case "D", "C", "S", "H":
		p.accept('+')
		p.accept('~')
		return true
	}
	p.reset(m)
	return false
}

// tileDim reads a tile dimension: an integer, or '*' (combined).
func (p *parser) tileDim() bool { return p.accept('*') || p.intTok() }

// parenInt reads '(' integer ')'.
func (p *parser) parenInt() bool {
	if !p.expect('(') {
		return false
	}
	if !p.intTok() {
		p.expectedWord("integer")
		return false
	}
	return p.expect(')')
}

// parenUnsigned reads '(' unsigned integer type ')'.
func (p *parser) parenUnsigned() bool {
	if !p.expect('(') {
		return false
	}
	p.skip()
	m := p.mark()
	switch p.word() {
	case "u1", "u2", "u4", "u8", "u16", "u32", "u64":
	default:
		p.reset(m)
		p.expectedWord("unsigned integer type")
		return false
	}
	return p.expect(')')
}

// splitConfig reads '(' dimension ':' [index (',' index)*] ')'.
func (p *parser) splitConfig() bool {
	if !p.expect('(') {
		return false
	}
	if !p.intTok() {
		p.expectedWord("split dimension")
		return false
	}
	if !p.expect(':') {
		return false
	}
	if p.accept(')') {
		return true
	}
	for {
		if !p.intTok() {
			p.expectedWord("split index")
			return false
		}
		if !p.accept(',') {
			return p.expect(')')
		}
	}
}

// braceList reads '{' [item (',' item)*] '}'; item reports its own errors.
func (p *parser) braceList(item func() bool) bool {
	if !p.expect('{') {
		return false
	}
	for p.peek() != '}' {
		if !item() {
			return false
		}
		if !p.accept(',') {
			break
		}
	}
	return p.expect('}')
}

// shapeIndex reads '{' [integer (',' integer)*] '}'.
func (p *parser) shapeIndex() bool {
	return p.braceList(func() bool {
		if !p.intTok() {
			p.expectedWord("integer in shape index")
			return false
		}
		return true
	})
}

// aliasing reads the module's input_output_alias:
//
//	'{' [output_index ':' '(' parameter ',' parameter_index [',' (must-alias|may-alias)] ')' (',' ...)*] '}'
func (p *parser) aliasing() bool {
	return p.braceList(func() bool {
		if !p.shapeIndex() || !p.expect(':') || !p.expect('(') || !p.paramNumber() || !p.expect(',') || !p.shapeIndex() {
			return false
		}
		if p.accept(',') {
			p.skip()
			m := p.mark()
			if k := p.name(); k != "must-alias" && k != "may-alias" {
				p.reset(m)
				p.expectedWord("must-alias or may-alias")
				return false
			}
		}
		return p.expect(')')
	})
}

// bufferDonor reads the module's buffer_donor: '{' ['(' parameter ',' parameter_index ')' (',' ...)*] '}'.
func (p *parser) bufferDonor() bool {
	return p.braceList(func() bool {
		return p.expect('(') && p.paramNumber() && p.expect(',') && p.shapeIndex() && p.expect(')')
	})
}

// paramNumber reads the parameter number of an aliasing or a buffer donor.
func (p *parser) paramNumber() bool {
	if !p.intTok() {
		p.expectedWord("parameter number")
		return false
	}
	return true
}

// window reads '{' sub-attributes '}': size, stride, lhs_dilate, rhs_dilate and rhs_reversal
// as NxN..., pad as low_high per dimension joined by 'x', each at most once, separated by
// white space. Every one given has as many dimensions as size.
func (p *parser) window() bool {
	start := p.mark()
	if !p.expect('{') {
		return false
	}
	names := [...]string{"size", "stride", "pad", "lhs_dilate", "rhs_dilate", "rhs_reversal"}
	var n [len(names)]int // dimensions of each sub-attribute, 0 when absent
	for p.peek() != '}' {
		if p.pos >= len(p.src) {
			return p.expect('}')
		}
		m := p.mark()
		key := p.word()
		k := -1
		for i, nm := range names {
			if key == nm {
				k = i
			}
		}
		if k < 0 || p.pos >= len(p.src) || p.src[p.pos] != '=' {
			p.reset(m)
			p.expectedWord("size=, stride=, pad=, lhs_dilate=, rhs_dilate= or rhs_reversal= in window")
			return false
		}
		if n[k] > 0 {
			p.errorAt(m.pos, m.line, m.lineStart, "window has a second %s=", key)
			return false
		}
		p.pos++
		p.skip()
		if key == "pad" {
			n[k] = p.windowPad()
		} else {
			n[k] = p.dxd()
		}
		if n[k] == 0 {
			return false
		}
	}
	for k := 1; k < len(names); k++ {
		if n[k] > 0 && k != 5 && n[k] != n[0] {
			p.errorAt(start.pos, start.line, start.lineStart, "window %s= has %d dimensions, size= has %d", names[k], n[k], n[0])
			return false
		}
	}
	p.pos++
	return true
}

// dxd reads N or NxNx... and returns how many numbers it read, 0 after an error.
func (p *parser) dxd() int {
	s := p.pos
	if !p.intTok() {
		p.expectedWord("NxN... in window")
		return 0
	}
	n := 1
	for p.pos+1 < len(p.src) && p.src[p.pos] == 'x' && isDigit(p.src[p.pos+1]) && p.src[s] != '-' {
		p.pos++
		p.intTok()
		n++
	}
	if p.pos < len(p.src) && isIdentChar(p.src[p.pos]) {
		p.pos = s
		p.expectedWord("NxN... in window")
		return 0
	}
	return n
}

// windowPad reads low_high, or low_highxlow_high..., and returns the number of dimensions, 0
// after an error. Unlike a pad instruction's padding, a window's has no interior padding.
func (p *parser) windowPad() int {
	s := p.pos
	end := s
	for end < len(p.src) && (isDigit(p.src[end]) || p.src[end] == '_' || p.src[end] == 'x' || p.src[end] == '-') {
		end++
	}
	tok := string(p.src[s:end])
	dims := strings.Split(tok, "x")
	ok := end > s && (end == len(p.src) || !isIdentChar(p.src[end]))
	for _, d := range dims {
		lh := strings.Split(d, "_")
		ok = ok && len(lh) == 2 && isIntSyntax(lh[0]) && isIntSyntax(lh[1]) // (no '+': the token has none)
	}
	if !ok {
		p.expectedWord("padding low_high in window")
		return 0
	}
	p.pos = end
	return len(dims)
}

// resultAccuracy reads '{' mode=NAME '}' or '{' tolerance={[atol|rtol|ulps=number, ...]} '}'.
func (p *parser) resultAccuracy() bool {
	if !p.expect('{') {
		return false
	}
	p.skip()
	m := p.mark()
	key := p.word()
	if (key != "mode" && key != "tolerance") || p.pos >= len(p.src) || p.src[p.pos] != '=' {
		p.reset(m)
		p.expectedWord("mode= or tolerance= in result_accuracy")
		return false
	}
	p.pos++
	if key == "mode" {
		if p.ident() == "" {
			p.expectedWord("result accuracy mode")
			return false
		}
		return p.expect('}')
	}
	return p.braceList(func() bool {
		m := p.mark()
		key := p.word()
		if (key != "atol" && key != "rtol" && key != "ulps") || p.pos >= len(p.src) || p.src[p.pos] != '=' {
			p.reset(m)
			p.expectedWord("atol=, rtol= or ulps= in result_accuracy tolerance")
			return false
		}
		p.pos++
		p.skip()
		if !p.number() {
			p.expectedWord("number")
			return false
		}
		return true
	}) && p.expect('}')
}
