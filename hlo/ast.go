package hlo

import (
	"strconv"
	"strings"
)

// Module is one parsed HloModule.
type Module struct {
	Name         string
	Attrs        []Attr // header attributes, in the order printed
	Computations []*Computation
	Entry        *Computation
	File         string
	// FileNames are the Python (or other) source files newer XLA lists after the header (its
	// FileNames table, which op metadata's stack frames index): the files that made the module.
	FileNames []string
	// FunctionNames are the functions its FunctionNames table names (the Python functions of
	// op metadata's stack frames: "JAXTrainer.make_train_function.<locals>.<lambda>").
	FunctionNames []string
	// Locations and Frames are its FileLocations and StackFrames tables: op metadata's
	// stack_frame_id numbers a frame of Frames from 1, and each frame its location and its
	// caller's frame (Stack walks them). Nil where XLA printed none.
	Locations []Location
	Frames    []Frame

	byName map[string]*Computation
}

// Location is a row of a module's FileLocations table: a file of FileNames and a function of
// FunctionNames, each numbered from 1 (0 when the row names none), and the line.
type Location struct {
	File, Function, Line int32
}

// Frame is a row of a module's StackFrames table: its location in Locations and its caller's
// frame in Frames, each numbered from 1 (Parent 0: the outermost frame). XLA prints a parent
// one above the number it stores, whose 0 means none (HloModule::PrintStackFrameIndex), so
// `parent_frame_id=1` is read as no caller and `parent_frame_id=5` as frame 4.
type Frame struct {
	Location, Parent int32
}

// SourceLine is one frame of an op's stack as a module's tables name it.
type SourceLine struct {
	File, Function string
	Line           int
}

// String is FILE:LINE.
func (s SourceLine) String() string { return s.File + ":" + strconv.Itoa(s.Line) }

// Stack calls yield with each frame of the stack numbered id in Frames (op metadata's
// stack_frame_id), innermost first, until yield returns false. A frame whose location or file
// the tables lack ends the walk; a parent loop is walked at most once round.
func (m *Module) Stack(id int, yield func(SourceLine) bool) {
	for steps := 0; id > 0 && id <= len(m.Frames) && steps < len(m.Frames); steps++ {
		f := m.Frames[id-1]
		if f.Location < 1 || int(f.Location) > len(m.Locations) {
			return
		}
		loc := m.Locations[f.Location-1]
		if loc.File < 1 || int(loc.File) > len(m.FileNames) {
			return
		}
		s := SourceLine{File: m.FileNames[loc.File-1], Line: int(loc.Line)}
		if loc.Function >= 1 && int(loc.Function) <= len(m.FunctionNames) {
			s.Function = m.FunctionNames[loc.Function-1]
		}
		if !yield(s) {
			return
		}
		id = int(f.Parent)
	}
}

// Source is where an op's metadata says it was made: its source_file and source_line where
// it has them (Meta.Source), else the innermost frame of its stack_frame_id whose file keep
// accepts (nil: the innermost), as FILE:LINE; "" when neither names one.
func (m *Module) Source(md Meta, keep func(file string) bool) string {
	if s := md.Source(); s != "" || md.StackFrame == 0 {
		return s
	}
	out := ""
	m.Stack(md.StackFrame, func(s SourceLine) bool {
		if keep == nil || keep(s.File) {
			out = s.String()
			return false
		}
		return true
	})
	return out
}

// Computation returns the computation with the given name, or nil.
func (m *Module) Computation(name string) *Computation {
	if m.byName == nil {
		m.byName = make(map[string]*Computation, len(m.Computations))
		for _, c := range m.Computations {
			m.byName[c.Name] = c
		}
	}
	return m.byName[strings.TrimPrefix(name, "%")]
}

// Attr returns the value of the header attribute name, and whether it is there.
func (m *Module) Attr(name string) (string, bool) { return findAttr(m.Attrs, name) }

// InstructionCount is the number of instructions in all computations.
func (m *Module) InstructionCount() int {
	n := 0
	for _, c := range m.Computations {
		n += len(c.Instructions)
	}
	return n
}

// Computation is one computation: ENTRY or called by instructions.
type Computation struct {
	Name         string
	Entry        bool
	Params       []Param // from the header's parameter list; empty in the short form
	Result       *Shape  // from the header; nil in the short form
	Instructions []*Instruction
	Root         *Instruction
	Line         int
	Attrs        []Attr // after the closing brace, e.g. execution_thread

	index map[string]int32 // by name: the position in Instructions (the last of equal names)
}

