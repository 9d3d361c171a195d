package hlo

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recomp/recomp/internal/golden"
)

// grammarFiles are the inputs of the grammar goldens: one form of XLA's text grammar each,
// written for these tests in the style of XLA's own.
func grammarFiles(t testing.TB) []string {
	files, err := filepath.Glob("testdata/grammar/*.hlo")
	if err != nil || len(files) < 10 {
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
			golden.Check(t, strings.TrimSuffix(f, ".hlo")+".golden", buf.Bytes())
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

// Instructions written without a shape get the one their operands fix, as XLA infers it;
// where the operands do not fix it the shape stays unknown.
func TestShapelessInstructions(t *testing.T) {
	m := mustParseFile(t, "shapeless.hlo")
	e := m.Entry
	for name, want := range map[string]string{
		"m":      "f32[4,8]{1,0}",
		"e":      "f32[4,8]{1,0}",
		"lt":     "pred[4,8]{1,0}",
		"pick":   "f32[4,8]{1,0}",
		"re":     "f32[4]{0}",
		"fin":    "pred[4]{0}",
		"t":      "(f32[4,8]{1,0}, pred[4,8]{1,0})",
		"first":  "f32[4,8]{1,0}",
		"second": "pred[4,8]{1,0}",
		"tok":    "token[]",
		"pid":    "u32[]",
		"out":    "(f32[4,8]{1,0}, pred[4,8]{1,0})",
		"r":      "unknown", // reduce: its shape is not fixed by its operands
	} {
		in := e.Instruction(name)
		if in == nil {
			t.Fatalf("no instruction %s", name)
		}
		if got := in.Shape.String(); got != want {
			t.Errorf("%s: shape %s, want %s", name, got, want)
		}
	}
	if s := m.Computation("sum").Root.Shape.String(); s != "f32[]" {
		t.Errorf("sum's root: %s", s)
	}
	if r := e.Instruction("r"); r.Shape.Known() || strings.Contains(InstructionString(r), "unknown") {
		t.Errorf("an unknown shape is printed: %s", InstructionString(r))
	}

	// The same module with the shapes written out: the inferred shapes compare equal.
	written := `HloModule written, entry_computation_layout={(f32[4,8]{1,0}, f32[4,8]{1,0}, c64[4]{0})->(f32[4,8]{1,0}, pred[4,8]{1,0})}
sum {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  x = f32[4,8]{1,0} parameter(0)
  y = f32[4,8]{1,0} parameter(1)
  z = c64[4]{0} parameter(2)
  m = f32[4,8]{1,0} multiply(x, y)
  e = f32[4,8]{1,0} exponential(m), result_accuracy={mode=highest}
  lt = pred[4,8]{1,0} compare(x, e), direction=LT
  pick = f32[4,8]{1,0} select(lt, x, e)
  re = f32[4]{0} real(z)
  fin = pred[4]{0} is-finite(re)
  t = (f32[4,8]{1,0}, pred[4,8]{1,0}) tuple(pick, lt)
  first = f32[4,8]{1,0} get-tuple-element(t), index=0
  tok = token[] after-all()
  pid = u32[] partition-id()
  zero = f32[] constant(0)
  r = reduce(first, zero), dimensions={1}, to_apply=sum
  second = pred[4,8]{1,0} get-tuple-element(t), index=1
  ROOT out = (f32[4,8]{1,0}, pred[4,8]{1,0}) tuple(first, second)
}
`
	if a, b := Fingerprint(m), Fingerprint(mustParse(t, "written", written)); a != b {
		t.Errorf("inferred shapes and written shapes: fingerprints %s and %s", a, b)
	}
	// An unknown shape is not any shape: writing one changes the fingerprint.
	known := strings.Replace(written, "r = reduce(", "r = f32[4]{0} reduce(", 1)
	if Fingerprint(m) == Fingerprint(mustParse(t, "known", known)) {
		t.Error("an unknown shape compares equal to a written one")
	}
	// An operand defined after its user (no valid HLO, but text) gets its shape first.
	fwd := mustParse(t, "forward", "HloModule m\nENTRY e {\n  ROOT t = tuple(k)\n  k = partition-id()\n}\n")
	if s := fwd.Entry.Root.Shape.String(); s != "(u32[])" {
		t.Errorf("tuple of an operand defined later: %s", s)
	}
	// Operands that do not fix the shape leave it unknown: f32 and bf16 do not add.
	mixed := mustParse(t, "mixed", "HloModule m\nENTRY e {\n  a = f32[2] parameter(0)\n  b = bf16[2] parameter(1)\n  ROOT c = add(a, b)\n}\n")
	if s := mixed.Entry.Root.Shape; s.Known() {
		t.Errorf("add(f32, bf16) inferred as %s", s)
	}
}

// Instructions nested as operands become instructions of their own, before their user,
// named as XLA names them; the module compares equal to the one written flat.
func TestNestedOperands(t *testing.T) {
	m := mustParseFile(t, "nested-operands.hlo")
	var got []string
	for _, in := range m.Entry.Instructions {
		got = append(got, InstructionString(in))
	}
	want := []string{
		"multiply.anon = f32[16]{0} parameter(0)",
		"parameter.anon = f32[16]{0} parameter(1)",
		"sqrt.anon = f32[16]{0} sqrt(multiply.anon)",
		"parameter.anon.1 = f32[16]{0} parameter(2)",
		"negate.anon = f32[16]{0} negate(parameter.anon.1)",
		"multiply.anon.1 = f32[16]{0} multiply(sqrt.anon, negate.anon)",
		"ROOT root = f32[16]{0} add(parameter.anon, multiply.anon.1)",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("entry:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if r := m.Computation("pair").Root; r.Shape.String() != "s32[3]" || r.Operands[0] != "tuple.anon" {
		t.Errorf("pair's root: %s", InstructionString(r))
	}
	flat := mustParseFile(t, "nested-operands-flat.hlo")
	if a, b := Fingerprint(m), Fingerprint(flat); a != b {
		t.Errorf("nested and flat: fingerprints %s and %s", a, b)
	}
}

// A single instruction is a module of its own: its operands become parameters.
func TestSingleInstruction(t *testing.T) {
	m := mustParseFile(t, "single-instruction.hlo")
	if m.Name != "_" || m.Entry == nil || m.Entry.Name != "_" || len(m.Computations) != 1 {
		t.Fatalf("module %q, entry %+v, %d computations", m.Name, m.Entry, len(m.Computations))
	}
	e := m.Entry
	if len(e.Instructions) != 3 || e.Root.Name != "sum.7" || e.Root.Opcode != "add" {
		t.Fatalf("entry: %d instructions, root %s", len(e.Instructions), InstructionString(e.Root))
	}
	for i, name := range []string{"lhs.3", "rhs.4"} {
		p := e.Instruction(name)
		if p == nil || p.Opcode != "parameter" || p.Param != i || p.Shape.String() != "f32[8,2]{1,0}" {
			t.Errorf("parameter %d: %+v", i, p)
		}
	}
	if md := e.Root.Metadata(); md.OpName != "jit(f)/add" {
		t.Errorf("metadata %+v", md)
	}
	// Without the left-hand side and the operand names: parameters _0, _1 and the instruction _.
	noLHS := mustParseFile(t, "single-instruction-no-lhs.hlo")
	if r := noLHS.Entry.Root; InstructionString(r) != "_ = f32[4,2]{1,0} dot(_0, _1), lhs_contracting_dims={1}, rhs_contracting_dims={0}" {
		t.Errorf("root: %s", InstructionString(r))
	}
	// The operand names do not matter: the same add written with and without them.
	if Fingerprint(m) != Fingerprint(mustParse(t, "nameless", "f32[8,2]{1,0} add(f32[8,2]{1,0}, f32[8,2]{1,0})")) {
		t.Error("a single instruction's fingerprint depends on its operands' names")
	}
	// An operand used twice is one parameter.
	twice := mustParse(t, "twice", "r = f32[] multiply(f32[] x, f32[] x)")
	if n := len(twice.Entry.Instructions); n != 2 {
		t.Errorf("x used twice: %d instructions", n)
	}
	// The reduction written inline, and an operand nested in place.
	in := mustParseFile(t, "single-instruction-inline.hlo")
	if len(in.Computations) != 2 || in.Entry.Root.Opcode != "reduce" {
		t.Fatalf("%d computations, root %s", len(in.Computations), InstructionString(in.Entry.Root))
	}
	callee := in.Computation(in.Entry.Root.CalledComputations()[0])
	if callee == nil || callee == in.Entry || callee.Root.Opcode != "maximum" {
		t.Errorf("to_apply: %+v", callee)
	}
	if got := strings.Join(in.Entry.Root.Operands, ","); got != "acts,zero,constant.anon" {
		t.Errorf("operands %s", got)
	}
}

// A computation called by an attribute may be written inline; the module compares equal to
// the one with the computation written on its own.
func TestInlineComputations(t *testing.T) {
	m := mustParseFile(t, "inline-computations.hlo")
	if len(m.Computations) != 4 || m.Entry.Name != "main" {
		t.Fatalf("%d computations, entry %s", len(m.Computations), m.Entry.Name)
	}
	total := m.Entry.Instruction("total")
	if v, _ := total.Attr("to_apply"); v != "_" || m.Computation("_").Root.Opcode != "add" {
		t.Errorf("to_apply=%q", v)
	}
	if v, _ := m.Entry.Root.Attr("branch_computations"); v != "{negate_it, _.1}" || m.Computation("_.1").Root.Opcode != "exponential" {
		t.Errorf("branch_computations=%q", v)
	}
	named := mustParseFile(t, "inline-computations-named.hlo")
	if a, b := Fingerprint(m), Fingerprint(named); a != b {
		t.Errorf("inline and named computations: fingerprints %s and %s", a, b)
	}
	// Written inline inside a computation written inline.
	deep := mustParse(t, "deep", `HloModule m
ENTRY e {
  p = f32[2] parameter(0)
  ROOT c = f32[2] call(p), to_apply={
    q = f32[2] parameter(0)
    ROOT d = f32[2] call(q), to_apply={
      r = f32[2] parameter(0)
      ROOT n = f32[2] negate(r)
    }
  }
}
`)
	if len(deep.Computations) != 3 {
		t.Errorf("%d computations", len(deep.Computations))
	}
}

// XLA's lexer takes "name:" as a name: HloModule m: is the module m. A // comment ends at a
// carriage return as well as at a line feed.
func TestNameColonAndCarriageReturns(t *testing.T) {
	m := mustParseFile(t, "module-name-colon.hlo")
	if m.Name != "train_step.3" || len(m.Attrs) != 1 {
		t.Errorf("name %q, attributes %v", m.Name, m.Attrs)
	}
	cr := mustParseFile(t, "cr-line-ends.hlo")
	if cr.Name != "old_mac_line_ends" || cr.Entry == nil || len(cr.Entry.Instructions) != 2 {
		t.Fatalf("module %q, entry %+v", cr.Name, cr.Entry)
	}
	if NewHasher(cr, HashOptions{}).Computation(cr.Entry) != NewHasher(m, HashOptions{}).Computation(m.Entry) {
		t.Error("the same computation with carriage returns has another hash")
	}
	// %name: is not a name token: the colon is an error.
	if _, err := Parse("pct.hlo", []byte("HloModule %m:\nENTRY e {\n  ROOT p = f32[] parameter(0)\n}\n")); err == nil {
		t.Error("HloModule %m: accepted")
	}
}

// A custom-call's literal= is a typed value: a shape and a literal of it, or a tuple of those.
func TestCustomCallLiteral(t *testing.T) {
	m := mustParseFile(t, "custom-call-literal.hlo")
	for name, want := range map[string]string{
		"a": "f32[] 0.5",
		"b": "s32[2]{0} {1, 3}",
		"c": "( s32[2,2]{1,0} { {1, 2}, {3, 4} }, pred[2]{0} {true, false} )",
	} {
		if v, _ := m.Entry.Instruction(name).Attr("literal"); v != want {
			t.Errorf("%s: literal=%q, want %q", name, v, want)
		}
	}
	if v, _ := m.Entry.Root.Attr("api_version"); v != "API_VERSION_TYPED_FFI" {
		t.Errorf("the attribute after the literal: %q", v)
	}
	src := readTestdata(t, "grammar/custom-call-literal.hlo")
	changed := strings.Replace(src, "{1, 3}", "{1, 2}", 1)
	if Fingerprint(m) == Fingerprint(mustParse(t, "changed", changed)) {
		t.Error("a changed literal= is not seen by the fingerprint")
	}
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
		{"custom-call literal value", "HloModule m\nENTRY e {\n  ROOT c = f32[] custom-call(), custom_call_target=\"x\", literal=s32[2]{0} {1}\n}\n",
			"x.hlo:3:77: expected 2 elements in dimension 0 of s32[2], found 1"},
		{"unknown element type", "HloModule m\nENTRY e {\n  ROOT x = g32[] parameter(0)\n}\n",
			"x.hlo:3:12: expected element type, found \"g32\""},
		{"unknown element type in a header", "HloModule m\nENTRY e (x: g32[]) -> g32[] {\n  ROOT x = f32[] parameter(0)\n}\n",
			"x.hlo:2:13: expected element type, found \"g32\""},
		{"two ENTRY computations", "HloModule m\nENTRY c1 {\n  ROOT a = f32[1]{0} constant({1})\n}\nENTRY c2 {\n  ROOT b = f32[1]{0} constant({2})\n}\n",
			"x.hlo:5:1: a second ENTRY computation c2 (the first is c1)"},
		{"parameter without shape", "HloModule m\nENTRY e {\n  ROOT p = parameter(0)\n}\n",
			"x.hlo:3:12: expected shape before opcode parameter: XLA infers no shape for it"},
		{"nested constant without shape", "HloModule m\nENTRY e {\n  ROOT p = f32[] add(constant(1), constant(2))\n}\n",
			"x.hlo:3:22: expected shape before opcode constant: XLA infers no shape for it"},
		{"nested instruction with attributes", "HloModule m\nENTRY e {\n  t = (f32[], f32[]) parameter(0)\n  ROOT p = f32[] negate(get-tuple-element(t), index=0)\n}\n",
			"x.hlo:4:52: expected ',', found '='"},
		{"single instruction without operand shapes", "%m = f32[2,4]{1,0} multiply(%a, %b)",
			"x.hlo:1:29: expected shape before operand a: the operands of a single instruction become parameters of their shapes"},
		{"two single instructions", "p = f32[2] parameter(0)\nn = f32[2] negate(p)\n",
			"x.hlo:2:1: expected end of input after a single instruction, found \"n\""},
		{"instructions nested too deep", "f32[] " + strings.Repeat("negate(", 70) + "f32[] x" + strings.Repeat(")", 70),
			"x.hlo:1:462: instructions nested deeper than 64 levels"},
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
		{"unknown opcode without shape", "HloModule m\nENTRY e {\n  x = f32[] parameter(0)\n  ROOT y = frobnicate(x)\n}\n"},
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
