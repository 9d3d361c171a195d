package hlo

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/recomp/recomp/internal/corpus"
)

func mustParse(t testing.TB, name string, src string) *Module {
	t.Helper()
	m, err := Parse(name, []byte(src))
	if err != nil {
		t.Fatalf("Parse(%s): %v", name, err)
	}
	return m
}

func readTestdata(t testing.TB, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestShortForm(t *testing.T) {
	m := mustParse(t, "short_form.hlo", readTestdata(t, "short_form.hlo"))
	if m.Name != "jit_train_step" {
		t.Errorf("name = %q", m.Name)
	}
	if v, _ := m.Attr("entry_computation_layout"); v != "{(f32[32,784]{1,0}, f32[784,10]{1,0}, s32[32]{0})->(f32[]{:T(128)}, f32[784,10]{1,0})}" {
		t.Errorf("entry_computation_layout = %q (the /*index=2*/ comment must be dropped)", v)
	}
	if v, _ := m.Attr("input_output_alias"); v != "{ {1}: (1, {}, may-alias) }" {
		t.Errorf("input_output_alias = %q", v)
	}
	if !slices.Equal(m.FileNames, []string{"/home/user/train.py"}) { // the FileNames table, not FunctionNames'
		t.Errorf("file names = %q", m.FileNames)
	}
	if !slices.Equal(m.FunctionNames, []string{"loss"}) {
		t.Errorf("function names = %q", m.FunctionNames)
	}
	if len(m.Computations) != 3 || m.Entry == nil || m.Entry.Name != "main.20" || !m.Entry.Entry {
		t.Fatalf("computations: %d, entry %+v", len(m.Computations), m.Entry)
	}
	e := m.Entry
	if len(e.Instructions) != 17 || e.Root == nil || e.Root.Name != "tuple.17" {
		t.Fatalf("entry has %d instructions, root %v", len(e.Instructions), e.Root)
	}
	w := e.Instruction("w.2")
	if w.Param != 1 || w.Shape.String() != "f32[784,10]{1,0}" {
		t.Errorf("w.2: param %d shape %s", w.Param, w.Shape)
	}
	if v, _ := w.Attr("sharding"); v != "{devices=[2,1,2]<=[4] last_tile_dim_replicate}" {
		t.Errorf("sharding = %q", v)
	}
	dot := e.Instruction("dot.4")
	if got := strings.Join(dot.Operands, ","); got != "x.1,w.2" {
		t.Errorf("dot operands = %s", got)
	}
	md := dot.Metadata()
	if md.OpName != "jit(train_step)/dot_general" || md.Source() != "/home/user/train.py:12" {
		t.Errorf("metadata = %+v", md)
	}
	if lr := e.Instruction("lr.5"); lr.Literal != "0.001" || lr.Elided() {
		t.Errorf("lr literal %q", lr.Literal)
	}
	if big := e.Instruction("big.9"); !big.Elided() {
		t.Errorf("big.9 should be elided: %q", big.Literal)
	}
	if v, _ := e.Instruction("sub.10").Attr("backend_config"); !strings.HasSuffix(v, `"note":"a } in a string"}`) {
		t.Errorf("bare JSON backend_config = %q", v)
	}
	if v, _ := e.Instruction("cc.11").Attr("backend_config"); v != `"{\"alpha\":1,\"s\":\"\\\"}\"}"` {
		t.Errorf("quoted backend_config = %q", v)
	}
	cc := e.Instruction("cc.11")
	if !cc.Shape.IsTuple || len(cc.Shape.Tuple) != 2 || cc.Shape.String() != "(f32[784,10]{1,0}, s8[64]{0})" {
		t.Errorf("tuple shape = %s", cc.Shape)
	}
	dyn := e.Instruction("dyn.13")
	if dyn.Shape.String() != "f32[<=32,?]{1,0}" || dyn.Shape.Dims[1] != -1 {
		t.Errorf("dynamic shape = %s %v", dyn.Shape, dyn.Shape.Dims)
	}
	if v, _ := dyn.Attr("some_new_attribute"); v != "[2,4]<=[8]T(1,0)" {
		t.Errorf("unknown attribute kept as %q", v)
	}
	if s := e.Instruction("tile.14").Shape; s.Layout != "0,3,2,1:T(8,128)(2,1)S(1)" {
		t.Errorf("tiled layout = %q", s.Layout)
	}
	if c := e.Instruction("c.15"); CanonicalLiteral(c.Literal) != "{(1,0),(-inf,nan)}" {
		t.Errorf("complex literal = %q", CanonicalLiteral(c.Literal))
	}
	if v, _ := e.Root.Attr("control-predecessors"); v != "{tok.16}" {
		t.Errorf("control-predecessors = %q", v)
	}
	if got := e.Instruction("reduce.8").CalledComputations(); len(got) != 1 || got[0] != "region_0.5" {
		t.Errorf("called = %v", got)
	}
}

func TestFormsHaveOneFingerprint(t *testing.T) {
	long := mustParse(t, "long_form.hlo", readTestdata(t, "long_form.hlo"))
	hybrid := mustParse(t, "hybrid_form.hlo", readTestdata(t, "hybrid_form.hlo"))
	if a, b := Fingerprint(long), Fingerprint(hybrid); a != b {
		t.Errorf("long and hybrid forms of one module: %s != %s", a, b)
	}
}

func TestFingerprintSeesChanges(t *testing.T) {
	base := readTestdata(t, "hybrid_form.hlo")
	fp := Fingerprint(mustParse(t, "base", base))
	for _, c := range []struct{ name, old, new string }{
		{"shape", "%p0 = bf16[1,300,300,3]", "%p0 = bf16[2,300,300,3]"},
		{"dtype", "%c = bf16[] constant(0.5)", "%c = f32[] constant(0.5)"},
		{"layout", "%p0 = bf16[1,300,300,3]{3,2,1,0}", "%p0 = bf16[1,300,300,3]{0,1,2,3}"},
		{"constant", "constant(0.5)", "constant(0.25)"},
		{"attribute", `grad_x="false"`, `grad_x="true"`},
		{"opcode", "multiply(%p0, %b)", "add(%p0, %b)"},
		{"operand order", "multiply(%p0, %b)", "multiply(%b, %p0)"},
		{"header", "entry_computation_layout={(bf16[1,300,300,3]{3,2,1,0})", "num_partitions=2, entry_computation_layout={(bf16[1,300,300,3]{3,2,1,0})"},
	} {
		changed := strings.Replace(base, c.old, c.new, 1)
		if changed == base {
			t.Fatalf("%s: replacement did not apply", c.name)
		}
		if got := Fingerprint(mustParse(t, c.name, changed)); got == fp {
			t.Errorf("%s change not seen by the fingerprint", c.name)
		}
	}
	for _, c := range []struct{ name, old, new string }{
		{"module name", "HloModule graphsage", "HloModule graphsage.77"},
		{"instruction name", "%mul.5", "%multiply.99"},
		{"metadata", "%c = bf16[] constant(0.5)", `%c = bf16[] constant(0.5), metadata={op_name="lr" source_file="a.py" source_line=3}`},
		{"computation name", "%add_f", "%add_g"},
		{"comment", "multiply(%p0, %b)", "multiply(%p0, /*index=1*/%b)"},
	} {
		changed := strings.Replace(base, c.old, c.new, -1)
		if got := Fingerprint(mustParse(t, c.name, changed)); got != fp {
			t.Errorf("%s change should not change the fingerprint", c.name)
		}
	}
}

func TestErrorsArePositioned(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"HloModule m\n\nENTRY e {\n  a = f32[2]{0} parameter(0)\n  ROOT b = f32[2 add(a, a)\n}\n", "x.hlo:5:18: expected ',' or ']', found \"add\""},
		{"HloModule m\nENTRY e {\n  a = f32[] parameter(x)\n}\n", "x.hlo:3:23: expected parameter number, found \"x\""},
		{"HloModule m\nENTRY e {\n  a = f32[] parameter(0)\n", "x.hlo:4:1: expected '}' to close computation e, found end of file"},
		{"HloModule m\n", "x.hlo:2:1: expected a computation, found end of file"},
		{"HloModule m\nENTRY e {\n  a = f32[] parameter(0), backend_config=\"oops)\n}\n", "x.hlo:3:42: string not terminated"},
		{"HloModule m\nENTRY e {\n  a = f32[] parameter(0), backend_config=\"two\nlines \\\"q\\\"\"\n  b = f32[ bogus\n}\n", "x.hlo:5:12: expected dimension size, found \"bogus\""},
	} {
		m, err := Parse("x.hlo", []byte(c.src))
		if m == nil {
			t.Fatalf("%q: nil module", c.src)
		}
		var list ErrorList
		if !errors.As(err, &list) || len(list) == 0 {
			t.Fatalf("%q: want an ErrorList, got %v", c.src, err)
		}
		if got := list[0].Error(); got != c.want {
			t.Errorf("%q:\n got %s\nwant %s", c.src, got, c.want)
		}
	}
}

