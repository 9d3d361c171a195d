package hlo

import (
	"iter"
	"strconv"
	"strings"
)

// KeyValues splits a brace-enclosed list of key=value pairs, as in metadata={op_type="Add"
// op_name="x" source_line=3} (space separated) or frontend_attributes={a="1",b="2"} (comma
// separated). Quoted values are returned without their quotes, escapes kept.
func KeyValues(v string) [][2]string {
	var out [][2]string
	for k, val := range EachKeyValue(v) {
		out = append(out, [2]string{k, val})
	}
	return out
}

// EachKeyValue yields the pairs KeyValues returns, without allocating.
func EachKeyValue(v string) iter.Seq2[string, string] {
	return func(yield func(string, string) bool) { eachKeyValue(v, yield) }
}

// eachKeyValue is the scanner of EachKeyValue. (Its cyclomatic complexity is over 25: it is a
// character-level scanner, one loop with a case per character class or grammar step, which
// reads better whole than split into helpers that pass the position back and forth.)
func eachKeyValue(v string, yield func(string, string) bool) {
	v = strings.TrimSpace(v)
	v = strings.TrimPrefix(v, "{")
	v = strings.TrimSuffix(v, "}")
	i := 0
	for i < len(v) {
		for i < len(v) && (v[i] == ' ' || v[i] == ',') {
			i++
		}
		ks := i
		for i < len(v) && v[i] != '=' && v[i] != ' ' && v[i] != ',' {
			i++
		}
		key := v[ks:i]
		if i >= len(v) || v[i] != '=' {
			if key != "" && !yield(key, "") {
				return
			}
			continue
		}
		i++
		var val string
		switch {
		case i < len(v) && v[i] == '"':
			j := i + 1
			for j < len(v) && v[j] != '"' {
				if v[j] == '\\' {
					j++
				}
				j++
			}
			if j > len(v) {
				j = len(v)
			}
			val = v[i+1 : min(j, len(v))]
			i = j + 1
		case i < len(v) && v[i] == '{':
			depth, j := 0, i
			for ; j < len(v); j++ {
				if v[j] == '{' {
					depth++
				} else if v[j] == '}' {
					depth--
					if depth == 0 {
						j++
						break
					}
				}
			}
			val = v[i:j]
			i = j
		default:
			j := i
			for j < len(v) && v[j] != ' ' && v[j] != ',' {
				j++
			}
			val = v[i:j]
			i = j
		}
		if !yield(key, val) {
			return
		}
	}
}

// Meta is what an instruction's metadata says about where it came from.
type Meta struct {
	OpType, OpName, SourceFile, SourceLine string
	// StackFrame is its stack_frame_id: a frame of the module's StackFrames table, numbered
	// from 1 (Module.Stack); 0 when it names none.
	StackFrame int
}

// Metadata returns the fields of the instruction's metadata attribute that recomp reports.
func (in *Instruction) Metadata() Meta {
	var m Meta
	v, ok := in.Attr("metadata")
	if !ok {
		return m
	}
	for k, val := range EachKeyValue(v) {
		switch k {
		case "op_type":
			m.OpType = val
		case "op_name":
			m.OpName = val
		case "source_file":
			m.SourceFile = val
		case "source_line":
			m.SourceLine = val
		case "stack_frame_id":
			if n, err := strconv.Atoi(val); err == nil && n > 0 {
				m.StackFrame = n
			}
		}
	}
	return m
}

// Source returns file:line from the metadata, or "".
func (m Meta) Source() string {
	if m.SourceFile == "" {
		return ""
	}
	if m.SourceLine == "" {
		return m.SourceFile
	}
	return m.SourceFile + ":" + m.SourceLine
}

// MapSourceFiles renames the source files the module names: its FileNames table and each
// instruction's metadata source_file (a run's own files named relative to where it ran). A
// source_file whose quoted value holds an escape is left as printed.
func (m *Module) MapSourceFiles(rename func(file string) string) {
	for i, f := range m.FileNames {
		m.FileNames[i] = rename(f)
	}
	for _, c := range m.Computations {
		for _, in := range c.Instructions {
			for j := range in.Attrs {
				if a := &in.Attrs[j]; a.Name == "metadata" {
					a.Value = mapSourceFile(a.Value, rename)
				}
			}
		}
	}
}

// mapSourceFile renames the source_file="…" of one metadata value.
func mapSourceFile(v string, rename func(string) string) string {
	const key = `source_file="`
	i := strings.Index(v, key)
	if i < 0 {
		return v
	}
	start := i + len(key)
	n := strings.IndexByte(v[start:], '"')
	if n < 0 || strings.IndexByte(v[start:start+n], '\\') >= 0 {
		return v
	}
	file := v[start : start+n]
	if to := rename(file); to != file {
		return v[:start] + to + v[start+n:]
	}
	return v
}
