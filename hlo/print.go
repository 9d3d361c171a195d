package hlo

import (
	"bufio"
	"io"
	"strconv"
	"strings"
)

// Print writes m in one canonical text form: the short form (no '%', no operand shapes) with
// the computation signatures that were parsed, one instruction per line, attributes as parsed.
// Instructions nested as operands, parameters of a single instruction and computations
// written inline are printed as instructions and computations of their own, with the names
// the parser gave them; an unknown shape is left out. Parsing the output gives a module with
// the same Fingerprint.
func Print(w io.Writer, m *Module) error {
	bw := bufio.NewWriter(w)
	bw.WriteString("HloModule ")
	bw.WriteString(m.Name)
	writeAttrs(bw, m.Attrs)
	bw.WriteString("\n")
	for _, c := range m.Computations {
		bw.WriteString("\n")
		printComputation(bw, c)
	}
	return bw.Flush()
}

func writeAttrs(bw textWriter, attrs []Attr) {
	for _, a := range attrs {
		bw.WriteString(", ")
		bw.WriteString(a.Name)
		bw.WriteByte('=')
		bw.WriteString(a.Value)
	}
}

// PrintComputation writes one computation in the canonical form of Print.
func PrintComputation(w io.Writer, c *Computation) error {
	bw := bufio.NewWriter(w)
	printComputation(bw, c)
	return bw.Flush()
}

func printComputation(bw *bufio.Writer, c *Computation) {
	if c.Entry {
		bw.WriteString("ENTRY ")
	}
	bw.WriteString(c.Name)
	if c.Result != nil {
		bw.WriteString(" (")
		for i, p := range c.Params {
			if i > 0 {
				bw.WriteString(", ")
			}
			bw.WriteString(p.Name)
			bw.WriteString(": ")
			bw.WriteString(p.Shape.String())
		}
		bw.WriteString(") -> ")
		bw.WriteString(c.Result.String())
	}
	bw.WriteString(" {\n")
	for _, in := range c.Instructions {
		bw.WriteString("  ")
		printInstruction(bw, in)
		bw.WriteByte('\n')
	}
	bw.WriteString("}")
	writeAttrs(bw, c.Attrs)
	bw.WriteString("\n")
}

// InstructionString prints one instruction in the canonical form of Print, without
// indentation or newline.
func InstructionString(in *Instruction) string {
	var b strings.Builder
	printInstruction(&b, in)
	return b.String()
}

// textWriter is what the printer writes to: a bufio.Writer or a strings.Builder.
type textWriter interface {
	WriteString(s string) (int, error)
	WriteByte(c byte) error
}

func printInstruction(bw textWriter, in *Instruction) {
	if in.Root {
		bw.WriteString("ROOT ")
	}
	bw.WriteString(in.Name)
	bw.WriteString(" = ")
	if in.Shape.Known() {
		bw.WriteString(in.Shape.String())
		bw.WriteByte(' ')
	}
	bw.WriteString(in.Opcode)
	bw.WriteByte('(')
	switch in.Opcode {
	case "parameter":
		bw.WriteString(strconv.Itoa(in.Param))
	case "constant":
		bw.WriteString(in.Literal)
	default:
		for i, op := range in.Operands {
			if i > 0 {
				bw.WriteString(", ")
			}
			bw.WriteString(op)
		}
	}
	bw.WriteByte(')')
	writeAttrs(bw, in.Attrs)
}
