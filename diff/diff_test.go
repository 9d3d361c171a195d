package diff

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recomp/recomp/hlo"
	"github.com/recomp/recomp/internal/corpus"
)

func TestParseDumpName(t *testing.T) {
	for _, c := range []struct {
		base        string
		id          int
		name, stage string
	}{
		{"module_0001.jit_f.before_optimizations", 1, "jit_f", StageBefore},
		{"module_0001.jit_f.cpu_after_optimizations", 1, "jit_f", StageAfter},
		{"module_0042.jit_f.sm_8.0_gpu_after_optimizations", 42, "jit_f", StageAfter},
		{"module_0312.after_optimizations", 312, "", StageAfter},
		{"1700000000000000.module_0003.a_inference_f_13__XlaMustCompile_true__.412.before_optimizations", 3, "a_inference_f_13__XlaMustCompile_true__.412", StageBefore},
		{"module_0806.pjit_train_step.0001.pre-spmd-partitioner.after_CallInliner.before_zero_sized_hlo_elimination", 806, "pjit_train_step", "0001.pre-spmd-partitioner.after_CallInliner.before_zero_sized_hlo_elimination"},
		{"module_0001.0001.IPU.after_forward-allocation.before_hlo-memory-scheduler", 1, "", "0001.IPU.after_forward-allocation.before_hlo-memory-scheduler"},
	} {
		id, name, stage, ok := ParseDumpName(c.base)
		if !ok || id != c.id || name != c.name || stage != c.stage {
			t.Errorf("ParseDumpName(%q) = %d %q %q %v", c.base, id, name, stage, ok)
		}
	}
	if _, _, _, ok := ParseDumpName("notes"); ok {
		t.Error("a file without module_NNNN is not a dump name")
	}
}

// TestCorpusPairs checks that every pair of real modules gets the cause a person reading
// corpus/hlo/MANIFEST.md would name first.
func TestCorpusPairs(t *testing.T) {
	dir := corpus.Dir(t, "corpus/hlo")
	want := map[string][]CauseKind{
		"torchxla-neuron/dp_mlp_batch16.txt":                                        {CauseBatchSize},
		"torchxla-neuron/bert_dp_graph1.txt":                                        {CauseIdentical},
		"torchxla-neuron/llama_tp1.txt":                                             {CauseSharding, CauseInputShape, CauseGraphStructure},
		"torchxla-neuron/gpt2_tp1.txt":                                              {CauseSharding, CauseInputShape, CauseGraphStructure},
		"torchxla-neuron/sharding_batch.txt":                                        {CauseSharding, CauseGraphStructure},
		"jax-gpu-compiled-as-text/jaxfft_256_mesh2x4_f32_FFT.compiled.txt|512":      {CauseInputShape},
		"jax-gpu-compiled-as-text/jaxfft_256_mesh2x4_f32_FFT.compiled.txt|f64":      {CauseDtype},
		"jax-gpu-compiled-as-text/jaxfft_256_mesh2x4_f32_FFT.compiled.txt|4x2":      {CauseSharding},
		"jax-gpu-compiled-as-text/pfft3d_256_mesh8x1_f64_IFFT-noncont.compiled.txt": {CauseInputShape, CauseConstant},
		// With one ROI instead of two, XLA simplifies a fusion: the new ops follow the batch.
		"tf-autoclustering-dumpdir/module_0312.after_optimizations.txt": {CauseBatchSize},
		"tf-autoclustering-dumpdir/module_0268.after_optimizations.txt": {CauseInputShape},
	}
	pairs, err := os.ReadFile(filepath.Join(dir, "PAIRS"))
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, line := range strings.Split(string(pairs), "\n") {
		f := strings.Split(line, "\t")
		if len(f) != 2 || strings.HasPrefix(line, "#") {
			continue
		}
		key := f[0]
		if strings.Contains(f[0], "jaxfft_256_mesh2x4_f32") {
			switch {
			case strings.Contains(f[1], "512"):
				key += "|512"
			case strings.Contains(f[1], "f64"):
				key += "|f64"
			default:
				key += "|4x2"
			}
		}
		a, b := parseFile(t, filepath.Join(dir, f[0])), parseFile(t, filepath.Join(dir, f[1]))
		r := Compare(a, b)
		var got []string
		for _, c := range r.Causes {
			got = append(got, string(c.Kind))
		}
		if w, ok := want[key]; ok {
			seen++
			if fmt.Sprint(got) != fmt.Sprint(w) {
				t.Errorf("%s vs %s: causes %v, want %v", f[0], f[1], got, w)
			}
		}
		if len(r.Causes) == 0 {
			t.Errorf("%s vs %s: no cause", f[0], f[1])
		}
		// dp_mlp's result tuple holds per-sample outputs (f32[16,…] → f32[32,…]) next to the weights.
		if strings.Contains(f[0], "dp_mlp") && !strings.Contains(strings.Join(r.Causes[0].Evidence, "\n"), "the result follows") {
			t.Errorf("%s: the result's batch dimension follows the parameters: %v", f[0], r.Causes[0].Evidence)
		}
	}
	if seen != len(want) {
		t.Errorf("checked %d of %d expected pairs", seen, len(want))
	}
}

