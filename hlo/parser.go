package hlo

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
	"unsafe"
)

// Parse parses the HLO text of one module. file is used in error positions. The returned
// module's strings share memory with src: src must not be modified afterwards.
//
// On errors Parse returns the partial module (never nil) and an ErrorList.
func Parse(file string, src []byte) (*Module, error) {
	p := &parser{src: src, file: file, line: 1}
	m := p.parseModule()
	m.File = file
	return m, p.errs.Err()
}

type parser struct {
	src       []byte
	pos       int
	line      int
	lineStart int
	file      string
	errs      ErrorList

	instrSlab []Instruction
	dimSlab   []int64
	strSlab   []string
	attrSlab  []Attr

	// refs are the tuple-element references (x#N) of the computation being read, in order of
	// first use; refSeen indexes them by name.
	refs    []tupleRef
	refSeen map[string]bool
}

// tupleRef is one x#N operand: the get-tuple-element it stands for.
type tupleRef struct {
	name, base, index string
	user              *Instruction
	line              int
}

func (p *parser) tupleRef(name, base, index string, user *Instruction) {
	if p.refSeen == nil {
		p.refSeen = map[string]bool{}
	}
	if p.refSeen[name] {
		return
	}
	p.refSeen[name] = true
	p.refs = append(p.refs, tupleRef{name: name, base: base, index: index, user: user, line: p.line})
}

// materializeRefs adds to c a get-tuple-element instruction for each x#N reference, just
// before its first user, with the element's shape: the module is then the one an older XLA
// printed with explicit get-tuple-elements, and compares equal to it.
func (p *parser) materializeRefs(c *Computation) {
	if len(p.refs) == 0 {
		return
	}
	shapes := make(map[string]Shape, len(c.Instructions)+len(p.refs))
	for _, in := range c.Instructions {
		shapes[in.Name] = in.Shape
	}
	before := map[*Instruction][]*Instruction{}
	for _, r := range p.refs {
		gte := p.newInstruction()
		*gte = Instruction{Name: r.name, Opcode: "get-tuple-element", Operands: []string{r.base}, Param: -1, Line: r.line,
			Attrs: []Attr{{Name: "index", Value: r.index}}}
		if bs, ok := shapes[r.base]; ok && bs.IsTuple {
			if k, err := strconv.Atoi(r.index); err == nil && k < len(bs.Tuple) {
				gte.Shape = bs.Tuple[k]
			}
		}
		shapes[r.name] = gte.Shape
		before[r.user] = append(before[r.user], gte)
	}
	out := make([]*Instruction, 0, len(c.Instructions)+len(p.refs))
	for _, in := range c.Instructions {
		out = append(out, before[in]...)
		out = append(out, in)
	}
	c.Instructions = out
	p.refs, p.refSeen = p.refs[:0], nil
}

// bailout stops parsing once there are too many errors.
type bailout struct{}

