package hlo

import (
	"strconv"
	"strings"
)

// Shapes of instructions written without one (x = add(a, b)), as XLA's parser infers them.
// The parser infers a shape only where the operands fix it: element-wise operations,
// compare, select, clamp, tuple, get-tuple-element and the few operations whose shape is
// constant. Any other shape stays unknown: it prints as "unknown" and compares equal only to
// another unknown shape.

// needsShape reports whether XLA's parser refuses an instruction of opcode op written
// without its shape (CanInferShape in hlo_parser.cc): the shapes of these operations are
// written out. Unknown opcodes are not refused.
func needsShape(op string) bool {
	switch op {
	case "bitcast", "bitcast-convert", "constant", "convert", "custom-call", "fusion", "infeed", "iota",
		"outfeed", "parameter", "reduce-precision", "reshape", "rng", "rng-bit-generator",
		"rng-get-and-update-state", "stochastic-convert",
		"all-gather", "all-reduce", "all-to-all", "collective-broadcast", "collective-permute",
		"copy-start", "dynamic-reshape", "dynamic-slice", "dynamic-update-slice", "ragged-all-to-all",
		"recv", "send", "reduce-scatter", "slice":
		return true
	}
	// async-start, all-reduce-done, custom-call-start, ...: asynchronous operations.
	return strings.HasSuffix(op, "-start") || strings.HasSuffix(op, "-update") || strings.HasSuffix(op, "-done")
}

// Known reports whether the shape was written or inferred: the zero Shape is unknown.
func (s Shape) Known() bool { return s.IsTuple || s.Elem != "" }

// inferShapes gives the instructions of c that have no shape the one their operands fix.
// It infers to a fixed point, whatever the order of the instructions: an instruction whose
// operand gets its shape later is inferred again then. So a module prints with the shapes it
// inferred and parses again to the same shapes.
func inferShapes(c *Computation) {
	index := make(map[string]int, len(c.Instructions))
	for i, in := range c.Instructions {
		if _, dup := index[in.Name]; !dup {
			index[in.Name] = i
		}
	}
	var queue []int
	users := map[int][]int{} // unknown operand -> the unknown instructions that use it
	for i, in := range c.Instructions {
		if in.Shape.Known() {
			continue
		}
		queue = append(queue, i)
		for _, o := range in.Operands {
			if j, ok := index[o]; ok && !c.Instructions[j].Shape.Known() {
				users[j] = append(users[j], i)
			}
		}
	}
	var ops []Shape
	for len(queue) > 0 {
		in := c.Instructions[queue[0]]
		i := queue[0]
		queue = queue[1:]
		if in.Shape.Known() {
			continue
		}
		ops = ops[:0]
		for _, o := range in.Operands {
			var s Shape
			if j, ok := index[o]; ok {
				s = c.Instructions[j].Shape
			}
			ops = append(ops, s)
		}
		if s := inferShape(in, ops); s.Known() {
			in.Shape = s
			queue = append(queue, users[i]...)
		}
	}
}

// inferShape is the shape of in, whose operands have shapes ops (unknown ones zero), or the
// zero Shape where the operands do not fix it.
//
// (Its cyclomatic complexity is over 25: it is a table of opcodes, one case per kind of
// operation, which reads better whole.)
func inferShape(in *Instruction, ops []Shape) Shape {
	switch in.Opcode {
	case "abs", "ceil", "floor", "negate", "sign", "cosine", "sine", "tan", "exponential",
		"exponential-minus-one", "log", "log-plus-one", "logistic", "sqrt", "rsqrt", "cbrt", "tanh",
		"erf", "round-nearest-afz", "round-nearest-even", "not", "copy", "count-leading-zeros",
		"popcnt", "acos", "acosh", "asin", "asinh", "atanh", "cosh", "sinh", "opt-barrier", "domain":
		if len(ops) == 1 {
			return ops[0]
		}
	case "add-dependency":
		if len(ops) == 2 {
			return ops[0]
		}
	case "is-finite":
		if len(ops) == 1 {
			return withElem(ops[0], "pred")
		}
	case "real", "imag":
		if len(ops) == 1 {
			return withElem(ops[0], realOf(ops[0].Elem))
		}
	case "add", "subtract", "multiply", "divide", "maximum", "minimum", "power", "remainder",
		"and", "or", "xor", "shift-left", "shift-right-arithmetic", "shift-right-logical", "atan2":
		if len(ops) == 2 {
			return same(ops[0], ops[1])
		}
	case "compare":
		if len(ops) == 2 {
			return withElem(same(ops[0], ops[1]), "pred")
		}
	case "complex":
		if len(ops) == 2 {
			return withElem(same(ops[0], ops[1]), complexOf(ops[0].Elem))
		}
	case "select":
		if len(ops) == 3 {
			return same(ops[1], ops[2])
		}
	case "clamp":
		if len(ops) == 3 {
			return ops[1]
		}
	case "tuple":
		t := Shape{IsTuple: true, Tuple: make([]Shape, len(ops))}
		for i, o := range ops {
			if !o.Known() {
				return Shape{}
			}
			t.Tuple[i] = o
		}
		return t
	case "get-tuple-element":
		v, _ := in.Attr("index")
		if k, err := strconv.Atoi(v); err == nil && len(ops) == 1 && ops[0].IsTuple && k >= 0 && k < len(ops[0].Tuple) {
			return ops[0].Tuple[k]
		}
	case "after-all":
		return Shape{Elem: "token", Dims: []int64{}}
	case "partition-id", "replica-id":
		return Shape{Elem: "u32", Dims: []int64{}}
	}
	return Shape{}
}

// same is the shape of an element-wise result of a and b: theirs when they have the same
// element type and dimensions, with the layout only when both have the same one.
func same(a, b Shape) Shape {
	if a.IsTuple || b.IsTuple || !a.Known() || a.Elem != b.Elem || !a.SameDims(b) {
		return Shape{}
	}
	if a.HasLayout != b.HasLayout || a.Layout != b.Layout {
		a.Layout, a.HasLayout = "", false
	}
	return a
}

// withElem is array shape s with element type elem.
func withElem(s Shape, elem string) Shape {
	if s.IsTuple || !s.Known() || elem == "" {
		return Shape{}
	}
	s.Elem = elem
	return s
}

func realOf(elem string) string {
	switch elem {
	case "c64":
		return "f32"
	case "c128":
		return "f64"
	}
	return elem
}

func complexOf(elem string) string {
	switch elem {
	case "f32":
		return "c64"
	case "f64":
		return "c128"
	}
	return ""
}
