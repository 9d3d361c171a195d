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
// Besides a whole module, Parse reads what XLA's parser reads: computations without the
// HloModule line, and a single instruction on its own, whose undefined operands become
// parameters of the shapes written before them.
//
// On errors Parse returns the partial module (never nil) and an ErrorList.
func Parse(file string, src []byte) (*Module, error) {
	p := &parser{src: src, file: file, line: 1}
	m := p.parseModule()
	m.File = file
	return m, p.errs.Err()
}

// MaxNestingDepth bounds how deeply instructions may be nested as operands
// (add(f32[] sqrt(x), y)) and computations written inline in attributes (to_apply={...}).
const MaxNestingDepth = 64

type parser struct {
	src       []byte
	pos       int
	line      int
	lineStart int
	file      string
	errs      ErrorList
	m         *Module

	instrSlab []Instruction
	dimSlab   []int64
	strSlab   []string
	attrSlab  []Attr

	cs compState // the computation being read

	depth   int          // instructions nested as operands and computations written inline
	entry   *Computation // the first ENTRY computation
	inline  []inlineRef  // attributes that name computations written inline
	inlines []*Computation
}

// compState is what the parser keeps while it reads one computation.
type compState struct {
	// refs are the tuple-element references (x#N) of the computation being read, in order of
	// first use; refSeen indexes them by name.
	refs    []tupleRef
	refSeen map[string]bool
	// pending are the instructions made while reading the current one (instructions nested
	// as its operands, parameters of a single instruction): they go before it.
	pending []*Instruction
	anon    []anonRef // instructions that need a name
	infer   bool      // an instruction has no shape: infer shapes at the end
	single  bool      // a single instruction: undefined operands become parameters
	params  map[string]bool
	nparams int
}

// anonRef is an instruction written without a name: nested as operand idx of user, or a
// single instruction without its left-hand side (user nil).
type anonRef struct {
	in   *Instruction
	user *Instruction
	idx  int
	base string
}

// inlineRef is an attribute of in whose value names computations written inline: its value
// is made when the inline computations have their names.
type inlineRef struct {
	in    *Instruction
	idx   int
	list  bool
	elems []inlineElem
}

type inlineElem struct {
	name string
	comp *Computation
}

// tupleRef is one x#N operand: the get-tuple-element it stands for.
type tupleRef struct {
	name, base, index string
	user              *Instruction
	line              int
}

func (p *parser) tupleRef(name, base, index string, user *Instruction) {
	if p.cs.refSeen == nil {
		p.cs.refSeen = map[string]bool{}
	}
	if p.cs.refSeen[name] {
		return
	}
	p.cs.refSeen[name] = true
	p.cs.refs = append(p.cs.refs, tupleRef{name: name, base: base, index: index, user: user, line: p.line})
}