func (p *parser) str(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

func (p *parser) errorAt(pos, line, lineStart int, format string, args ...any) {
	col := 1
	if pos > lineStart && pos <= len(p.src) {
		col = utf8.RuneCount(p.src[lineStart:pos]) + 1
	}
	p.errs = append(p.errs, &Error{File: p.file, Line: line, Col: col, Msg: fmt.Sprintf(format, args...)})
	if len(p.errs) >= MaxErrors {
		panic(bailout{})
	}
}

func (p *parser) errorf(format string, args ...any) {
	p.errorAt(p.pos, p.line, p.lineStart, format, args...)
}

// expected reports "expected WHAT, found TOKEN" at the current position.
func (p *parser) expected(what string) {
	p.errorf("expected %s, found %s", what, p.found())
}

func (p *parser) found() string {
	if p.pos >= len(p.src) {
		return "end of file"
	}
	c := p.src[p.pos]
	if isIdentStart(c) || c == '%' {
		end := p.pos + 1
		for end < len(p.src) && isIdentChar(p.src[end]) && end-p.pos < 40 {
			end++
		}
		return strconv.Quote(string(p.src[p.pos:end]))
	}
	r, _ := utf8.DecodeRune(p.src[p.pos:])
	return strconv.QuoteRune(r)
}

func isIdentStart(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_'
}

func isIdentChar(c byte) bool {
	return isIdentStart(c) || c >= '0' && c <= '9' || c == '.' || c == '-'
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// skip skips white space and comments.
func (p *parser) skip() {
	src := p.src
	for p.pos < len(src) {
		switch src[p.pos] {
		case '\n':
			p.pos++
			p.line++
			p.lineStart = p.pos
		case ' ', '\t', '\r', '\f', '\v':
			p.pos++
		case '/':
			if p.pos+1 >= len(src) {
				return
			}
			switch src[p.pos+1] {
			case '/':
				for p.pos < len(src) && src[p.pos] != '\n' {
					p.pos++
				}
			case '*':
				p.skipBlockComment()
			default:
				return
			}
		default:
			return
		}
	}
}

func (p *parser) skipBlockComment() {
	startPos, startLine, startLS := p.pos, p.line, p.lineStart
	p.pos += 2
	for p.pos+1 < len(p.src) {
		if p.src[p.pos] == '*' && p.src[p.pos+1] == '/' {
			p.pos += 2
			return
		}
		if p.src[p.pos] == '\n' {
			p.line++
			p.lineStart = p.pos + 1
		}
		p.pos++
	}
	p.pos = len(p.src)
	p.errorAt(startPos, startLine, startLS, "comment not terminated")
}

func (p *parser) peek() byte {
	p.skip()
	if p.pos < len(p.src) {
		return p.src[p.pos]
	}
	return 0
}

func (p *parser) accept(c byte) bool {
	if p.peek() == c {
		p.pos++
		return true
	}
	return false
}

func (p *parser) expect(c byte) bool {
	if p.accept(c) {
		return true
	}
	p.expected(strconv.QuoteRune(rune(c)))
	return false
}

// ident reads an identifier (a name that starts with a letter or '_'), with an optional '%'
// before it. It returns "" if there is none.
func (p *parser) ident() string {
	p.skip()
	start := p.pos
	if start < len(p.src) && p.src[start] == '%' {
		start++
	}
	if start >= len(p.src) || !isIdentStart(p.src[start]) {
		return ""
	}
	return p.name()
}

// name reads an instruction or computation name: identifiers, but also names starting with a
// digit, which some producers print.
func (p *parser) name() string {
	p.skip()
	start := p.pos
	if start < len(p.src) && p.src[start] == '%' {
		start++
	}
	end := start
	for end < len(p.src) && isIdentChar(p.src[end]) {
		end++
	}
	for end > start && p.src[end-1] == '-' {
		end--
	}
	if end == start {
		return ""
	}
	p.pos = end
	return p.str(p.src[start:end])
}

func (p *parser) keyword(kw string) bool {
	p.skip()
	if len(p.src)-p.pos >= len(kw) && string(p.src[p.pos:p.pos+len(kw)]) == kw {
		end := p.pos + len(kw)
		if end == len(p.src) || !isIdentChar(p.src[end]) {
			p.pos = end
			return true
		}
	}
	return false
}

// skipLine moves to the start of the next line (error recovery).
func (p *parser) skipLine() {
	for p.pos < len(p.src) && p.src[p.pos] != '\n' {
		p.pos++
	}
}

func (p *parser) parseModule() (m *Module) {
	m = &Module{}
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(bailout); !ok {
				panic(r)
			}
		}
		p.finish(m)
	}()
	p.skip()
	if p.keyword("HloModule") {
		m.Name = p.name()
		if m.Name == "" {
			p.expected("module name")
		}
		for p.accept(',') {
			if a, ok := p.attr(); ok {
				m.Attrs = append(m.Attrs, a)
			}
		}
	}
	p.skipStackFrameTables()
	for p.peek() != 0 {
		before := p.pos
		if c := p.parseComputation(); c != nil {
			m.Computations = append(m.Computations, c)
		}
		if p.pos == before {
			p.pos++ // never loop without progress
		}
	}
	return m
}

