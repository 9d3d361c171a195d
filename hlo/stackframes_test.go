package hlo

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// stackDump is a module as JAX 0.12 dumps it (testdata/runs/jax-0.12/closed-constant): the
// stack-frame tables after the header, ops naming a frame by stack_frame_id.
const stackDump = `HloModule jit_train_step, entry_computation_layout={(f32[8,4]{1,0})->f32[8,4]{1,0}}

FileNames
1 "testdata/runs/gen/jax_runs.py"
2 "testdata/runs/gen/driver.py"

FunctionNames
1 "<module>"
2 "main"
3 "child"
4 "p_closed_constant"
5 "p_closed_constant.<locals>.make_train_step.<locals>.train_step"

FileLocations
1 {file_name_id=1 function_name_id=1 line=824 end_line=824 column=4 end_column=26}
2 {file_name_id=2 function_name_id=2 line=387 end_line=387 column=8 end_column=27}
3 {file_name_id=2 function_name_id=3 line=193 end_line=193 column=4 end_column=21}
4 {file_name_id=1 function_name_id=4 line=188 end_line=188 column=16 end_column=26}
5 {file_name_id=1 function_name_id=5 line=180 end_line=180 column=23 end_column=75}

StackFrames
1 {file_location_id=1 parent_frame_id=1}
2 {file_location_id=2 parent_frame_id=2}
3 {file_location_id=3 parent_frame_id=3}
4 {file_location_id=4 parent_frame_id=4}
5 {file_location_id=5 parent_frame_id=5}


ENTRY %main.1 (w.1: f32[8,4]) -> f32[8,4] {
  %w.1 = f32[8,4]{1,0} parameter(0), metadata={op_name="w"}
  %constant.2 = f32[] constant(0.1)
  %mul.3 = f32[8,4]{1,0} broadcast(%constant.2), dimensions={}, metadata={op_name="jit(train_step)/mul" stack_frame_id=5}
  ROOT %sub.1 = f32[8,4]{1,0} subtract(%w.1, %mul.3), metadata={op_name="jit(train_step)/sub" stack_frame_id=9}
}
`

// The tables are read, and an op's stack walked innermost first: the line in the jitted
// function, the line that called it, and on out (XLA prints each parent one above the frame
// number it names: parent_frame_id=5 is frame 4, 1 is none).
func TestStackFrames(t *testing.T) {
	m := mustParse(t, "stack.hlo", stackDump)
	if len(m.Locations) != 5 || len(m.Frames) != 5 || len(m.FileNames) != 2 {
		t.Fatalf("locations %d, frames %d, files %d", len(m.Locations), len(m.Frames), len(m.FileNames))
	}
	var got []string
	md := m.Entry.Instruction("mul.3").Metadata()
	m.Stack(md.StackFrame, func(s SourceLine) bool {
		got = append(got, s.String()+" "+s.Function)
		return true
	})
	want := []string{
		"testdata/runs/gen/jax_runs.py:180 p_closed_constant.<locals>.make_train_step.<locals>.train_step",
		"testdata/runs/gen/jax_runs.py:188 p_closed_constant",
		"testdata/runs/gen/driver.py:193 child",
		"testdata/runs/gen/driver.py:387 main",
		"testdata/runs/gen/jax_runs.py:824 <module>",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("stack of mul.3:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	notJitted := func(file string) bool { return !strings.HasSuffix(file, "driver.py") }
	if s := m.Source(md, nil); s != "testdata/runs/gen/jax_runs.py:180" {
		t.Errorf("source of mul.3 = %q", s)
	}
	if s := m.Source(m.Entry.Instruction("sub.1").Metadata(), notJitted); s != "" {
		t.Errorf("a frame the tables lack gives %q", s)
	}
	if s := m.Source(Meta{SourceFile: "model.py", SourceLine: "3", StackFrame: 5}, nil); s != "model.py:3" {
		t.Errorf("source_file and source_line come first, got %q", s)
	}
}

// Every committed JAX dump with stack-frame tables: each op's stack_frame_id names a frame
// the tables hold, and its walk ends at a frame with no caller.
func TestStackFramesOfRuns(t *testing.T) {
	files, _ := filepath.Glob("../testdata/runs/jax-0.12/*/dump/*.before_optimizations.txt")
	checked := 0
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil || !bytes.Contains(b, []byte("\nStackFrames\n")) {
			continue
		}
		m, _ := Parse(file, b)
		for _, c := range m.Computations {
			for _, in := range c.Instructions {
				md := in.Metadata()
				if md.StackFrame == 0 {
					continue
				}
				n := 0
				m.Stack(md.StackFrame, func(SourceLine) bool { n++; return true })
				if n == 0 {
					t.Fatalf("%s: %s's stack_frame_id=%d names no frame (%d frames)", file, in.Name, md.StackFrame, len(m.Frames))
				}
				checked++
			}
		}
	}
	if checked < 100 {
		t.Errorf("%d ops with stacks checked, want at least 100", checked)
	}
}

// FuzzStackFrames: whatever the tables hold, reading them and walking any frame ends, and every
// line walked is a file of the FileNames table.
func FuzzStackFrames(f *testing.F) {
	f.Add([]byte(stackDump), 5)
	f.Add([]byte("HloModule m\nFileNames\n1 \"a.py\"\nFileLocations\n1 {file_name_id=1 line=3}\nStackFrames\n1 {file_location_id=1 parent_frame_id=2}\n2 {file_location_id=1 parent_frame_id=2}\nENTRY e {\n ROOT a = f32[] constant(1)\n}\n"), 2)
	f.Add([]byte("HloModule m\nStackFrames\n99999999999 {file_location_id=99999999999 parent_frame_id=-3}\n"), 1)
	f.Fuzz(func(t *testing.T, src []byte, id int) {
		m, _ := Parse("fuzz.hlo", src)
		n := 0
		m.Stack(id, func(s SourceLine) bool {
			n++
			if n > len(m.Frames) {
				t.Fatalf("walked %d frames of %d", n, len(m.Frames))
			}
			if !slices.Contains(m.FileNames, s.File) {
				t.Fatalf("file %q not in the FileNames table", s.File)
			}
			return true
		})
		m.Source(Meta{StackFrame: id}, func(string) bool { return false })
	})
}

// BenchmarkParseStackFrames parses the largest committed JAX dump with stack-frame tables.
func BenchmarkParseStackFrames(b *testing.B) {
	src, err := os.ReadFile("../testdata/runs/jax-0.12/constructs/dump/module_0056.jit_random_ops.before_optimizations.txt")
	if err != nil {
		b.Skip(err)
	}
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse("jax.hlo", src); err != nil {
			b.Fatal(err)
		}
	}
}