func TestRecoversAfterABadLine(t *testing.T) {
	src := "HloModule m\nENTRY e {\n  a = f32[] parameter(0)\n  b = f32[ bogus\n  ROOT c = f32[] negate(a)\n}\n"
	m, err := Parse("r.hlo", []byte(src))
	if err == nil {
		t.Fatal("want an error")
	}
	if m.Entry == nil || m.Entry.Root == nil || m.Entry.Root.Name != "c" {
		t.Fatalf("partial module should keep the instruction after the bad line: %+v", m.Entry)
	}
}

// TestRoundTrip prints every module of the project's tests and of the real example runs and
// parses it again: the fingerprint stays.
func TestRoundTrip(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.hlo")
	files = append(files, grammarFiles(t)...)
	runs, _ := filepath.Glob("../testdata/runs/*/*/dump/*.txt")
	if len(runs) < 100 {
		t.Fatalf("only %d modules in the example runs", len(runs))
	}
	roundTrip(t, append(files, runs...))
}

// TestRoundTripCorpus does the same for the real third-party corpus beside the project.
func TestRoundTripCorpus(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(corpus.Dir(t, "corpus/hlo"), "*", "*.txt"))
	if len(files) < 20 {
		t.Fatalf("only %d modules in the corpus", len(files))
	}
	roundTrip(t, files)
}