func (p *parser) finish(m *Module) {
	for _, c := range m.Computations {
		if c.Entry {
			m.Entry = c
		}
	}
	if m.Entry == nil && len(m.Computations) > 0 {
		m.Entry = m.Computations[len(m.Computations)-1] // XLA takes the last one
	}
	if m.Name == "" && m.Entry != nil {
		m.Name = m.Entry.Name
	}
	if len(m.Computations) == 0 && len(p.errs) == 0 {
		p.errs = append(p.errs, &Error{File: p.file, Line: p.line, Col: 1, Msg: "expected a computation, found end of file"})
	}
}

// skipStackFrameTables skips the FileNames/FunctionNames/FileLocations/StackFrames tables that
// newer XLA prints after the header.
func (p *parser) skipStackFrameTables() {
	for {
		if !(p.keyword("FileNames") || p.keyword("FunctionNames") || p.keyword("FileLocations") || p.keyword("StackFrames")) {
			return
		}
		for {
			p.skip()
			if p.pos >= len(p.src) || !isDigit(p.src[p.pos]) {
				break
			}
			p.skipLine()
		}
	}
}

// parseComputation reads one computation: [ENTRY] name [(params) -> result] { instructions }
// [, attributes].
//
// (Its cyclomatic complexity is over 25: it follows the grammar of a computation header and
// body step by step, with error recovery at each step, which reads better whole than split
// into helpers that pass the position back and forth.)
func (p *parser) parseComputation() (c *Computation) {
	p.refs, p.refSeen = p.refs[:0], nil
	line := p.line
	entry := p.keyword("ENTRY")
	name := p.name()
	if name == "" {
		p.expected("computation name")
		p.skipLine()
		return nil
	}
	c = &Computation{Name: name, Entry: entry, Line: line}
	if p.peek() == '(' {
		p.pos++
		if !p.accept(')') {
			for {
				pn := p.name()
				if pn == "" {
					p.expected("parameter name")
					p.skipLine()
					return nil
				}
				if !p.expect(':') {
					p.skipLine()
					return nil
				}
				sh, ok := p.shape()
				if !ok {
					p.skipLine()
					return nil
				}
				c.Params = append(c.Params, Param{Name: pn, Shape: sh})
				if p.accept(')') {
					break
				}
				if !p.expect(',') {
					p.skipLine()
					return nil
				}
			}
		}
		p.skip()
		if p.pos+1 < len(p.src) && p.src[p.pos] == '-' && p.src[p.pos+1] == '>' {
			p.pos += 2
			sh, ok := p.shape()
			if !ok {
				p.skipLine()
				return nil
			}
			c.Result = &sh
		} else {
			p.expected("'->'")
		}
	}
	if !p.expect('{') {
		p.skipLine()
		return nil
	}
	for {
		ch := p.peek()
		if ch == '}' {
			p.pos++
			break
		}
		if ch == 0 {
			p.errorf("expected '}' to close computation %s, found end of file", name)
			break
		}
		before := p.pos
		if in := p.instruction(); in != nil {
			c.Instructions = append(c.Instructions, in)
			if in.Root {
				if c.Root != nil {
					p.errorAt(before, in.Line, p.lineStart, "computation %s has a second ROOT %s", name, in.Name)
				}
				c.Root = in
			}
		} else {
			if p.pos == before {
				p.pos++
			}
			p.skipLine()
		}
	}
	for p.accept(',') {
		if a, ok := p.attr(); ok {
			c.Attrs = append(c.Attrs, a)
		}
	}
	p.materializeRefs(c)
	if c.Root == nil && len(c.Instructions) > 0 {
		c.Root = c.Instructions[len(c.Instructions)-1]
	}
	return c
}