func parseFile(t testing.TB, path string) *hlo.Module {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m, err := hlo.Parse(path, src)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func synthetic(tb testing.TB, s hlo.Synthetic) *hlo.Module {
	var buf bytes.Buffer
	if err := hlo.WriteSynthetic(&buf, s); err != nil {
		tb.Fatal(err)
	}
	m, err := hlo.Parse("synthetic", buf.Bytes())
	if err != nil {
		tb.Fatal(err)
	}
	return m
}

// largeModule is the instruction count of the large modules the tests compare: 20 000, or
// 5 000 with -short (still over MaxChanges changes, and over TextOptions' default MaxLines).
func largeModule() int {
	if testing.Short() {
		return 5_000
	}
	return 20_000
}

func TestLargeModulesDiffByCause(t *testing.T) {
	n := largeModule()
	a := synthetic(t, hlo.Synthetic{Instructions: n, Batch: 32, Scale: 0.5})
	b := synthetic(t, hlo.Synthetic{Instructions: n, Batch: 24, Scale: 0.5})
	r := Compare(a, b)
	if len(r.Causes) != 1 || r.Causes[0].Kind != CauseBatchSize || r.Added+r.Removed != 0 || r.Matched != a.InstructionCount() {
		t.Errorf("causes %+v matched %d added %d removed %d", r.Causes, r.Matched, r.Added, r.Removed)
	}
	if len(r.Changes) != MaxChanges || r.ChangeCount <= MaxChanges {
		t.Errorf("changes kept %d of %d", len(r.Changes), r.ChangeCount)
	}
	c := synthetic(t, hlo.Synthetic{Instructions: n, Batch: 32, Scale: 0.25})
	layers := n / 5 // a constant in each layer of five instructions
	if r := Compare(a, c); r.Causes[0].Kind != CauseConstant || r.Counts[KindConstant] != layers ||
		!strings.Contains(strings.Join(r.Causes[0].Evidence, "\n"), fmt.Sprintf("… and %d more", layers-8)) {
		t.Errorf("constants: %+v %v", r.Causes, r.Counts)
	}
}

// TestResultFollowsByShape: a result that changed 12 → 11 does not follow a batch change 2 → 1,
// although its printed text contains both numbers.
func TestResultFollowsByShape(t *testing.T) {
	mod := func(batch, out int) *hlo.Module {
		src := fmt.Sprintf("HloModule m\nENTRY e {\n  x = f32[%d,4]{1,0} parameter(0)\n  c = f32[] constant(1)\n  n = f32[%d,4]{1,0} negate(x)\n  ROOT b = f32[%d,4]{1,0} broadcast(c), dimensions={}\n}\n", batch, batch, out)
		m, err := hlo.Parse("m", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	r := Compare(mod(2, 12), mod(1, 11))
	if r.Causes[0].Kind != CauseBatchSize || strings.Contains(strings.Join(r.Causes[0].Evidence, "\n"), "the result follows") {
		t.Errorf("causes %+v", r.Causes)
	}
	r = Compare(mod(2, 2), mod(1, 1))
	if !strings.Contains(strings.Join(r.Causes[0].Evidence, "\n"), "the result follows: f32[2,4]{1,0} → f32[1,4]{1,0}") {
		t.Errorf("causes %+v", r.Causes)
	}
}

// BenchmarkCompareLarge diffs two 100 000-instruction modules that differ in batch size.
func BenchmarkCompareLarge(b *testing.B) {
	x := synthetic(b, hlo.Synthetic{Instructions: 100_000, Batch: 32, Scale: 0.5})
	y := synthetic(b, hlo.Synthetic{Instructions: 100_000, Batch: 24, Scale: 0.5})
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if r := Compare(x, y); r.Causes[0].Kind != CauseBatchSize {
			b.Fatal(r.Causes)
		}
	}
}

func TestFollowsDims(t *testing.T) {
	chs := []Change{
		{Old: "0.0078125", New: "0.010416667"},    // 1/(32*4) → 1/(24*4): a mean over the batch
		{Old: "128", New: "96"},                   // a count over the batch
		{Old: "0.1", New: "0.05"},                 // a learning rate: not the batch
		{Old: "{...}", New: "{...}"},              // not a scalar
		{Old: "0.001953125", New: "0.0013020834"}, // 1/(32*16) → 1/(32*24): a mean over batch and sequence
	}
	follow, rest := followsDims(chs, []dimChange{{32, 24}})
	if len(follow) != 2 || len(rest) != 3 || rest[0].Old != "0.1" {
		t.Errorf("follow %+v, rest %+v", follow, rest)
	}
	follow, _ = followsDims(chs, []dimChange{{16, 24}, {8, 9}})
	if len(follow) != 1 || follow[0].Old != "0.001953125" {
		t.Errorf("sequence: follow %+v", follow)
	}
	// Products of changed dimensions, a dimension with itself among them (an image's H·W), and
	// small arrays that hold one; a learning rate and an array whose other element changed too
	// stay constants of their own.
	chs = []Change{
		{Old: "196", New: "256"},                             // 14·14 → 16·16: a pool over H·W
		{Old: "0.0051020407", New: "0.00390625"},             // 1/(14·14) → 1/(16·16)
		{Old: "{64}", New: "{22}"},                           // Keras's metric count s32[1]
		{Old: "{1, 64}", New: "{1, 22}"},                     // a shape vector
		{Old: "{{64, 2}, {3, 4}}", New: "{{22, 2}, {3, 4}}"}, // nested braces
		{Old: "0.000976563", New: "0.00284091"},              // 1/(64·16) → 1/(22·16): batch times 16, 16 unchanged
		{Old: "12544", New: "5632"},                          // B·H·W: 64·14·14 → 22·16·16
		{Old: "0.1", New: "0.05"},                            // a learning rate
		{Old: "{64, 3}", New: "{22, 5}"},                     // an element that follows nothing
		{Old: "{64}", New: "{22, 1}"},                        // not the same length
		{Old: "{true}", New: "{false}"},                      // not numbers
	}
	follow, rest = followsDims(chs, []dimChange{{64, 22}, {14, 16}, {28, 32}})
	var got []string
	for _, ch := range follow {
		got = append(got, ch.Old)
	}
	if want := "[196 0.0051020407 {64} {1, 64} {{64, 2}, {3, 4}} 0.000976563 12544]"; fmt.Sprint(got) != want || len(rest) != 4 {
		t.Errorf("follow %v, want %s; rest %+v", got, want, rest)
	}
	if follow, _ := followsDims(chs, nil); len(follow) != 0 {
		t.Errorf("no dimension changed, yet %+v follow", follow)
	}
}

// TestTextDiff: a small pair gets go-diff's line diff with A's names replaced by B's, so only
// the changed lines show; a large pair is aligned by the matching and cut, and says so.
func TestTextDiff(t *testing.T) {
	a := synthetic(t, hlo.Synthetic{Instructions: 40, Batch: 32, Scale: 0.5})
	b := synthetic(t, hlo.Synthetic{Instructions: 40, Batch: 32, Scale: 0.25})
	td := Compare(a, b).Text(TextOptions{})
	if !strings.Contains(td.Text, "-scale.3 = f32[] constant(0.5)\n+scale.3 = f32[] constant(0.25)\n") || len(td.Notes) != 0 {
		t.Errorf("small:\n%s%v", td.Text, td.Notes)
	}
	if strings.Contains(td.Text, "metadata") || strings.Count(td.Text, "\n-") != 8 {
		t.Errorf("only the 8 changed constants differ, without metadata:\n%s", td.Text)
	}
	big := Compare(synthetic(t, hlo.Synthetic{Instructions: largeModule(), Batch: 32, Scale: 0.5}),
		synthetic(t, hlo.Synthetic{Instructions: largeModule(), Batch: 24, Scale: 0.5})).Text(TextOptions{MaxOutput: 50})
	if n := strings.Count(big.Text, "\n"); n > 52 || len(big.Notes) != 2 || !strings.Contains(big.Notes[0], "aligned by the structural matching") {
		t.Errorf("large: %d lines, notes %v", n, big.Notes)
	}
	if !strings.Contains(big.Text, "-x.1 = f32[32,256]{1,0} parameter(0)\n+x.1 = f32[24,256]{1,0} parameter(0)") {
		t.Errorf("large:\n%s", big.Text)
	}
}

// BenchmarkTextDiffLarge renders the text diff of two 100 000-instruction modules (after the
// comparison, which BenchmarkCompareLarge measures).
func BenchmarkTextDiffLarge(b *testing.B) {
	r := Compare(synthetic(b, hlo.Synthetic{Instructions: 100_000, Batch: 32, Scale: 0.5}),
		synthetic(b, hlo.Synthetic{Instructions: 100_000, Batch: 24, Scale: 0.5}))
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if td := r.Text(TextOptions{}); td.Text == "" {
			b.Fatal("no diff")
		}
	}
}

// TestInGraphDimension: no parameter changed, yet the batch made inside the graph (PyTorch/XLA's
// torch.ones(batch, 8, device=...), a static argument) changed 32 → 24: the batch size, with
// the mean's divisor as evidence, not a constant of its own; a dimension that does not reach the
// result's leading dimension is an input-shape cause; two different dimensions are not one.
func TestInGraphDimension(t *testing.T) {
	mod := func(rows, cols int) *hlo.Module {
		src := fmt.Sprintf(`HloModule m
ENTRY e {
  w = f32[8,4]{1,0} parameter(0)
  one = f32[] constant(1)
  x = f32[%d,%d]{1,0} broadcast(one), dimensions={}
  d = f32[%d,4]{1,0} dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  s = f32[] constant(%v)
  bs = f32[%d,4]{1,0} broadcast(s), dimensions={}
  ROOT m = f32[%d,4]{1,0} multiply(d, bs)
}
`, rows, cols, rows, 1/float64(rows*4), rows, rows)
		m, err := hlo.Parse("m", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	r := Compare(mod(32, 8), mod(24, 8))
	if len(r.Causes) != 1 || r.Causes[0].Kind != CauseBatchSize || !strings.Contains(r.Causes[0].Summary, "32 → 24 inside the graph") {
		t.Fatalf("causes %+v", r.Causes)
	}
	if ev := strings.Join(r.Causes[0].Evidence, "\n"); !strings.Contains(ev, "constant follows the dimension") || !strings.Contains(ev, "the result follows") {
		t.Errorf("evidence %s", ev)
	}
	transposed := func(cols int) *hlo.Module {
		src := fmt.Sprintf("HloModule m\nENTRY e {\n  one = f32[] constant(1)\n  ROOT x = f32[4,%d]{1,0} broadcast(one), dimensions={}\n}\n", cols)
		m, err := hlo.Parse("m", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	if r := Compare(transposed(32), transposed(24)); r.Causes[0].Kind != CauseInputShape || !strings.Contains(r.Causes[0].Summary, "a dimension changed 32 → 24 inside the graph") {
		t.Errorf("non-leading: %+v", r.Causes)
	}
	if r := Compare(mod(32, 8), mod(24, 16)); r.Causes[0].Kind == CauseBatchSize || strings.Contains(r.Causes[0].Summary, "inside the graph") {
		t.Errorf("two dimensions: %+v", r.Causes)
	}
}

// TestMaterializedOnDevice: PyTorch/XLA's first graph builds a tensor created on the device
// from constants; the next graph takes it as device data. That is named as such, with its own
// advice; a value that depended on an input is not.
func TestMaterializedOnDevice(t *testing.T) {
	parse := func(src string) *hlo.Module {
		m, err := hlo.Parse("m", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	first := parse(`HloModule m
ENTRY e {
  x = f32[4,4]{1,0} parameter(0)
  one = f32[] constant(1)
  w = f32[4,4]{1,0} broadcast(one), dimensions={}, metadata={op_name="aten__expand" source_file="train.py" source_line=3}
  ROOT d = f32[4,4]{1,0} dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}
`)
	next := parse(`HloModule m
ENTRY e {
  x = f32[4,4]{1,0} parameter(0)
  w = f32[4,4]{1,0} parameter(1)
  ROOT d = f32[4,4]{1,0} dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}
`)
	r := Compare(first, next)
	if len(r.Causes) != 1 || r.Causes[0].Kind != CauseGraphStructure || !strings.Contains(r.Causes[0].Summary, "computed from constants are inputs") ||
		!strings.Contains(r.Causes[0].Advice, "--baseline FILE") || strings.Contains(r.Causes[0].Advice, "--warmup 2") || !strings.Contains(strings.Join(r.Causes[0].Evidence, "\n"), "train.py:3") {
		t.Fatalf("causes %+v", r.Causes)
	}
	// A layout op the compiler adds for the new input is no structure change of its own.
	withTranspose := parse(`HloModule m
ENTRY e {
  x = f32[4,4]{1,0} parameter(0)
  w = f32[4,4]{1,0} parameter(1)
  xt = f32[4,4]{0,1} transpose(x), dimensions={1,0}
  ROOT d = f32[4,4]{1,0} dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}
`)
	if r := Compare(first, withTranspose); !strings.Contains(r.Causes[0].Summary, "computed from constants are inputs") {
		t.Errorf("with a transpose for the new input: %+v", r.Causes)
	}
	computed := parse(`HloModule m
ENTRY e {
  x = f32[4,4]{1,0} parameter(0)
  w = f32[4,4]{1,0} negate(x)
  ROOT d = f32[4,4]{1,0} dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}
`)
	if r := Compare(computed, next); strings.Contains(r.Causes[0].Summary, "computed from constants") {
		t.Errorf("a value computed from an input was taken for a materialised constant: %+v", r.Causes)
	}
}

// TestUnknownShape: an instruction whose shape the text left out, compared with one whose shape
// it wrote, is a shape only one side knows ("unknown → f32[2,4]"), not an element type that
// changed from nothing.
func TestUnknownShape(t *testing.T) {
	mod := func(shape string) *hlo.Module {
		src := fmt.Sprintf(`HloModule m
ENTRY e {
  x = f32[2,8]{1,0} parameter(0)
  w = f32[8,4]{1,0} parameter(1)
  ROOT d = %sdot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}
`, shape)
		m, err := hlo.Parse("m", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	a, b := mod(""), mod("f32[2,4]{1,0} ")
	if a.Entry.Root.Shape.Known() || !b.Entry.Root.Shape.Known() {
		t.Fatal("the test needs a shape left out and one written")
	}
	for _, r := range []*Result{Compare(a, b), Compare(b, a)} {
		if len(r.Changes) != 1 || r.Changes[0].Kind != KindShape || r.Counts[KindDtype] != 0 {
			t.Fatalf("changes %+v", r.Changes)
		}
		for _, c := range r.Causes {
			if c.Kind == CauseDtype || strings.Contains(c.Summary, "→ f32") && !strings.Contains(strings.Join(c.Evidence, "\n"), "unknown") {
				t.Errorf("cause %+v", c)
			}
		}
	}
	if ch := Compare(a, b).Changes[0]; ch.Old != "unknown" || ch.New != "f32[2,4]{1,0}" {
		t.Errorf("change %+v", ch)
	}
	if r := Compare(a, b); len(r.Causes) != 1 || r.Causes[0].Kind != CauseGraphStructure || !strings.Contains(r.Causes[0].Evidence[0], "unknown → f32[2,4]") {
		t.Errorf("causes %+v", r.Causes)
	}
	if r := Compare(a, mod("")); !r.Identical {
		t.Errorf("two shapes left out alike differ: %+v", r.Changes)
	}
}

// TestCausesCompose: causes of one pair are named side by side. A last batch with fewer rows
// and a shorter padded length names the batch size and the other dimension, each with the
// constants that follow it; a volume whose sides all doubled is one input shape. AdamW's first
// step, which built the optimizer state inside its graph, next to a new sequence length names
// the input shape and the state as a graph-structure change with its own advice — unless the
// second graph added something the state does not explain.
func TestCausesCompose(t *testing.T) {
	mod := func(b, n int) *hlo.Module {
		src := fmt.Sprintf(`HloModule m
ENTRY e {
  tok = f32[%[1]d,%[2]d,8]{2,1,0} parameter(0), metadata={op_name="tokens"}
  mask = f32[%[1]d,%[2]d]{1,0} parameter(1), metadata={op_name="mask"}
  y = f32[%[1]d,4]{1,0} parameter(2), metadata={op_name="y"}
  s = f32[%[1]d,%[2]d]{1,0} reduce(tok, c0), dimensions={2}, to_apply=add
  c0 = f32[] constant(0)
  m = f32[%[1]d,%[2]d]{1,0} multiply(s, mask)
  r = f32[%[1]d]{0} reduce(m, c0), dimensions={1}, to_apply=add
  k = f32[] constant(%[3]v)
  kb = f32[%[1]d]{0} broadcast(k), dimensions={}
  ROOT out = f32[%[1]d]{0} multiply(r, kb)
}
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
`, b, n, 1/float64(b*n))
		m, err := hlo.Parse("m", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	r := Compare(mod(32, 32), mod(4, 24))
	if got := causeKinds(r.Causes); got != "[batch_size input_shape]" {
		t.Fatalf("batch and length: causes %s", got)
	}
	if ev := strings.Join(r.Causes[1].Evidence, "\n"); !strings.Contains(r.Causes[1].Summary, "dimension 1: 32 → 24") ||
		!strings.Contains(ev, "constant follows the changed dimensions") || !strings.Contains(ev, "0.0009765625 → 0.0104166") {
		t.Errorf("input_shape: %s\n%s", r.Causes[1].Summary, ev)
	}
	if r := Compare(mod(32, 32), mod(4, 32)); causeKinds(r.Causes) != "[batch_size]" {
		t.Errorf("the batch alone: %s", causeKinds(r.Causes))
	}
	if r := Compare(mod(32, 16), mod(64, 32)); causeKinds(r.Causes) != "[input_shape]" {
		t.Errorf("batch and length doubled alike: %s", causeKinds(r.Causes))
	}

	dir := "../testdata/runs/jax-0.12/adamw-state/dump/"
	a := parseFile(t, dir+"module_0000.jit_train_step.before_optimizations.txt")
	b := parseFile(t, dir+"module_0002.jit_train_step.before_optimizations.txt")
	r = Compare(a, b)
	if got := causeKinds(r.Causes); got != "[input_shape graph_structure]" || r.Removed != 0 {
		t.Fatalf("adamw: causes %s, %d removed", got, r.Removed)
	}
	if c := r.Causes[1]; !strings.Contains(c.Summary, "5 input(s) of the second graph hold state the first graph created") ||
		!strings.Contains(c.Advice, "optimizer.init(params) outside") || !strings.Contains(c.Evidence[0], `opt_state[0].count`) {
		t.Errorf("adamw's state: %+v", c)
	}
	src, err := os.ReadFile(dir + "module_0002.jit_train_step.before_optimizations.txt")
	if err != nil {
		t.Fatal(err)
	}
	extra := strings.Replace(string(src), "  ROOT %tuple.1", "  %extra.1 = f32[4,2]{1,0} sine(%y.1)\n  ROOT %tuple.1", 1)
	mb, err := hlo.Parse("extra", []byte(extra))
	if err != nil {
		t.Fatal(err)
	}
	r = Compare(a, mb)
	if got := causeKinds(r.Causes); got != "[input_shape graph_structure]" || strings.Contains(r.Causes[1].Summary, "state") {
		t.Errorf("a sine the state does not feed: causes %s: %s", got, r.Causes[1].Summary)
	}
}

func causeKinds(cs []Cause) string {
	var out []string
	for _, c := range cs {
		out = append(out, string(c.Kind))
	}
	return fmt.Sprint(out)
}