func roundTrip(t *testing.T, files []string) {
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		m, err := Parse(f, src)
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		var buf bytes.Buffer
		if err := Print(&buf, m); err != nil {
			t.Fatal(err)
		}
		m2, err := Parse(f+" (printed)", buf.Bytes())
		if err != nil {
			t.Errorf("reparse: %v", err)
			continue
		}
		if a, b := Fingerprint(m), Fingerprint(m2); a != b {
			t.Errorf("%s: fingerprint %s, after print and parse %s", f, a, b)
		}
		if m.InstructionCount() != m2.InstructionCount() {
			t.Errorf("%s: %d instructions, after round trip %d", f, m.InstructionCount(), m2.InstructionCount())
		}
	}
}

func TestCanonicalLiteral(t *testing.T) {
	for in, want := range map[string]string{
		"{ { 1, 2 }, { 3, 4 } }":      "{{1,2},{3,4}}",
		"1.0":                         "1",
		"7.4505806e-09":               "7.4505806e-09",
		"7.4505805969238281e-09":      "7.450580596923828e-09",
		"(5.9604644775390625e-08, 0)": "(5.960464477539063e-08,0)",
		"-inf":                        "-inf",
		"nan(0x7)":                    "nan(0x7)",
		"{...}":                       "{...}",
		"{ { /*i0=0*/ 1, 2 }, { /*i0=1*/ 3, 4 } }": "{{1,2},{3,4}}",
		"{12345 /*bar*/}":                          "{12345}",
		"{1, // one\n 2}":                          "{1,2}",
		"true":                                     "true",
	} {
		if got := CanonicalLiteral(in); got != want {
			t.Errorf("CanonicalLiteral(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestKeyValues(t *testing.T) {
	got := KeyValues(`{op_type="If" op_name="cond/cond" source_file="/a b/ops.py" source_line=1163 profile_type={1,2}}`)
	want := [][2]string{{"op_type", "If"}, {"op_name", "cond/cond"}, {"source_file", "/a b/ops.py"}, {"source_line", "1163"}, {"profile_type", "{1,2}"}}
	if len(got) != len(want) {
		t.Fatalf("got %v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("%d: got %v want %v", i, got[i], want[i])
		}
	}
}

// TestDeepInputsStayBounded: hostile nesting is a positioned error, and a dataflow chain or a
// call chain as long as the module does not recurse on the goroutine stack.
func TestDeepInputsStayBounded(t *testing.T) {
	deep := "HloModule m\nENTRY e {\n  p = " + strings.Repeat("(", 100000) + "f32[]" + strings.Repeat(")", 100000) + " parameter(0)\n}\n"
	_, err := Parse("deep.hlo", []byte(deep))
	if err == nil || !strings.Contains(err.Error(), "deep.hlo:3:") || !strings.Contains(err.Error(), "nested deeper than 64") {
		t.Errorf("deep tuple: %v", err)
	}
	var b strings.Builder
	const n = 200000
	b.WriteString("HloModule chain\nENTRY e {\n  i0 = f32[] parameter(0)\n")
	for i := 1; i < n; i++ {
		fmt.Fprintf(&b, "  i%d = f32[] negate(i%d)\n", i, i-1)
	}
	b.WriteString("}\n")
	m, err := Parse("chain.hlo", []byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	if Fingerprint(m) == "" {
		t.Error("no fingerprint")
	}
	b.Reset()
	b.WriteString("HloModule calls\n")
	for i := 0; i < 20000; i++ {
		if i == 0 {
			fmt.Fprintf(&b, "c0 {\n  p = f32[] parameter(0)\n  ROOT r = f32[] negate(p)\n}\n")
			continue
		}
		fmt.Fprintf(&b, "c%d {\n  p = f32[] parameter(0)\n  ROOT r = f32[] call(p), to_apply=c%d\n}\n", i, i-1)
	}
	b.WriteString("ENTRY e {\n  p = f32[] parameter(0)\n  ROOT r = f32[] call(p), to_apply=c19999\n}\n")
	if m, err = Parse("calls.hlo", []byte(b.String())); err != nil {
		t.Fatal(err)
	}
	if Fingerprint(m) == "" {
		t.Error("no fingerprint")
	}
}

// One program as an older XLA printed it (explicit get-tuple-element) and as XLA 2025+ prints
// it (the element referenced at its use, x#N): the same module.
func TestTupleElementReferences(t *testing.T) {
	old := `HloModule m
body {
  arg = (s32[], f32[4]{0}) parameter(0)
  gte.1 = s32[] get-tuple-element(arg), index=0
  gte.2 = f32[4]{0} get-tuple-element(arg), index=1
  one = s32[] constant(1)
  add = s32[] add(gte.1, one)
  ROOT t = (s32[], f32[4]{0}) tuple(add, gte.2)
}
ENTRY e {
  p = (s32[], f32[4]{0}) parameter(0)
  w = (s32[], f32[4]{0}) call(p), to_apply=body
  ROOT r = f32[4]{0} get-tuple-element(w), index=1
}
`
	newer := `HloModule m
body {
  %arg = (s32[], f32[4]{0}) parameter(0)
  %one = s32[] constant(1)
  %add = s32[] add(%arg#0, %one), metadata={op_name="while/body/add" stack_frame_id=7}
  ROOT %t = (s32[], f32[4]{0}) tuple(%add, %arg#1)
}
ENTRY e {
  %p = (s32[], f32[4]{0}) parameter(0)
  %w = (s32[], f32[4]{0}) call(%p), to_apply=%body
  ROOT %r = f32[4]{0} get-tuple-element(%w), index=1
}
`
	a, err := Parse("old.hlo", []byte(old))
	if err != nil {
		t.Fatal(err)
	}
	b, err := Parse("new.hlo", []byte(newer))
	if err != nil {
		t.Fatal(err)
	}
	if Fingerprint(a) != Fingerprint(b) {
		var pa, pb bytes.Buffer
		Print(&pa, a)
		Print(&pb, b)
		t.Errorf("fingerprints differ:\n%s\n%s", pa.String(), pb.String())
	}
	body := b.Computation("body")
	if len(body.Instructions) != 6 || body.Instructions[2].Opcode != "get-tuple-element" || body.Instructions[2].Shape.String() != "s32[]" {
		t.Errorf("body: %d instructions, [2] = %+v", len(body.Instructions), body.Instructions[2])
	}
	if _, err := Parse("bad.hlo", []byte("HloModule m\nENTRY e {\n  p = (f32[]) parameter(0)\n  ROOT r = f32[] negate(p#)\n}\n")); err == nil ||
		!strings.Contains(err.Error(), "bad.hlo:4:") {
		t.Errorf("x# without an index: %v", err)
	}
}

// A collective's replica groups written over a named device mesh (JAX shard_map, XLA 2025+).
func TestMeshReplicaGroups(t *testing.T) {
	src := "HloModule m\nadd {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT s = f32[] add(a, b)\n}\n" +
		"ENTRY e {\n  p = f32[16]{0} parameter(0)\n  ROOT r = f32[16]{0} all-reduce(p), channel_id=1, replica_groups=mesh['x'=8] {'x'}, use_global_device_ids=true, to_apply=add\n}\n"
	m, err := Parse("mesh.hlo", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := m.Entry.Root.Attr("replica_groups"); v != "mesh['x'=8] {'x'}" {
		t.Errorf("replica_groups = %q", v)
	}
	if v, _ := m.Entry.Root.Attr("to_apply"); v != "add" {
		t.Errorf("to_apply = %q", v)
	}
}

// The fingerprint sees where a computation runs: execution_thread="main" is the default.
func TestFingerprintSeesExecutionThread(t *testing.T) {
	src := readTestdata(t, "grammar/execution-thread.hlo")
	m := mustParse(t, "thread", src)
	if v, _ := findAttr(m.Computation("host_copy").Attrs, "execution_thread"); v != `"host"` {
		t.Errorf("execution_thread=%s", v)
	}
	other := strings.Replace(src, `}, execution_thread="host"`, `}, execution_thread="sparse_core"`, 1)
	if Fingerprint(m) == Fingerprint(mustParse(t, "other", other)) {
		t.Error("two modules that differ only in a computation's execution_thread have one fingerprint")
	}
	noMain := strings.Replace(src, `}, execution_thread="main"`, "}", 1)
	if Fingerprint(m) != Fingerprint(mustParse(t, "no main", noMain)) {
		t.Error(`execution_thread="main" changes the fingerprint`)
	}
}

// A '%' is dropped from a value only where it starts a name: a stray one is kept, so that
// the printed value neither vanishes (x=%) nor turns into a comment (x=/%*).
func TestValuePercent(t *testing.T) {
	m := mustParse(t, "pct.hlo", "HloModule m\nENTRY e {\n  ROOT p = f32[] parameter(0), a=%, b=/%*, c={%x, %y}, d=%%z, e=%%\n}\n")
	for name, want := range map[string]string{"a": "%", "b": "/%*", "c": "{x, y}", "d": "z", "e": "%%"} {
		if v, _ := m.Entry.Root.Attr(name); v != want {
			t.Errorf("%s=%q, want %q", name, v, want)
		}
	}
}

// EntryParams renumbers the entry's parameters for hashing: a version that gained an input in
// front hashes what it computes from the inputs both have alike, and only in the entry.
func TestHashEntryParams(t *testing.T) {
	a := mustParse(t, "a", "HloModule m\nc {\n  p = f32[] parameter(0)\n  ROOT n = f32[] negate(p)\n}\n"+
		"ENTRY e {\n  x = f32[2]{0} parameter(0)\n  ROOT s = f32[2]{0} sine(x)\n}\n")
	b := mustParse(t, "b", "HloModule m\nc {\n  p = f32[] parameter(0)\n  ROOT n = f32[] negate(p)\n}\n"+
		"ENTRY e {\n  st = s32[] parameter(0)\n  x = f32[2]{0} parameter(1)\n  ROOT s = f32[2]{0} sine(x)\n}\n")
	root := func(m *Module, opt HashOptions) uint64 {
		h := NewHasher(m, opt)
		return h.Instructions(m.Entry)[len(m.Entry.Instructions)-1]
	}
	if root(a, HashOptions{}) == root(b, HashOptions{}) {
		t.Fatal("the parameter's number is hashed")
	}
	renumber := map[int]int{1: 0, 0: 1 << 30}
	if root(a, HashOptions{}) != root(b, HashOptions{EntryParams: renumber}) {
		t.Error("renumbered, sine(x) hashes differently")
	}
	if root(a, HashOptions{Skeleton: true}) != root(b, HashOptions{Skeleton: true, EntryParams: renumber}) {
		t.Error("renumbered, sine(x)'s skeleton hashes differently")
	}
	ca, cb := a.Computation("c"), b.Computation("c")
	if NewHasher(a, HashOptions{}).Computation(ca) != NewHasher(b, HashOptions{EntryParams: map[int]int{0: 7}}).Computation(cb) {
		t.Error("a computation other than the entry is renumbered")
	}
}