func (p *parser) newInstruction() *Instruction {
	if len(p.instrSlab) == cap(p.instrSlab) {
		p.instrSlab = make([]Instruction, 0, p.slabSize(256, 64, 8))
	}
	p.instrSlab = p.instrSlab[:len(p.instrSlab)+1]
	return &p.instrSlab[len(p.instrSlab)-1]
}

func (p *parser) instruction() *Instruction {
	p.skip()
	line := p.line
	root := p.keyword("ROOT")
	name := p.name()
	if name == "" {
		p.expected("instruction name")
		return nil
	}
	if !p.accept('=') {
		p.expected("'=' after instruction name " + name)
		return nil
	}
	sh, ok := p.shape()
	if !ok {
		return nil
	}
	op := p.ident()
	if op == "" {
		p.expected("opcode")
		return nil
	}
	in := p.newInstruction()
	*in = Instruction{Name: name, Root: root, Shape: sh, Opcode: op, Param: -1, Line: line}
	if !p.expect('(') {
		return nil
	}
	switch op {
	case "parameter":
		p.skip()
		s := p.pos
		for p.pos < len(p.src) && isDigit(p.src[p.pos]) {
			p.pos++
		}
		n, err := strconv.Atoi(string(p.src[s:p.pos]))
		if err != nil {
			p.expected("parameter number")
			return nil
		}
		in.Param = n
		if !p.expect(')') {
			return nil
		}
	case "constant":
		p.skip()
		s := p.pos
		if !p.balanced(')') {
			return nil
		}
		in.Literal = strings.TrimSpace(p.str(p.src[s:p.pos]))
		p.pos++ // ')'
	default:
		if !p.operands(in) {
			return nil
		}
	}
	if p.peek() == ',' {
		start := len(p.attrSlab)
		if cap(p.attrSlab)-start < 8 {
			p.attrSlab = make([]Attr, 0, p.slabSize(1024, 32, 16))
			start = 0
		}
		for p.accept(',') {
			a, ok := p.attr()
			if !ok {
				return nil
			}
			p.attrSlab = append(p.attrSlab, a)
		}
		in.Attrs = p.attrSlab[start:len(p.attrSlab):len(p.attrSlab)]
	}
	return in
}

// operands reads "a, b)" or "f32[2]{0} %a, f32[2]{0} %b)" after the '('.
func (p *parser) operands(in *Instruction) bool {
	if p.accept(')') {
		return true
	}
	start := len(p.strSlab)
	if cap(p.strSlab)-start < 16 {
		p.strSlab = make([]string, 0, p.slabSize(1024, 32, 32))
		start = 0
	}
	for {
		p.skip()
		// An operand may be preceded by its shape (long form).
		if p.pos < len(p.src) && (p.src[p.pos] == '(' || p.startsShape()) {
			if _, ok := p.shape(); !ok {
				return false
			}
		}
		n := p.name()
		if n == "" {
			p.expected("operand name")
			return false
		}
		for p.pos < len(p.src) && p.src[p.pos] == '#' {
			// %x#N: element N of tuple x, printed at its use (XLA 2025+) where older XLA
			// printed a get-tuple-element instruction. The parser makes that instruction.
			ds := p.pos + 1
			de := ds
			for de < len(p.src) && isDigit(p.src[de]) {
				de++
			}
			if de == ds {
				p.pos++
				p.expected("tuple index after '#'")
				return false
			}
			// The instruction is named so that the canonical printer's output parses again.
			elem := n + ".gte" + string(p.src[ds:de])
			p.tupleRef(elem, n, p.str(p.src[ds:de]), in)
			n = elem
			p.pos = de
		}
		if p.peek() == '(' {
			p.errorf("nested instructions as operands are not supported")
			return false
		}
		p.strSlab = append(p.strSlab, n)
		if p.accept(')') {
			break
		}
		if !p.expect(',') {
			return false
		}
	}
	in.Operands = p.strSlab[start:len(p.strSlab):len(p.strSlab)]
	return true
}

