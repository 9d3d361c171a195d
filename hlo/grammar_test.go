package hlo

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden outputs in testdata/grammar/*.golden")

// grammarFiles are the inputs of the grammar goldens: one form of XLA's text grammar each,
// written for these tests in the style of XLA's own.
func grammarFiles(t testing.TB) []string {
	files, err := filepath.Glob("testdata/grammar/*.hlo")
	if err != nil || len(files) < 4 {
		t.Fatalf("grammar inputs: %d files, %v", len(files), err)
	}
	return files
}

// TestGrammarGolden parses each grammar input and compares the canonical print and the
// fingerprint with its golden file (go test -run TestGrammarGolden -update rewrites them).
// Each parses without errors, and the print parses again to the same fingerprint.
func TestGrammarGolden(t *testing.T) {
	for _, f := range grammarFiles(t) {
		t.Run(filepath.Base(f), func(t *testing.T) {
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			m, err := Parse(filepath.Base(f), src)
			if err != nil {
				t.Fatalf("parse: %v", err)
			}
			var buf bytes.Buffer
			if err := Print(&buf, m); err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(&buf, "\n// fingerprint %s\n", Fingerprint(m))
			golden := strings.TrimSuffix(f, ".hlo") + ".golden"
			if *update {
				if err := os.WriteFile(golden, buf.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if got := buf.String(); got != string(want) {
				t.Errorf("%s differs from %s:\n%s", f, golden, got)
			}
			m2, err := Parse(f+" (printed)", buf.Bytes())
			if err != nil {
				t.Fatalf("printed module does not parse: %v", err)
			}
			if Fingerprint(m2) != Fingerprint(m) {
				t.Errorf("fingerprint %s, after print and parse %s", Fingerprint(m), Fingerprint(m2))
			}
		})
	}
}

func mustParseFile(t *testing.T, name string) *Module {
	t.Helper()
	return mustParse(t, name, readTestdata(t, filepath.Join("grammar", name)))
}

// Layouts, window, result_accuracy, input_output_alias and buffer_donor in every form XLA
// prints; layouts written with spaces compare equal to the ones XLA prints.
func TestAttributeGrammars(t *testing.T) {
	l := mustParseFile(t, "layouts.hlo")
	for name, want := range map[string]string{
		"b": "0,1,2:T(2,*,128)",
		"e": "1,0:D(D,C+~)#(u32)*(u64)",
		"g": "0,1",
	} {
		if got := l.Entry.Instruction(name).Shape.Layout; got != want {
			t.Errorf("%s: layout %q, want %q", name, got, want)
		}
	}
	a := mustParseFile(t, "module-attributes.hlo")
	if v, _ := a.Attr("input_output_alias"); v != "{ {0}: (0, {}, must-alias), {1, 0}: (1, {0}), }" {
		t.Errorf("input_output_alias=%q", v)
	}
	if v, _ := a.Entry.Instruction("pooled").Attr("window"); v != "{size=1x2 pad=0_0x-1_1}" {
		t.Errorf("window=%q", v)
	}
	lit := mustParseFile(t, "literals.hlo")
	if got := CanonicalLiteral(lit.Entry.Instruction("r").Literal); got != "{{{1},{2.5}},{{-300},{inf}}}" {
		t.Errorf("literal with comments: %s", got)
	}
}

// Each syntax error XLA's parser refuses is refused, at its position.
func TestRefusedSyntax(t *testing.T) {
	const entry = "\nENTRY e {\n  ROOT p = (f32[], f32[]) parameter(0)\n}\n"
	for _, c := range []struct{ name, src, want string }{
		{"alias index not numerical", "HloModule m, input_output_alias={ {0, a}: (0, {0}), {1}: (0, {1}) }" + entry,
			"x.hlo:1:39: expected integer in shape index, found \"a\""},
		{"alias without colon", "HloModule m, input_output_alias={ {0, 0}: (0, {0}), (0, {1}) }" + entry,
			"x.hlo:1:53: expected '{', found '('"},
		{"alias with two colons", "HloModule m, input_output_alias={ {0}: (0, {0}): {0, 1}, {1}: (0, {1}) }" + entry,
			"x.hlo:1:48: expected '}', found ':'"},
		{"alias index not closed", "HloModule m, input_output_alias={ {0 : (0, {0}), {1}: (0, {1}) }" + entry,
			"x.hlo:1:38: expected '}', found ':'"},
		{"alias parameter not numerical", "HloModule m, input_output_alias={ {0}: (zero, {0}) }" + entry,
			"x.hlo:1:41: expected parameter number, found \"zero\""},
		{"alias kind", "HloModule m, input_output_alias={ {0}: (0, {0}, maybe-alias) }" + entry,
			"x.hlo:1:49: expected must-alias or may-alias, found \"maybe-alias\""},
		{"donor index not numerical", "HloModule m, buffer_donor={ (0, {0, a}), (0, {1}) }" + entry,
			"x.hlo:1:37: expected integer in shape index, found \"a\""},
		{"donor parameter not numerical", "HloModule m, buffer_donor={ (zero, {0}) }" + entry,
			"x.hlo:1:30: expected parameter number, found \"zero\""},
		{"window padding with interior", "HloModule m\nENTRY e {\n  c = f32[1,2,1] parameter(0)\n  k = f32[1,1,1] parameter(1)\n" +
			"  ROOT v = f32[1,2,1] convolution(c, k), dim_labels=b0f_0io->b0f, window={pad=1_1_0 size=1}\n}\n",
			"x.hlo:5:79: expected padding low_high in window, found \"1_1_0\""},
		{"window sizes differ", "HloModule m\nENTRY e {\n  c = f32[4,4] parameter(0)\n  z = f32[] constant(0)\n" +
			"  ROOT v = f32[2,2] reduce-window(c, z), window={size=2x2 stride=2}, to_apply=e\n}\n",
			"x.hlo:5:49: window stride= has 1 dimensions, size= has 2"},
		{"window twice size", "HloModule m\nENTRY e {\n  c = f32[4] parameter(0)\n  z = f32[] constant(0)\n" +
			"  ROOT v = f32[2] reduce-window(c, z), window={size=2 size=2}, to_apply=e\n}\n",
			"x.hlo:5:55: window has a second size="},
		{"layout dimension level type", "HloModule m\nENTRY e {\n  ROOT p = f32[10,10]{1,0:D(X,C)} parameter(0)\n}\n",
			"x.hlo:3:29: expected dimension level type, found \"X\""},
		{"layout sections out of order", "HloModule m\nENTRY e {\n  ROOT p = f32[10,10]{1,0:S(1)T(8,128)} parameter(0)\n}\n",
			"x.hlo:3:31: expected '}' to close layout, found \"T\""},
		{"layout trailing comma", "HloModule m\nENTRY e {\n  ROOT p = f32[10,10]{1,} parameter(0)\n}\n",
			"x.hlo:3:25: expected dimension number in layout, found '}'"},
		{"result accuracy without name", "HloModule m\nENTRY e {\n  x = f32[] parameter(0)\n  ROOT y = f32[] exponential(x), result_accuracy={0.5}\n}\n",
			"x.hlo:4:51: expected mode= or tolerance= in result_accuracy, found \"0.5\""},
		{"result accuracy unknown tolerance", "HloModule m\nENTRY e {\n  x = f32[] parameter(0)\n  ROOT y = f32[] exponential(x), result_accuracy={tolerance={eps=1}}\n}\n",
			"x.hlo:4:62: expected atol=, rtol= or ulps= in result_accuracy tolerance, found \"eps\""},
		{"ragged literal", "HloModule m\nENTRY e {\n  ROOT c = f32[2]{0} constant({1,{2}})\n}\n",
			"x.hlo:3:34: expected number, found '{' (f32[2] has rank 1)"},
		{"flat literal of rank 2", "HloModule m\nENTRY e {\n  ROOT c = f32[2,3]{1,0} constant({1, 2, 3, 4, 5, 6})\n}\n",
			"x.hlo:3:36: expected '{', found \"1\" (f32[2,3] has rank 2)"},
		{"literal rows too long", "HloModule m\nENTRY e {\n  ROOT c = f32[2,2]{1,0} constant({{1, 2, 3}, {4, 5}})\n}\n",
			"x.hlo:3:43: expected '}', found \"3\" (dimension 1 of f32[2,2] has 2 elements)"},
		{"literal rows too short", "HloModule m\nENTRY e {\n  ROOT c = f32[2,2]{1,0} constant({{1, 2}})\n}\n",
			"x.hlo:3:42: expected 2 elements in dimension 0 of f32[2,2], found 1"},
		{"literal value", "HloModule m\nENTRY e {\n  ROOT c = f32[] constant(one)\n}\n",
			"x.hlo:3:27: expected number, found \"one\""},
		{"literal string", "HloModule m\nENTRY e {\n  a = f32[] constant(\"oops)\n}\n",
			"x.hlo:3:22: expected number, found '\"'"},
		{"unknown element type", "HloModule m\nENTRY e {\n  ROOT x = g32[] parameter(0)\n}\n",
			"x.hlo:3:12: expected element type, found \"g32\""},
		{"unknown element type in a header", "HloModule m\nENTRY e (x: g32[]) -> g32[] {\n  ROOT x = f32[] parameter(0)\n}\n",
			"x.hlo:2:13: expected element type, found \"g32\""},
		{"two ENTRY computations", "HloModule m\nENTRY c1 {\n  ROOT a = f32[1]{0} constant({1})\n}\nENTRY c2 {\n  ROOT b = f32[1]{0} constant({2})\n}\n",
			"x.hlo:5:1: a second ENTRY computation c2 (the first is c1)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, err := Parse("x.hlo", []byte(c.src))
			if m == nil {
				t.Fatal("nil module")
			}
			var list ErrorList
			if !errors.As(err, &list) || len(list) == 0 {
				t.Fatalf("accepted; want %s", c.want)
			}
			if got := list[0].Error(); got != c.want {
				t.Errorf("\n got %s\nwant %s", got, c.want)
			}
		})
	}
}

// What only XLA's verifier (or its semantic checks after the grammar) refuses is accepted:
// recomp reads what a dump says and compares it, whatever XLA would make of it.
func TestVerifierChecksStayLenient(t *testing.T) {
	for _, c := range []struct{ name, src string }{
		{"unknown opcode", "HloModule m\nENTRY e {\n  x = f32[] parameter(0)\n  ROOT y = pred[] le(x, x)\n}\n"},
		{"operand count", "HloModule m\nENTRY e {\n  x = f32[] parameter(0)\n  ROOT y = pred[] compare(x), direction=EQ\n}\n"},
		{"undefined operand", "HloModule m\nENTRY e {\n  x = f32[] parameter(0)\n  ROOT y = pred[] compare(x, z), direction=EQ\n}\n"},
		{"unknown attribute", "HloModule m\nENTRY e {\n  x = f32[] parameter(0)\n  ROOT y = f32[] negate(x), calls=nowhere\n}\n"},
		{"constant out of range", "HloModule m\nENTRY e {\n  ROOT c = u4[] constant(16)\n}\n"},
		{"integer constant written as a decimal", "HloModule m\nENTRY e {\n  ROOT c = s32[] constant(1.5)\n}\n"},
		{"duplicate parameter number", "HloModule m\nENTRY e {\n  a = s8[] parameter(0)\n  b = s8[] parameter(0)\n  ROOT c = s8[] add(a, b)\n}\n"},
		{"root shape against the header", "HloModule m\nENTRY e () -> f32[1] {\n  ROOT c = f32[1,2]{1,0} constant({{1, 2}})\n}\n"},
		{"async pairing", "HloModule m\nENTRY e {\n  p = f32[2] parameter(0)\n  ROOT d = f32[2] custom-call-done(p)\n}\n"},
		{"layout rank", "HloModule m\nENTRY e {\n  ROOT p = f32[2,3]{0} parameter(0)\n}\n"},
		{"duplicate instruction name", "HloModule m\nENTRY e {\n  a = s8[] parameter(0)\n  a = s8[] parameter(1)\n  ROOT c = s8[] add(a, a)\n}\n"},
		{"enum value", "HloModule m\nENTRY e {\n  x = f32[] parameter(0)\n  ROOT y = f32[] exponential(x), result_accuracy={mode=high}\n}\n"},
		{"computation attribute", "HloModule m\nENTRY e {\n  ROOT p = f32[] parameter(0)\n}, scheduling_group=\"a\"\n"},
	} {
		if _, err := Parse(c.name, []byte(c.src)); err != nil {
			t.Errorf("%s: %v", c.name, err)
		}
	}
}