// Instruction returns the instruction with the given name, or nil.
func (c *Computation) Instruction(name string) *Instruction {
	if i, ok := c.IndexOf(strings.TrimPrefix(name, "%")); ok {
		return c.Instructions[i]
	}
	return nil
}

// IndexOf returns the position in Instructions of the instruction with exactly this name (the
// last one, if several have it). The index is built on first use and shared by every caller, so
// that hashing and matching a large module do not each build a map of their own; like
// Instruction, it is not safe for concurrent first use.
func (c *Computation) IndexOf(name string) (int, bool) {
	if c.index == nil {
		c.index = make(map[string]int32, len(c.Instructions))
		for i, in := range c.Instructions {
			c.index[in.Name] = int32(i)
		}
	}
	i, ok := c.index[name]
	if !ok || int(i) >= len(c.Instructions) {
		return 0, false
	}
	return int(i), true
}

// Param is one entry of a computation header's parameter list.
type Param struct {
	Name  string
	Shape Shape
}

// Instruction is one HLO instruction.
type Instruction struct {
	Name     string
	Root     bool
	Shape    Shape
	Opcode   string
	Operands []string // operand instruction names, without '%'
	// Param is the parameter number of a parameter instruction, -1 otherwise.
	Param int
	// Literal is the literal of a constant instruction as printed (whitespace kept); see
	// Elided and CanonicalLiteral.
	Literal string
	Attrs   []Attr
	Line    int
}

// Attr returns the value of the attribute name, and whether it is there.
func (in *Instruction) Attr(name string) (string, bool) { return findAttr(in.Attrs, name) }

// Elided reports whether a constant's literal was printed as {...}: its values are not in
// the text, so two elided constants can never be said to be equal.
func (in *Instruction) Elided() bool { return strings.Contains(in.Literal, "...") }

// Attr is one name=value attribute. Value is the text as printed with '%' name prefixes,
// comments and line breaks taken out, so that the long and short forms give the same value.
type Attr struct {
	Name  string
	Value string
}

func findAttr(attrs []Attr, name string) (string, bool) {
	for _, a := range attrs {
		if a.Name == name {
			return a.Value, true
		}
	}
	return "", false
}

// Shape is an array shape (Elem set) or a tuple (IsTuple set). The zero Shape is unknown: an
// instruction written without its shape whose operands do not fix it (see Known).
type Shape struct {
	Elem      string  // element type: f32, bf16, pred, token, ...; "" for a tuple
	Dims      []int64 // -1 for an unbounded dynamic dimension (?)
	Bounded   uint64  // bit i set: dimension i was printed <=Dims[i]
	Layout    string  // the text between the layout braces, "" when none was printed
	HasLayout bool
	IsTuple   bool
	Tuple     []Shape
}

// String prints the shape as XLA does, with its layout; "unknown" for a shape the text left
// out and the parser could not infer.
func (s Shape) String() string {
	var b strings.Builder
	s.write(&b, true)
	return b.String()
}

// NoLayout prints the shape without layouts.
func (s Shape) NoLayout() string {
	var b strings.Builder
	s.write(&b, false)
	return b.String()
}

// DimsString prints only the dimensions, e.g. [32,128].
func (s Shape) DimsString() string {
	var b strings.Builder
	s.writeDims(&b)
	return b.String()
}

func (s Shape) write(b *strings.Builder, layout bool) {
	if !s.Known() {
		b.WriteString("unknown")
		return
	}
	if s.IsTuple {
		b.WriteByte('(')
		for i, t := range s.Tuple {
			if i > 0 {
				b.WriteString(", ")
			}
			t.write(b, layout)
		}
		b.WriteByte(')')
		return
	}
	b.WriteString(s.Elem)
	s.writeDims(b)
	if layout && s.HasLayout {
		b.WriteByte('{')
		b.WriteString(s.Layout)
		b.WriteByte('}')
	}
}

func (s Shape) writeDims(b *strings.Builder) {
	b.WriteByte('[')
	for i, d := range s.Dims {
		if i > 0 {
			b.WriteByte(',')
		}
		switch {
		case d < 0:
			b.WriteByte('?')
		default:
			if i < 64 && s.Bounded&(1<<uint(i)) != 0 {
				b.WriteString("<=")
			}
			b.WriteString(strconv.FormatInt(d, 10))
		}
	}
	b.WriteByte(']')
}

// SameDims reports whether two array shapes have the same dimensions.
func (s Shape) SameDims(t Shape) bool {
	if len(s.Dims) != len(t.Dims) || s.Bounded != t.Bounded {
		return false
	}
	for i := range s.Dims {
		if s.Dims[i] != t.Dims[i] {
			return false
		}
	}
	return true
}