// startsShape reports whether an element type followed by '[' starts at pos.
func (p *parser) startsShape() bool {
	i := p.pos
	for i < len(p.src) && (isIdentStart(p.src[i]) || isDigit(p.src[i])) {
		i++
	}
	return i > p.pos && i < len(p.src) && p.src[i] == '[' && isIdentStart(p.src[p.pos])
}

// MaxTupleDepth bounds how deeply tuple shapes may nest. XLA's own shapes nest a few levels;
// the limit keeps the parser (and everything that walks a shape) from recursing as deep as
// a hostile input asks.
const MaxTupleDepth = 64

// shape reads an array or tuple shape with its optional layout.
func (p *parser) shape() (Shape, bool) { return p.shapeAt(0) }

func (p *parser) shapeAt(depth int) (Shape, bool) {
	p.skip()
	if p.pos < len(p.src) && p.src[p.pos] == '(' {
		return p.tupleShape(depth)
	}
	var s Shape
	start := p.pos
	for p.pos < len(p.src) && (isIdentStart(p.src[p.pos]) || isDigit(p.src[p.pos])) {
		p.pos++
	}
	if p.pos == start || !isIdentStart(p.src[start]) {
		p.pos = start
		p.expected("shape")
		return s, false
	}
	s.Elem = p.str(p.src[start:p.pos])
	if p.pos >= len(p.src) || p.src[p.pos] != '[' {
		p.expected("'[' after element type " + s.Elem)
		return s, false
	}
	p.pos++
	if !p.dims(&s) {
		return s, false
	}
	return s, p.layout(&s)
}

// tupleShape reads (shape, shape, ...) at the '('.
func (p *parser) tupleShape(depth int) (Shape, bool) {
	s := Shape{IsTuple: true, Tuple: []Shape{}}
	if depth >= MaxTupleDepth {
		p.errorf("tuple shape nested deeper than %d levels", MaxTupleDepth)
		return s, false
	}
	p.pos++
	if p.accept(')') {
		return s, true
	}
	for {
		t, ok := p.shapeAt(depth + 1)
		if !ok {
			return s, false
		}
		s.Tuple = append(s.Tuple, t)
		if p.accept(')') {
			return s, true
		}
		if !p.expect(',') {
			return s, false
		}
	}
}

// dims reads the dimensions after '[' and the closing ']': sizes, '?' (unbounded dynamic) and
// '<=N' (bounded dynamic).
func (p *parser) dims(s *Shape) bool {
	dimStart := len(p.dimSlab)
	if cap(p.dimSlab)-dimStart < 16 {
		p.dimSlab = make([]int64, 0, p.slabSize(4096, 8, 32))
		dimStart = 0
	}
	p.skip()
	if p.pos < len(p.src) && p.src[p.pos] == ']' {
		p.pos++
		s.Dims = p.dimSlab[dimStart:dimStart:dimStart]
		return true
	}
	for i := 0; ; i++ {
		p.skip()
		if !p.dim(s, i) {
			return false
		}
		if p.accept(']') {
			break
		}
		if !p.accept(',') {
			p.expected("',' or ']'")
			return false
		}
	}
	s.Dims = p.dimSlab[dimStart:len(p.dimSlab):len(p.dimSlab)]
	return true
}