// materializeRefs adds to c a get-tuple-element instruction for each x#N reference, just
// before its first user, with the element's shape: the module is then the one an older XLA
// printed with explicit get-tuple-elements, and compares equal to it.
func (p *parser) materializeRefs(c *Computation) {
	if len(p.cs.refs) == 0 {
		return
	}
	shapes := make(map[string]Shape, len(c.Instructions)+len(p.cs.refs))
	for _, in := range c.Instructions {
		shapes[in.Name] = in.Shape
	}
	before := map[*Instruction][]*Instruction{}
	for _, r := range p.cs.refs {
		gte := p.newInstruction()
		*gte = Instruction{Name: r.name, Opcode: "get-tuple-element", Operands: []string{r.base}, Param: -1, Line: r.line,
			Attrs: []Attr{{Name: "index", Value: r.index}}}
		if bs, ok := shapes[r.base]; ok && bs.IsTuple {
			if k, err := strconv.Atoi(r.index); err == nil && k < len(bs.Tuple) {
				gte.Shape = bs.Tuple[k]
			}
		}
		if !gte.Shape.Known() {
			p.cs.infer = true
		}
		shapes[r.name] = gte.Shape
		before[r.user] = append(before[r.user], gte)
	}
	out := make([]*Instruction, 0, len(c.Instructions)+len(p.cs.refs))
	for _, in := range c.Instructions {
		out = append(out, before[in]...)
		out = append(out, in)
	}
	c.Instructions = out
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

// foundWord is found for a token that may start with a digit or '-': a number, a padding
// like 1_1_0 or a word.
func (p *parser) foundWord() string {
	end := p.pos
	for end < len(p.src) && end-p.pos < 40 && (isIdentChar(p.src[end]) || p.src[end] == '+') {
		end++
	}
	if end == p.pos {
		return p.found()
	}
	return strconv.Quote(string(p.src[p.pos:end]))
}

// expectedWord is expected with foundWord.
func (p *parser) expectedWord(what string) {
	p.errorf("expected %s, found %s", what, p.foundWord())
}

func isIdentStart(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_'
}

func isIdentChar(c byte) bool {
	return isIdentStart(c) || c >= '0' && c <= '9' || c == '.' || c == '-'
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// skip skips white space and comments. A // comment ends at a line feed or a carriage
// return, as in XLA's lexer (files with old Mac line ends).
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
				for p.pos < len(src) && src[p.pos] != '\n' && src[p.pos] != '\r' {
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

// mark is a position to come back to.
type mark struct{ pos, line, lineStart int }

func (p *parser) mark() mark { return mark{p.pos, p.line, p.lineStart} }

func (p *parser) reset(m mark) { p.pos, p.line, p.lineStart = m.pos, m.line, m.lineStart }

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

// nameColon takes the ':' that XLA's lexer allows right after a name written without '%'
// (HloModule m:, ENTRY e:, x: = ...): the name token "m:".
func (p *parser) nameColon(name string) {
	start := p.pos - len(name)
	if p.pos < len(p.src) && p.src[p.pos] == ':' && (start == 0 || p.src[start-1] != '%') {
		p.pos++
	}
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

// skipComputation skips the rest of a computation whose header did not parse (error
// recovery): the rest of the line and, when the line opens the body, the lines up to the one
// that starts with the closing '}'.
func (p *parser) skipComputation() {
	ls := p.lineStart
	p.skipLine()
	if !bytes.HasSuffix(bytes.TrimSpace(p.src[ls:p.pos]), []byte("{")) {
		return
	}
	for p.pos < len(p.src) {
		p.pos++
		p.line++
		p.lineStart = p.pos
		q := p.pos
		for q < len(p.src) && (p.src[q] == ' ' || p.src[q] == '\t') {
			q++
		}
		p.skipLine()
		if q < len(p.src) && p.src[q] == '}' {
			return
		}
	}
}

// skipLine moves to the start of the next line (error recovery).
func (p *parser) skipLine() {
	for p.pos < len(p.src) && p.src[p.pos] != '\n' {
		p.pos++
	}
}

func (p *parser) parseModule() (m *Module) {
	m = &Module{}
	p.m = m
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(bailout); !ok {
				panic(r)
			}
		}
		p.finish(m)
	}()
	p.skip()
	switch {
	case p.keyword("HloModule"):
		m.Name = p.name()
		if m.Name == "" {
			p.expected("module name")
		} else {
			p.nameColon(m.Name)
		}
		for p.accept(',') {
			a, ok := p.attr(ctxModule, nil, 0)
			if !ok {
				p.skipLine() // the rest of the header
				break
			}
			m.Attrs = append(m.Attrs, a)
		}
	case p.singleAhead():
		p.singleInstruction()
		return m
	}
	p.stackFrameTables()
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
	p.nameInline()
	for _, c := range m.Computations {
		if c.Entry {
			m.Entry = c
		}
	}
	if p.entry != nil {
		m.Entry = p.entry
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

// nameInline names the computations written inline in attributes as XLA's name uniquer
// does (_, _.1, _.2, ...), apart from every computation named in the text, and makes the
// values of the attributes that call them.
func (p *parser) nameInline() {
	if len(p.inlines) == 0 {
		return
	}
	used := make(map[string]bool, len(p.m.Computations))
	for _, c := range p.m.Computations {
		if c.Name != "" {
			used[c.Name] = true
		}
	}
	for _, c := range p.inlines {
		c.Name = uniqueName(used, "_")
	}
	for _, r := range p.inline {
		if r.idx >= len(r.in.Attrs) {
			continue // the instruction did not parse
		}
		names := make([]string, len(r.elems))
		for i, e := range r.elems {
			names[i] = e.name
			if e.comp != nil {
				names[i] = e.comp.Name
			}
		}
		v := names[0]
		if r.list {
			v = "{" + strings.Join(names, ", ") + "}"
		}
		r.in.Attrs[r.idx].Value = v
	}
}

// uniqueName returns base, or base.1, base.2, ... the first one not in used, and adds it.
func uniqueName(used map[string]bool, base string) string {
	name := base
	for k := 1; used[name]; k++ {
		name = base + "." + strconv.Itoa(k)
	}
	used[name] = true
	return name
}

// stackFrameTables reads the FileNames/FunctionNames/FileLocations/StackFrames tables that
// newer XLA prints after the header (HloModule::PrintStackFrameIndex): the source files
// (Module.FileNames), the functions (Module.FunctionNames), and the rows op metadata's
// stack_frame_id walks (Module.Locations, Module.Frames). A row whose number is not the next
// one, or whose fields do not read, is left out, and so are the frames after it.
func (p *parser) stackFrameTables() {
	for {
		table := 0
		switch {
		case p.keyword("FileNames"):
			table = tableFiles
		case p.keyword("FunctionNames"):
			table = tableFunctions
		case p.keyword("FileLocations"):
			table = tableLocations
		case p.keyword("StackFrames"):
			table = tableFrames
		default:
			return
		}
		for {
			p.skip()
			if p.pos >= len(p.src) || !isDigit(p.src[p.pos]) {
				break
			}
			start := p.pos
			p.skipLine()
			p.tableRow(table, p.src[start:p.pos])
		}
	}
}

// The tables of stack frames a module may print.
const (
	tableFiles = iota + 1
	tableFunctions
	tableLocations
	tableFrames
)

// tableRow reads one row of a stack-frame table: `1 "file.py"`, `1 {file_name_id=1
// function_name_id=1 line=3 …}`, `1 {file_location_id=1 parent_frame_id=1}`.
func (p *parser) tableRow(table int, line []byte) {
	m := p.m
	switch table {
	case tableFiles:
		if f := quotedFile(line); f != "" {
			m.FileNames = append(m.FileNames, f)
		}
	case tableFunctions:
		if f := quotedFile(line); f != "" && len(m.FunctionNames) < maxFunctionNames {
			m.FunctionNames = append(m.FunctionNames, f)
		}
	case tableLocations:
		if rowNumber(line) != len(m.Locations)+1 {
			return
		}
		file, ok1 := rowField(line, "file_name_id")
		fn, ok2 := rowField(line, "function_name_id")
		ln, ok3 := rowField(line, "line")
		if ok1 && ok3 {
			if !ok2 {
				fn = 0
			}
			m.Locations = append(m.Locations, Location{File: file, Function: fn, Line: ln})
		}
	case tableFrames:
		if rowNumber(line) != len(m.Frames)+1 {
			return
		}
		loc, ok1 := rowField(line, "file_location_id")
		parent, ok2 := rowField(line, "parent_frame_id")
		if ok1 && ok2 {
			m.Frames = append(m.Frames, Frame{Location: loc, Parent: max(parent-1, 0)})
		}
	}
}

// rowNumber is the number a table row begins with (-1 when none reads).
func rowNumber(line []byte) int {
	n := 0
	for i, c := range line {
		if !isDigit(c) {
			if i == 0 {
				return -1
			}
			return n
		}
		if n > 1<<30 {
			return -1
		}
		n = n*10 + int(c-'0')
	}
	return n
}

// rowField is the number after `key=` in a table row, where key follows `{` or a space.
func rowField(line []byte, key string) (int32, bool) {
	for i := 0; i < len(line); {
		j := bytes.Index(line[i:], []byte(key))
		if j < 0 {
			return 0, false
		}
		at := i + j
		end := at + len(key)
		if at > 0 && (line[at-1] == '{' || line[at-1] == ' ') && end < len(line) && line[end] == '=' {
			n, k := int64(0), end+1
			for ; k < len(line) && isDigit(line[k]) && n < 1<<31; k++ {
				n = n*10 + int64(line[k]-'0')
			}
			if k == end+1 || n >= 1<<31 {
				return 0, false
			}
			return int32(n), true
		}
		i = end
	}
	return 0, false
}

// maxFunctionNames bounds Module.FunctionNames (a module of a large program lists thousands).
const maxFunctionNames = 4096

// quotedFile is the path of a FileNames entry, `1 "/path/to/file.py"`: the text between its
// first and last quote, unescaped where it is a Go-compatible quoted string ("" when none).
func quotedFile(line []byte) string {
	i, j := bytes.IndexByte(line, '"'), bytes.LastIndexByte(line, '"')
	if i < 0 || j <= i {
		return ""
	}
	if s, err := strconv.Unquote(string(line[i : j+1])); err == nil {
		return s
	}
	return string(line[i+1 : j])
}

// singleAhead reports whether the text is a single instruction, not a module: it starts
// with ROOT, with a shape (an instruction without its left-hand side) or with "name =".
func (p *parser) singleAhead() bool {
	m := p.mark()
	defer p.reset(m)
	if p.keyword("ROOT") || p.peek() == '(' || p.startsShape() {
		return true
	}
	if n := p.name(); n != "" {
		p.nameColon(n)
		return p.peek() == '='
	}
	return false
}

// singleInstruction reads a single instruction as XLA's parser does: it becomes the ROOT of
// an ENTRY computation named _, its undefined operands become parameters with the shapes
// written before them, and a computation it calls may be written inline.
func (p *parser) singleInstruction() {
	c := &Computation{Name: "_", Entry: true, Line: p.line}
	p.cs = compState{single: true, params: map[string]bool{}}
	var in *Instruction
	if p.peek() == '(' || p.startsShape() {
		in = p.instructionRHS("", false, p.line, true)
		if in != nil {
			p.cs.anon = append(p.cs.anon, anonRef{in: in, base: "_"})
		}
	} else {
		in = p.instruction()
	}
	if in != nil {
		c.Instructions = append(c.Instructions, p.cs.pending...)
		c.Instructions = append(c.Instructions, in)
		c.Root = in
		if p.peek() != 0 {
			p.expected("end of input after a single instruction")
		}
	}
	p.endComputation(c)
	p.m.Computations = append(p.m.Computations, c)
}

// parseComputation reads one computation: [ENTRY] name [(params) -> result] { instructions }
// [, attributes].
//
// (Its cyclomatic complexity is over 25: it follows the grammar of a computation header
// step by step, with error recovery at each step, which reads better whole than split into
// helpers that pass the position back and forth.)
func (p *parser) parseComputation() (c *Computation) {
	p.cs = compState{refs: p.cs.refs[:0]}
	p.skip()
	line, entryAt := p.line, p.mark()
	entry := p.keyword("ENTRY")
	name := p.name()
	if name == "" {
		p.expected("computation name")
		p.skipLine()
		return nil
	}
	p.nameColon(name)
	c = &Computation{Name: name, Entry: entry, Line: line}
	if p.peek() == '(' {
		p.pos++
		if !p.accept(')') {
			for {
				pn := p.name()
				if pn == "" {
					p.expected("parameter name")
					p.skipComputation()
					return nil
				}
				if !p.expect(':') {
					p.skipComputation()
					return nil
				}
				sh, ok := p.shape()
				if !ok {
					p.skipComputation()
					return nil
				}
				c.Params = append(c.Params, Param{Name: pn, Shape: sh})
				if p.accept(')') {
					break
				}
				if !p.expect(',') {
					p.skipComputation()
					return nil
				}
			}
		}
		p.skip()
		if p.pos+1 < len(p.src) && p.src[p.pos] == '-' && p.src[p.pos+1] == '>' {
			p.pos += 2
			sh, ok := p.shape()
			if !ok {
				p.skipComputation()
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
	p.instructions(c, name)
	for p.accept(',') {
		if a, ok := p.attr(ctxComputation, nil, 0); ok {
			c.Attrs = append(c.Attrs, a)
		}
	}
	p.endComputation(c)
	if entry {
		if p.entry != nil {
			p.errorAt(entryAt.pos, entryAt.line, entryAt.lineStart, "a second ENTRY computation %s (the first is %s)", name, p.entry.Name)
		} else {
			p.entry = c
		}
	}
	return c
}

// instructions reads the instructions of c after its '{', and the '}'.
func (p *parser) instructions(c *Computation, label string) {
	for {
		ch := p.peek()
		if ch == '}' {
			p.pos++
			return
		}
		if ch == 0 {
			p.errorf("expected '}' to close computation %s, found end of file", label)
			return
		}
		before, anon := p.pos, len(p.cs.anon)
		if in := p.instruction(); in != nil {
			if len(p.cs.pending) > 0 {
				c.Instructions = append(c.Instructions, p.cs.pending...)
				p.cs.pending = p.cs.pending[:0]
			}
			c.Instructions = append(c.Instructions, in)
			if in.Root {
				if c.Root != nil {
					p.errorAt(before, in.Line, p.lineStart, "computation %s has a second ROOT %s", label, in.Name)
				}
				c.Root = in
			}
		} else {
			p.cs.pending, p.cs.anon = p.cs.pending[:0], p.cs.anon[:anon]
			if p.pos == before {
				p.pos++
			}
			p.skipLine()
		}
	}
}

// endComputation names the instructions written without a name, adds the get-tuple-elements
// of x#N operands, infers the shapes the text left out, and picks the root.
func (p *parser) endComputation(c *Computation) {
	p.nameAnon(c)
	p.materializeRefs(c)
	if p.cs.infer {
		inferShapes(c)
	}
	if c.Root == nil && len(c.Instructions) > 0 {
		c.Root = c.Instructions[len(c.Instructions)-1]
	}
}

// nameAnon names the instructions nested as operands as XLA does (opcode.anon,
// opcode.anon.1, ...), apart from every name in the computation, and puts the names in
// their users' operands.
func (p *parser) nameAnon(c *Computation) {
	if len(p.cs.anon) == 0 {
		return
	}
	used := make(map[string]bool, len(c.Instructions))
	for _, in := range c.Instructions {
		if in.Name != "" {
			used[in.Name] = true
		}
	}
	for _, a := range p.cs.anon {
		a.in.Name = uniqueName(used, a.base)
		if a.user != nil && a.idx < len(a.user.Operands) {
			a.user.Operands[a.idx] = a.in.Name
		}
	}
}

func (p *parser) newInstruction() *Instruction {
	if len(p.instrSlab) == cap(p.instrSlab) {
		p.instrSlab = make([]Instruction, 0, p.slabSize(256, 64, 8))
	}
	p.instrSlab = p.instrSlab[:len(p.instrSlab)+1]
	return &p.instrSlab[len(p.instrSlab)-1]
}

// instruction reads [ROOT] name = [shape] opcode(operands) [, attributes].
func (p *parser) instruction() *Instruction {
	p.skip()
	line := p.line
	root := p.keyword("ROOT")
	name := p.name()
	if name == "" {
		p.expected("instruction name")
		return nil
	}
	p.nameColon(name)
	if !p.accept('=') {
		p.expected("'=' after instruction name " + name)
		return nil
	}
	return p.instructionRHS(name, root, line, true)
}

// instructionRHS reads [shape] opcode(operands) and, when attrs is set, the attributes.
func (p *parser) instructionRHS(name string, root bool, line int, attrs bool) *Instruction {
	// The shape, unless the instruction is written without one: an identifier not followed by
	// '[' is its opcode.
	var sh Shape
	hasShape := false
	if p.peek() == '(' || p.startsShape() {
		var ok bool
		if sh, ok = p.shape(); !ok {
			return nil
		}
		hasShape = true
	}
	opAt := p.mark()
	op := p.ident()
	if op == "" {
		p.expected("opcode")
		return nil
	}
	in := p.newInstruction()
	*in = Instruction{Name: name, Root: root, Shape: sh, Opcode: op, Param: -1, Line: line}
	if !hasShape && !p.shapeless(in, opAt) {
		return nil
	}
	if !p.expect('(') || !p.body(in) {
		return nil
	}
	if attrs && p.peek() == ',' {
		start := len(p.attrSlab)
		if cap(p.attrSlab)-start < 8 {
			p.attrSlab = make([]Attr, 0, p.slabSize(1024, 32, 16))
			start = 0
		}
		for p.accept(',') {
			own, n := p.attrSlab[start:len(p.attrSlab):len(p.attrSlab)], len(p.inlines)
			a, ok := p.attr(ctxInstruction, in, len(own))
			if !ok {
				return nil
			}
			if len(p.inlines) != n {
				// The inline computation's instructions took attributes from the slab after
				// this instruction's: copy this instruction's to its end.
				start = p.moveAttrs(own)
			}
			p.attrSlab = append(p.attrSlab, a)
		}
		in.Attrs = p.attrSlab[start:len(p.attrSlab):len(p.attrSlab)]
	}
	return in
}

// moveAttrs copies an instruction's attributes so far to the end of the attribute slab and
// returns their new start.
func (p *parser) moveAttrs(own []Attr) int {
	if cap(p.attrSlab)-len(p.attrSlab) < len(own)+8 {
		p.attrSlab = make([]Attr, 0, max(1024, 2*len(own)))
	}
	n := len(p.attrSlab)
	p.attrSlab = append(p.attrSlab, own...)
	return n
}

// shapeless checks that the shape of in, written without one, can be inferred, as XLA's
// parser requires, and asks for shapes to be inferred at the end of the computation.
func (p *parser) shapeless(in *Instruction, opAt mark) bool {
	if needsShape(in.Opcode) {
		p.errorAt(opAt.pos, opAt.line, opAt.lineStart, "expected shape before opcode %s: XLA infers no shape for it", in.Opcode)
		return false
	}
	p.cs.infer = true
	return true
}

// body reads what follows the '(' after an opcode: a parameter number, a constant's literal
// or the operands, and the ')'.
func (p *parser) body(in *Instruction) bool {
	switch in.Opcode {
	case "parameter":
		p.skip()
		s := p.pos
		for p.pos < len(p.src) && isDigit(p.src[p.pos]) {
			p.pos++
		}
		n, err := strconv.Atoi(string(p.src[s:p.pos]))
		if err != nil {
			p.expected("parameter number")
			return false
		}
		in.Param = n
		return p.expect(')')
	case "constant":
		p.skip()
		s := p.pos
		if !p.literal(in.Shape, 0) {
			return false
		}
		in.Literal = strings.TrimSpace(p.str(p.src[s:p.pos]))
		return p.expect(')')
	}
	return p.operands(in)
}

// operands reads "a, b)" or "f32[2]{0} %a, f32[2]{0} %b)" after the '('. An operand may be an
// instruction nested in place (add(f32[] sqrt(x), y)); in a single instruction an operand
// may be a shape alone, and a named operand needs its shape: both become parameters.
//
// (Its cyclomatic complexity is over 25: it follows the grammar of an operand step by step,
// which reads better whole than split into helpers that pass the operand list around.)
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
		at := p.mark()
		// An operand may be preceded by its shape (long form).
		var sh Shape
		hasShape := false
		if p.pos < len(p.src) && (p.src[p.pos] == '(' || p.startsShape()) {
			var ok bool
			if sh, ok = p.shape(); !ok {
				return false
			}
			hasShape = true
		}
		n := p.name()
		switch {
		case n == "":
			if c := p.peek(); !hasShape || !p.cs.single || c != ',' && c != ')' {
				p.expected("operand name")
				return false
			}
			if n = p.param("", sh, true, at); n == "" {
				return false
			}
		case p.pos < len(p.src) && p.src[p.pos] == '#':
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
		case p.peek() == '(' && isIdentStart(n[0]):
			own := p.strSlab[start:len(p.strSlab):len(p.strSlab)]
			nested := p.nested(n, sh, hasShape, at)
			if nested == nil {
				return false
			}
			// The nested instruction's operands went to the slab after this one's: copy this
			// instruction's to its end.
			if cap(p.strSlab)-len(p.strSlab) < len(own)+16 {
				p.strSlab = make([]string, 0, max(1024, 2*len(own)))
			}
			start = len(p.strSlab)
			p.strSlab = append(p.strSlab, own...)
			p.cs.anon = append(p.cs.anon, anonRef{in: nested, user: in, idx: len(own), base: nested.Opcode + ".anon"})
			n = ""
		case p.cs.single:
			if n = p.param(n, sh, hasShape, at); n == "" {
				return false
			}
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

// nested reads an instruction written in place of an operand, after its opcode: it has no
// name and no attributes, and goes before the instruction that uses it.
func (p *parser) nested(op string, sh Shape, hasShape bool, at mark) *Instruction {
	if p.depth >= MaxNestingDepth {
		p.errorAt(at.pos, at.line, at.lineStart, "instructions nested deeper than %d levels", MaxNestingDepth)
		return nil
	}
	p.depth++
	defer func() { p.depth-- }()
	in := p.newInstruction()
	*in = Instruction{Opcode: op, Shape: sh, Param: -1, Line: at.line}
	if !hasShape && !p.shapeless(in, at) {
		return nil
	}
	p.pos++ // '('
	if !p.body(in) {
		return nil
	}
	p.cs.pending = append(p.cs.pending, in)
	return in
}

// param makes the parameter that an undefined operand of a single instruction stands for,
// numbered in order of first use and named after the operand (_N when it has no name). It
// returns the parameter's name, "" after an error.
func (p *parser) param(name string, sh Shape, hasShape bool, at mark) string {
	if name != "" && p.cs.params[name] {
		return name
	}
	if !hasShape {
		p.errorAt(at.pos, at.line, at.lineStart, "expected shape before operand %s: the operands of a single instruction become parameters of their shapes", name)
		return ""
	}
	if name == "" {
		name = "_" + strconv.Itoa(p.cs.nparams)
	}
	in := p.newInstruction()
	*in = Instruction{Name: name, Shape: sh, Opcode: "parameter", Param: p.cs.nparams, Line: at.line}
	p.cs.nparams++
	p.cs.params[name] = true
	p.cs.pending = append(p.cs.pending, in)
	return name
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
	if !isElemType(s.Elem) {
		p.pos = start
		p.expectedWord("element type")
		return s, false
	}
	p.pos++
	if !p.dims(&s) {
		return s, false
	}
	return s, p.layout(&s, depth)
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
// '}' (an attribute's braces follow a ','). The usual {1,0} is read here; anything else by
// layoutGrammar.
func (p *parser) layout(s *Shape, depth int) bool {
	save := p.mark()
	if p.peek() != '{' {
		p.reset(save)
		return true
	}
	q := p.pos + 1
	for q < len(p.src) && (p.src[q] == ' ' || p.src[q] == '\t') {
		q++
	}
	if q >= len(p.src) || !(isDigit(p.src[q]) || p.src[q] == ':' || p.src[q] == '}') {
		p.reset(save)
		return true
	}
	p.pos++
	ls := p.pos
	i := ls
	for i < len(p.src) {
		c := p.src[i]
		if isDigit(c) || c == ',' && i > ls && isDigit(p.src[i-1]) && i+1 < len(p.src) && isDigit(p.src[i+1]) {
			i++
			continue
		}
		break
	}
	if i < len(p.src) && p.src[i] == '}' {
		s.Layout = p.str(p.src[ls:i])
		s.HasLayout = true
		p.pos = i + 1
		return true
	}
	return p.layoutGrammar(s, ls, depth)
}

// attrCtx is where an attribute stands.
type attrCtx uint8

const (
	ctxModule attrCtx = iota
	ctxComputation
	ctxInstruction
)

// attr reads name=value. in and idx are the instruction the attribute belongs to and its
// index there (ctxInstruction).
func (p *parser) attr(ctx attrCtx, in *Instruction, idx int) (Attr, bool) {
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
	v, ok := p.attrValue(ctx, name, in, idx)
	return Attr{Name: name, Value: v}, ok
}

// attrValue reads the value of attribute name: by its grammar where XLA's parser checks one
// that real dumps print, otherwise as balanced text (value).
func (p *parser) attrValue(ctx attrCtx, name string, in *Instruction, idx int) (string, bool) {
	switch ctx {
	case ctxModule:
		switch name {
		case "input_output_alias":
			return p.checked(name, p.aliasing)
		case "buffer_donor":
			return p.checked(name, p.bufferDonor)
		}
	case ctxInstruction:
		switch name {
		case "window":
			return p.checked(name, p.window)
		case "result_accuracy":
			return p.checked(name, p.resultAccuracy)
		case "literal":
			return p.literalAttr()
		case "to_apply", "calls", "condition", "body", "true_computation", "false_computation", "select", "scatter":
			if p.inlineAhead() {
				return p.inlineCall(in, idx)
			}
		case "branch_computations", "called_computations":
			return p.callList(in, idx)
		}
	}
	return p.value()
}

// checked reads a value with check, which follows its grammar and reports positioned
// errors, and returns its text as value reads it.
func (p *parser) checked(name string, check func() bool) (string, bool) {
	p.skip()
	m := p.mark()
	if !check() {
		return "", false
	}
	if p.pos < len(p.src) && !endsValue(p.src[p.pos]) {
		p.expectedWord("',' after the value of " + name)
		return "", false
	}
	p.reset(m)
	return p.value()
}

// endsValue reports whether c may follow an attribute value.
func endsValue(c byte) bool {
	switch c {
	case ',', ' ', '\t', '\r', '\n', '}', ')', '/':
		return true
	}
	return false
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
	i := p.pos // p.pos only where a helper reads it: the loop runs on i
loop:
	for i < len(src) {
		c := src[i]
		switch c {
		case '"':
			p.pos = i
			if !p.skipString() {
				return "", false
			}
			i = p.pos
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
			p.lineStart = i + 1
		case ' ', '\t', '\r':
			if depth == 0 {
				// replica_groups=mesh['x'=8] {'x'}: a device mesh and the axes over it, one value.
				p.pos = i
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
			if i+1 < len(src) && (src[i+1] == '*' || src[i+1] == '/') {
				dirty = true
				if src[i+1] == '*' {
					p.pos = i
					p.skipBlockComment()
					i = p.pos
				} else {
					for i < len(src) && src[i] != '\n' && src[i] != '\r' {
						i++
					}
				}
				continue
			}
		}
		i++
	}
	p.pos = i
	if depth > 0 {
		p.errorAt(start, startLine, startLS, "unbalanced brackets in attribute value")
		return "", false
	}
	if p.pos == start {
		p.expected("attribute value")
		return "", false
	}
	return p.text(start, dirty), true
}

// text returns the value between start and the current position, with comments, '%' and
// line breaks taken out when dirty.
func (p *parser) text(start int, dirty bool) string {
	raw := p.src[start:p.pos]
	if !dirty {
		return p.str(raw)
	}
	return normalizeValue(raw)
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

// skipString skips a double-quoted string with C escapes, starting at the quote. The usual
// string, without escapes or line breaks, is found by bytes.IndexByte.
func (p *parser) skipString() bool {
	startPos, startLine, startLS := p.pos, p.line, p.lineStart
	src := p.src
	i := p.pos + 1
	if q := bytes.IndexByte(src[i:], '"'); q >= 0 {
		body := src[i : i+q]
		if bytes.IndexByte(body, '\\') < 0 && bytes.IndexByte(body, '\n') < 0 {
			p.pos = i + q + 1
			return true
		}
	}
	for i < len(src) {
		switch src[i] {
		case '\\':
			i += 2
			continue
		case '"':
			p.pos = i + 1
			return true
		case '\n':
			p.line++
			p.lineStart = i + 1
		}
		i++
	}
	p.pos = len(src)
	p.errorAt(startPos, startLine, startLS, "string not terminated")
	return false
}

// inlineAhead reports whether a computation written inline ({ [ROOT] name = ...) starts at
// the current position.
func (p *parser) inlineAhead() bool {
	if p.peek() != '{' {
		return false
	}
	m := p.mark()
	defer p.reset(m)
	p.pos++
	p.keyword("ROOT")
	n := p.name()
	if n == "" {
		return false
	}
	p.nameColon(n)
	return p.peek() == '='
}

// inlineCall reads a computation written inline as the value of a call attribute.
func (p *parser) inlineCall(in *Instruction, idx int) (string, bool) {
	c := p.inlineComputation()
	if c == nil {
		return "", false
	}
	p.inline = append(p.inline, inlineRef{in: in, idx: idx, elems: []inlineElem{{comp: c}}})
	return "", true
}

// callList reads {a, b, ...}, a list of computations; when one of them is written inline
// its value is made by nameInline, otherwise it is read as value reads it.
func (p *parser) callList(in *Instruction, idx int) (string, bool) {
	if p.peek() != '{' {
		return p.value()
	}
	m := p.mark()
	p.pos++
	var elems []inlineElem
	inline := false
	for p.peek() != '}' {
		if p.inlineAhead() {
			c := p.inlineComputation()
			if c == nil {
				return "", false
			}
			elems = append(elems, inlineElem{comp: c})
			inline = true
		} else {
			n := p.name()
			if n == "" {
				break // not a list of names: let value read it
			}
			elems = append(elems, inlineElem{name: n})
		}
		if !p.accept(',') {
			break
		}
	}
	if !inline {
		p.reset(m)
		return p.value()
	}
	if !p.expect('}') {
		return "", false
	}
	p.inline = append(p.inline, inlineRef{in: in, idx: idx, list: true, elems: elems})
	return "", true
}

// inlineComputation reads a computation written inline in an attribute ({ instructions }),
// as XLA's parser reads to_apply={...}. It is named by nameInline.
func (p *parser) inlineComputation() *Computation {
	if p.depth >= MaxNestingDepth {
		p.errorf("computations nested deeper than %d levels", MaxNestingDepth)
		return nil
	}
	p.depth++
	saved := p.cs
	p.cs = compState{}
	c := &Computation{Line: p.line}
	p.pos++ // '{'
	p.instructions(c, "written inline")
	p.endComputation(c)
	p.cs = saved
	p.depth--
	p.m.Computations = append(p.m.Computations, c)
	p.inlines = append(p.inlines, c)
	return c
}

// normalizeValue removes comments and '%' name prefixes outside strings and turns runs of
// white space into one space. '%'s that do not start a name are kept: dropping them could
// join '/' and '*' into a comment.
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
			for i+1 < len(raw) && raw[i+1] != '\n' && raw[i+1] != '\r' {
				i++
			}
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			if len(b) > 0 && b[len(b)-1] != ' ' {
				b = append(b, ' ')
			}
		case c == '%':
			// %name: the '%' is not part of the name. Any other run of '%' is kept.
			j := i
			for j < len(raw) && raw[j] == '%' {
				j++
			}
			if j == len(raw) || !isIdentStart(raw[j]) {
				b = append(b, raw[i:j]...)
			}
			i = j - 1
		default:
			b = append(b, c)
		}
	}
	for len(b) > 0 && b[len(b)-1] == ' ' {
		b = b[:len(b)-1]
	}
	return string(b)
}