func (p *parser) dim(s *Shape, i int) bool {
	if p.pos < len(p.src) && p.src[p.pos] == '?' {
		p.pos++
		p.dimSlab = append(p.dimSlab, -1)
		return true
	}
	if p.pos+1 < len(p.src) && p.src[p.pos] == '<' && p.src[p.pos+1] == '=' {
		p.pos += 2
		if i < 64 {
			s.Bounded |= 1 << uint(i)
		}
	}
	ds := p.pos
	for p.pos < len(p.src) && isDigit(p.src[p.pos]) {
		p.pos++
	}
	v, err := strconv.ParseInt(string(p.src[ds:p.pos]), 10, 64)
	if err != nil {
		p.pos = ds
		p.expected("dimension size")
		return false
	}
	p.dimSlab = append(p.dimSlab, v)
	return true
}

// layout reads an optional {layout}: one follows only if '{' is followed by a digit, ':' or
// '}' (an attribute's braces follow a ',').
func (p *parser) layout(s *Shape) bool {
	save, saveLine, saveLS := p.pos, p.line, p.lineStart
	if p.peek() != '{' {
		p.pos, p.line, p.lineStart = save, saveLine, saveLS
		return true
	}
	q := p.pos + 1
	for q < len(p.src) && (p.src[q] == ' ' || p.src[q] == '\t') {
		q++
	}
	if q >= len(p.src) || !(isDigit(p.src[q]) || p.src[q] == ':' || p.src[q] == '}') {
		p.pos, p.line, p.lineStart = save, saveLine, saveLS
		return true
	}
	p.pos++
	ls := p.pos
	depth := 0
	for ; p.pos < len(p.src); p.pos++ {
		c := p.src[p.pos]
		if c == '(' {
			depth++
		} else if c == ')' {
			depth--
		} else if c == '}' && depth <= 0 {
			break
		} else if c == '\n' || c == '{' {
			p.expected("'}' to close layout")
			return false
		}
	}
	if p.pos >= len(p.src) {
		p.expected("'}' to close layout")
		return false
	}
	s.Layout = strings.TrimSpace(p.str(p.src[ls:p.pos]))
	s.HasLayout = true
	p.pos++
	return true
}

// attr reads name=value.
func (p *parser) attr() (Attr, bool) {
	p.skip()
	s := p.pos
	for p.pos < len(p.src) && isIdentChar(p.src[p.pos]) {
		p.pos++
	}
	if p.pos == s {
		p.expected("attribute name")
		return Attr{}, false
	}
	name := p.str(p.src[s:p.pos])
	if !p.accept('=') {
		p.expected("'=' after attribute " + name)
		return Attr{}, false
	}
	v, ok := p.value()
	return Attr{Name: name, Value: v}, ok
}

// value reads an attribute value: everything up to a ',' or white space outside brackets and
// strings, or an unmatched closing bracket.
//
// (Its cyclomatic complexity is over 25: it is a character-level scanner, one loop with a case per
// character class or grammar step, which reads better whole than split into helpers that pass
// the position back and forth.)
func (p *parser) value() (string, bool) {
	p.skip()
	src := p.src
	start := p.pos
	depth := 0
	dirty := false
	startLine, startLS := p.line, p.lineStart
loop:
	for p.pos < len(src) {
		c := src[p.pos]
		switch c {
		case '"':
			if !p.skipString() {
				return "", false
			}
			continue
		case '{', '[', '(':
			depth++
		case '}', ']', ')':
			if depth == 0 {
				break loop
			}
			depth--
		case ',':
			if depth == 0 {
				break loop
			}
		case '\n':
			if depth == 0 {
				break loop
			}
			dirty = true
			p.line++
			p.lineStart = p.pos + 1
		case ' ', '\t', '\r':
			if depth == 0 {
				// replica_groups=mesh['x'=8] {'x'}: a device mesh and the axes over it, one value.
				if !p.meshContinues(start) {
					break loop
				}
				dirty = true
			}
			if c != ' ' {
				dirty = true
			}
		case '%':
			dirty = true
		case '/':
			if p.pos+1 < len(src) && (src[p.pos+1] == '*' || src[p.pos+1] == '/') {
				dirty = true
				if src[p.pos+1] == '*' {
					p.skipBlockComment()
				} else {
					for p.pos < len(src) && src[p.pos] != '\n' {
						p.pos++
					}
				}
				continue
			}
		}
		p.pos++
	}
	if depth > 0 {
		p.errorAt(start, startLine, startLS, "unbalanced brackets in attribute value")
		return "", false
	}
	if p.pos == start {
		p.expected("attribute value")
		return "", false
	}
	raw := src[start:p.pos]
	if !dirty {
		return p.str(raw), true
	}
	return normalizeValue(raw), true
}

// meshContinues reports whether the value that started at start is a device mesh
// (mesh[...]) followed, after the white space at the current position, by the braces of its
// axes.
func (p *parser) meshContinues(start int) bool {
	if !bytes.HasPrefix(p.src[start:p.pos], []byte("mesh[")) || p.src[p.pos-1] != ']' {
		return false
	}
	q := p.pos
	for q < len(p.src) && (p.src[q] == ' ' || p.src[q] == '\t') {
		q++
	}
	return q < len(p.src) && p.src[q] == '{'
}

// skipString skips a double-quoted string with C escapes, starting at the quote.
func (p *parser) skipString() bool {
	startPos, startLine, startLS := p.pos, p.line, p.lineStart
	p.pos++
	for p.pos < len(p.src) {
		switch p.src[p.pos] {
		case '\\':
			p.pos += 2
			continue
		case '"':
			p.pos++
			return true
		case '\n':
			p.line++
			p.lineStart = p.pos + 1
		}
		p.pos++
	}
	p.pos = len(p.src)
	p.errorAt(startPos, startLine, startLS, "string not terminated")
	return false
}

// balanced moves to the unmatched close byte, skipping nested brackets and strings.
func (p *parser) balanced(close byte) bool {
	depth := 0
	start, startLine, startLS := p.pos, p.line, p.lineStart
	for p.pos < len(p.src) {
		c := p.src[p.pos]
		switch c {
		case '"':
			if !p.skipString() {
				return false
			}
			continue
		case '(', '{', '[':
			depth++
		case ')', '}', ']':
			if depth == 0 {
				if c == close {
					return true
				}
				p.expected(strconv.QuoteRune(rune(close)))
				return false
			}
			depth--
		case '\n':
			p.line++
			p.lineStart = p.pos + 1
		}
		p.pos++
	}
	p.errorAt(start, startLine, startLS, "expected %q, found end of file", close)
	return false
}

// normalizeValue removes comments and '%' name prefixes outside strings and turns runs of
// white space into one space.
//
// (Its cyclomatic complexity is over 25: it is a character-level scanner, one loop with a case per
// character class or grammar step, which reads better whole than split into helpers that pass
// the position back and forth.)
func normalizeValue(raw []byte) string {
	b := make([]byte, 0, len(raw))
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		switch {
		case c == '"':
			j := i + 1
			for j < len(raw) && raw[j] != '"' {
				if raw[j] == '\\' {
					j++
				}
				j++
			}
			if j >= len(raw) {
				j = len(raw) - 1
			}
			b = append(b, raw[i:j+1]...)
			i = j
		case c == '/' && i+1 < len(raw) && raw[i+1] == '*':
			j := i + 2
			for j+1 < len(raw) && !(raw[j] == '*' && raw[j+1] == '/') {
				j++
			}
			i = j + 1
		case c == '/' && i+1 < len(raw) && raw[i+1] == '/':
			for i+1 < len(raw) && raw[i+1] != '\n' {
				i++
			}
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			if len(b) > 0 && b[len(b)-1] != ' ' {
				b = append(b, ' ')
			}
		case c == '%':
		default:
			b = append(b, c)
		}
	}
	for len(b) > 0 && b[len(b)-1] == ' ' {
		b = b[:len(b)-1]
	}
	return string(b)
}
