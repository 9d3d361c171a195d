package explain

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recomp/recomp/diff"
	"github.com/recomp/recomp/frameworks"
	"github.com/recomp/recomp/internal/dumptest"
	"github.com/recomp/recomp/ledger"
)

func readLog(t *testing.T, log string) *ledger.Report {
	t.Helper()
	s, err := ledger.ReadLogs([]ledger.Log{{Path: "run.log", Reader: strings.NewReader(log)}}, ledger.ReadOptions{SameProcess: true})
	if err != nil {
		t.Fatal(err)
	}
	return s.Ledger
}

func jax(fn, args string) string {
	return "Compiling jit(" + fn + ") with global shapes and types (" + args + ",). Argument mapping: (UnspecifiedValue,).\n" +
		"Finished XLA compilation of jit(" + fn + ") in 0.1 sec\n"
}

// families says what an explanation grouped: "family: files (compilations in the log)".
func families(d *Diff) string {
	var out []string
	for _, f := range d.Families {
		out = append(out, fmt.Sprintf("%s: %d (%d)", f.Family, len(f.Files), f.LogCompilations))
	}
	return strings.Join(out, "; ")
}

// pairs says what an explanation compared: "label: A -> B: first cause".
func pairs(d *Diff) string {
	var out []string
	for _, p := range d.Pairs {
		cause := ""
		if len(p.Result.Causes) > 0 {
			cause = string(p.Result.Causes[0].Kind)
		}
		out = append(out, fmt.Sprintf("%s: %s -> %s: %s", p.Label(), filepath.Base(p.A.Path)[:11], filepath.Base(p.B.Path)[:11], cause))
	}
	return strings.Join(out, "; ")
}

// The i-th compilation of a function is linked with its i-th dump, whatever else compiled in
// between; eager one-op programs are left out of the explanation.
func TestJoinJAX(t *testing.T) {
	_, d := dumptest.Write(t, t.TempDir(),
		dumptest.File{ID: 0, Name: "jit_train_step", Batch: 32},
		dumptest.File{ID: 1, Name: "jit_convert_element_type", Batch: 8},
		dumptest.File{ID: 2, Name: "jit_convert_element_type", Batch: 4},
		dumptest.File{ID: 3, Name: "jit_train_step", Batch: 24})
	rep := readLog(t, jax("train_step", "ShapedArray(float32[32,8])")+
		jax("convert_element_type", "ShapedArray(float32[8,8])")+
		jax("convert_element_type", "ShapedArray(int32[4,8])")+
		jax("train_step", "ShapedArray(float32[24,8])"))
	links := LinkDumps(d, rep)
	if len(links) != 4 {
		t.Fatalf("%d of 4 dumps linked", len(links))
	}
	for _, f := range d.Files {
		u := links[f]
		if want := map[int]int{0: 1, 1: 3, 2: 5, 3: 7}[f.ID]; u.Line != want || u.Eager != strings.Contains(f.Name, "convert") {
			t.Errorf("%s: linked with line %d (eager %v), want line %d", f.Name, u.Line, u.Eager, want)
		}
	}
	got, explained := explain(d, rep, Options{})
	if len(explained) != 1 || explained[0].Program != "jit_train_step" || explained[0].Unit == nil || explained[0].Unit.Line != 7 ||
		explained[0].Causes[0].Kind != "batch_size" {
		t.Errorf("explained %+v", explained)
	}
	if fams := families(got); fams != "jit_train_step: 2 (2)" {
		t.Errorf("families %s", fams)
	}
	if ps := pairs(got); ps != "jit_train_step: module_0000 -> module_0003: batch_size" {
		t.Errorf("pairs %s", ps)
	}
	if got.Command != "explain" || got.Differs() != true {
		t.Errorf("command %q, differs %v", got.Command, got.Differs())
	}
}

// A log's hashes reach the pairs and families they were linked with, and families meet by
// function: TF's function numbers differ between compilations of one function.
func TestJoinHashes(t *testing.T) {
	_, d := dumptest.Write(t, t.TempDir(),
		dumptest.File{ID: 3, Name: "a_inference_train_step_101__XlaMustCompile_true__.12", Batch: 32},
		dumptest.File{ID: 11, Name: "a_inference_train_step_377__XlaMustCompile_true__.57", Batch: 24})
	compile := func(module, hash string) string {
		return "Begin XLA compilation: " + module + "  (Hash: " + hash + ") for ordinal  0\n" +
			"Begin compiling Poplar engine " + module + "\nStarting phase: graphConstruction\nEnd compiling Poplar engine.\n"
	}
	rep := readLog(t, compile("a_inference_train_step_101__XlaMustCompile_true__.12", "0xaa")+
		compile("a_inference_train_step_377__XlaMustCompile_true__.57", "0xbb"))
	got, _ := explain(d, rep, Options{Text: true})
	if len(got.Families) != 1 || strings.Join(got.Families[0].LogHashes, ",") != "0xaa,0xbb" || got.Families[0].LogCompilations != 2 {
		t.Fatalf("families %+v", got.Families)
	}
	if len(got.Pairs) != 1 || got.Pairs[0].HashA != "0xaa" || got.Pairs[0].HashB != "0xbb" || got.Pairs[0].Text == nil {
		t.Errorf("pairs %+v", got.Pairs)
	}
}

// tfCompile is TF's device compiler compiling a signature with n inputs.
func tfCompile(signature string, n int) string {
	return fmt.Sprintf("I0000 00:00:1795416165.159740   29824 device_compiler.h:480] num_inputs=%d\n", n) +
		"I0000 00:00:1795416165.159766   29824 device_compiler.h:551] Instantly compiling for signature: " + signature + "\n" +
		"I0000 00:00:1795416165.577355   29824 device_compilation_profiler.cc:113] Compiled " + signature + " 1 times, compile time: 417527 us, cumulative: 417527 us (0 us / 418 ms)\n"
}

func tfReused(signature string) string {
	return "I0000 00:00:1795416165.608795   29825 device_compiler.h:562] Already Compiled for signature: " + signature + "\n"
}

// TF auto-clustering forms its clusters anew each time a function is traced again: the log
// says cluster_1 and cluster_2 are the function of cluster_0 again, and explain compares them
// as one program's versions. Without the log they are three programs of one version each.
func TestJoinAutoClustering(t *testing.T) {
	const name = "cluster_%d__XlaCompiledKernel_true__XlaHasReferenceVars_false__XlaNumConstantArgs_0__XlaNumResourceArgs_0_.2"
	_, d := dumptest.Write(t, t.TempDir(),
		dumptest.File{ID: 0, Name: fmt.Sprintf(name, 0), Batch: 32}, dumptest.File{ID: 1, Name: fmt.Sprintf(name, 1), Batch: 24}, dumptest.File{ID: 2, Name: fmt.Sprintf(name, 2), Batch: 16})
	rep := readLog(t, tfCompile("cluster_0", 2)+tfReused("cluster_0")+tfCompile("cluster_1", 2)+tfReused("cluster_1")+tfCompile("cluster_2", 2))
	got, _ := explain(d, rep, Options{})
	if fams := families(got); fams != "cluster_N: 3 (3)" {
		t.Errorf("families %s", fams)
	}
	if ps := pairs(got); ps != "cluster_N: module_0000 -> module_0001: batch_size; cluster_N: module_0001 -> module_0002: batch_size" {
		t.Errorf("pairs %s", ps)
	}
	alone, _ := explain(d, nil, Options{})
	if len(alone.Families) != 3 || len(alone.Pairs) != 0 {
		t.Errorf("without the log: %s; pairs %s", families(alone), pairs(alone))
	}
}

// kerasStep is a Keras step's module: the train step aliases its weights to its results and
// returns them with the loss, the test step returns the loss only.
func kerasStep(name string, batch int, train bool) string {
	if !train {
		return fmt.Sprintf(`HloModule %[1]s, entry_computation_layout={(f32[%[2]d,8]{1,0}, f32[8,4]{1,0})->(f32[])}

ENTRY %%main (x: f32[%[2]d,8], w: f32[8,4]) -> (f32[]) {
  %%x = f32[%[2]d,8]{1,0} parameter(0)
  %%w = f32[8,4]{1,0} parameter(1)
  %%d = f32[%[2]d,4]{1,0} dot(f32[%[2]d,8]{1,0} %%x, f32[8,4]{1,0} %%w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  %%z = f32[] constant(0)
  %%l = f32[] reduce(f32[%[2]d,4]{1,0} %%d, f32[] %%z), dimensions={0,1}, to_apply=%%add
  ROOT %%t = (f32[]) tuple(f32[] %%l)
}

%%add (a: f32[], b: f32[]) -> f32[] {
  %%a = f32[] parameter(0)
  %%b = f32[] parameter(1)
  ROOT %%s = f32[] add(f32[] %%a, f32[] %%b)
}
`, name, batch)
	}
	return fmt.Sprintf(`HloModule %[1]s, input_output_alias={ {1}: (1, {}, may-alias) }, entry_computation_layout={(f32[%[2]d,8]{1,0}, f32[8,4]{1,0})->(f32[], f32[8,4]{1,0})}

ENTRY %%main (x: f32[%[2]d,8], w: f32[8,4]) -> (f32[], f32[8,4]) {
  %%x = f32[%[2]d,8]{1,0} parameter(0)
  %%w = f32[8,4]{1,0} parameter(1)
  %%d = f32[%[2]d,4]{1,0} dot(f32[%[2]d,8]{1,0} %%x, f32[8,4]{1,0} %%w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  %%z = f32[] constant(0)
  %%l = f32[] reduce(f32[%[2]d,4]{1,0} %%d, f32[] %%z), dimensions={0,1}, to_apply=%%add
  %%g = f32[8,4]{1,0} dot(f32[%[2]d,8]{1,0} %%x, f32[%[2]d,4]{1,0} %%d), lhs_contracting_dims={0}, rhs_contracting_dims={0}
  %%u = f32[8,4]{1,0} subtract(f32[8,4]{1,0} %%w, f32[8,4]{1,0} %%g)
  ROOT %%t = (f32[], f32[8,4]{1,0}) tuple(f32[] %%l, f32[8,4]{1,0} %%u)
}

%%add (a: f32[], b: f32[]) -> f32[] {
  %%a = f32[] parameter(0)
  %%b = f32[] parameter(1)
  ROOT %%s = f32[] add(f32[] %%a, f32[] %%b)
}
`, name, batch)
}

// Keras traces its train and test steps under one function name; the device compiler tells
// them apart by their number of inputs, and each dump joins the compilation of its own traced
// function (never a test step's dump with a train step's compilation). The dump's graphs say
// which is the train and which the test step, and a step traced again under a new function
// number stays the same step, with the log and without it.
func TestJoinKerasSteps(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "dump")
	os.MkdirAll(dir, 0o755)
	for _, f := range []struct {
		id    int
		name  string
		batch int
		train bool
	}{{60, "a_inference_one_step_on_data_272__.6", 32, true}, {121, "a_inference_one_step_on_data_433__.4", 32, false},
		{122, "a_inference_one_step_on_data_500__.6", 4, true}, {123, "a_inference_one_step_on_data_433__.4", 4, false}} {
		p := filepath.Join(dir, fmt.Sprintf("module_%04d.%s.before_optimizations.txt", f.id, f.name))
		if err := os.WriteFile(p, []byte(kerasStep(f.name, f.batch, f.train)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	d, err := diff.LoadDump(dir, diff.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// the test step's second compilation is logged before the train step's retrace
	rep := readLog(t, tfCompile("__inference_one_step_on_data_272", 10)+tfReused("__inference_one_step_on_data_272")+
		tfCompile("__inference_one_step_on_data_433", 8)+tfCompile("__inference_one_step_on_data_433", 8)+
		tfCompile("__inference_one_step_on_data_500", 10))
	links := LinkDumps(d, rep)
	for _, f := range d.Files {
		if u := links[f]; u == nil || !strings.Contains(f.ModuleName, strings.TrimPrefix(u.Module, "_")) {
			t.Errorf("%s linked with %+v", f.ModuleName, u)
		}
	}
	got, _ := explain(d, rep, Options{})
	if fams := families(got); fams != "__inference_one_step_on_data_N [train step, num_inputs=10]: 2 (2); __inference_one_step_on_data_N [test step, num_inputs=8]: 2 (2)" {
		t.Errorf("families %s", fams)
	}
	if ps := pairs(got); ps != "__inference_one_step_on_data_N [train step, num_inputs=10]: module_0060 -> module_0122: batch_size; "+
		"__inference_one_step_on_data_N [test step, num_inputs=8]: module_0121 -> module_0123: batch_size" {
		t.Errorf("pairs %s", ps)
	}
	alone, _ := explain(d, nil, Options{})
	if fams := families(alone); fams != "a_inference_one_step_on_data_N__ [train step]: 2 (0); a_inference_one_step_on_data_N__ [test step]: 2 (0)" {
		t.Errorf("without the log: %s", fams)
	}
}

// PyTorch/XLA under torch.compile: dynamo names a function only when it compiles it again
// ("Recompiling function forward"), so the log leaves the first compilation unnamed. Each dump
// joins its own compilation in the order of the process (its hash reaches the pair), and the
// unnamed first one is forward's first version.
func TestJoinUnnamedFirst(t *testing.T) {
	_, d := dumptest.Write(t, t.TempDir(),
		dumptest.File{ID: 0, Name: "SyncTensorsGraph.106", Batch: 16}, dumptest.File{ID: 1, Name: "SyncTensorsGraph.106", Batch: 24}, dumptest.File{ID: 2, Name: "SyncTensorsGraph.106", Batch: 32})
	a := "Compilation Analysis: "
	unnamed := a + strings.Repeat("=", 80) + "\n" + a + "Compilation Cause\n" + a + "  dynamo is compiling a FX graph to HLO\n" + a + "Graph Info: \n" +
		a + "  Graph Hash: aa\n" + a + "Python Frame Triggered Execution: \n" +
		a + "  extract_compiled_graph (/venv/lib/python3.11/site-packages/torch_xla/_dynamo/dynamo_bridge.py:700)\n" +
		a + strings.Repeat("-", 80) + "\n" + a + strings.Repeat("=", 80) + "\n"
	recompiling := func(hash string) string {
		return "V1215 10:00:00.000000 1 torch/_dynamo/guards.py:1] [0/1] [__recompiles] Recompiling function forward in /w/train.py:88\n" +
			"V1215 10:00:00.000000 1 torch/_dynamo/guards.py:1] [0/1] [__recompiles]     triggered by the following guard failure(s):\n" +
			"V1215 10:00:00.000000 1 torch/_dynamo/guards.py:1] [0/1] [__recompiles]     - 0/0: tensor 'x' size mismatch at index 1. expected 16, actual 24\n" +
			strings.Replace(unnamed, "Graph Hash: aa", "Graph Hash: "+hash, 1)
	}
	rep := readLog(t, unnamed+recompiling("bb")+recompiling("cc"))
	got, _ := explain(d, rep, Options{})
	if fams := families(got); fams != "train.py:88 (forward): 3 (3)" {
		t.Fatalf("families %s", fams)
	}
	if ps := pairs(got); ps != "train.py:88 (forward): module_0000 -> module_0001: batch_size; train.py:88 (forward): module_0001 -> module_0002: batch_size" ||
		got.Pairs[0].HashA != "aa" || got.Pairs[0].HashB != "bb" || got.Pairs[1].HashB != "cc" {
		t.Errorf("pairs %s", ps)
	}
}

// A dump with more modules than the log has compilations (a log cut short) links what it can,
// in order, and explains the rest by the dump's names.
func TestJoinMoreDumpsThanCompilations(t *testing.T) {
	_, d := dumptest.Write(t, t.TempDir(), dumptest.File{ID: 0, Name: "jit_step", Batch: 32}, dumptest.File{ID: 1, Name: "jit_step", Batch: 24}, dumptest.File{ID: 2, Name: "jit_step", Batch: 16})
	rep := readLog(t, jax("step", "ShapedArray(float32[32,8])"))
	links := LinkDumps(d, rep)
	if len(links) != 1 || links[d.Files[0]] == nil {
		t.Fatalf("links %v", links)
	}
	got, _ := explain(d, rep, Options{})
	if fams := families(got); fams != "jit_step: 3 (1)" || len(got.Pairs) != 2 {
		t.Errorf("families %s, pairs %s", fams, pairs(got))
	}
}

// Dump reads a run folder's dump and log; a run folder without a dump is an error naming it.
func TestDumpOfARunFolder(t *testing.T) {
	dir := t.TempDir()
	dumptest.Write(t, dir, dumptest.File{ID: 0, Name: "jit_step", Batch: 32}, dumptest.File{ID: 1, Name: "jit_step", Batch: 24})
	if err := os.WriteFile(filepath.Join(dir, "run.log"), []byte(jax("step", "ShapedArray(float32[32,8])")+jax("step", "ShapedArray(float32[24,8])")), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := Dump(dir, nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if fams := families(got); fams != "jit_step: 2 (2)" {
		t.Errorf("families %s", fams)
	}
	// Logs given replace the run folder's own.
	other := filepath.Join(dir, "other.log")
	os.WriteFile(other, []byte("nothing compiled\n"), 0o644)
	if got, err := Dump(dir, []string{other}, Options{}); err != nil || families(got) != "jit_step: 2 (0)" {
		t.Errorf("other log: %v, %s", err, families(got))
	}
	os.RemoveAll(filepath.Join(dir, "dump"))
	if _, err := Dump(dir, nil, Options{}); err == nil || err.Error() != dir+": the run folder has no dump/ (recomp run --dump none?)" {
		t.Errorf("no dump: %v", err)
	}
	if _, err := Dump(filepath.Join(dir, "missing"), nil, Options{}); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Errorf("missing: %v", err)
	}
}

// Dumps compares two runs' dumps; what stayed unpaired is said, and standard input is read once.
func TestDumps(t *testing.T) {
	a, _ := dumptest.Write(t, t.TempDir(), dumptest.File{ID: 0, Name: "jit_step", Batch: 32}, dumptest.File{ID: 1, Name: "jit_eval", Batch: 32})
	b, _ := dumptest.Write(t, t.TempDir(), dumptest.File{ID: 4, Name: "jit_step", Batch: 24})
	got, err := Dumps(a, b, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Command != "diff" || pairs(got) != "jit_step: module_0000 -> module_0004: batch_size" || len(got.UnpairedA) != 1 ||
		!strings.HasSuffix(got.UnpairedA[0], "module_0001.jit_eval.before_optimizations.txt") || len(got.UnpairedB) != 0 {
		t.Errorf("pairs %s, unpaired %v %v", pairs(got), got.UnpairedA, got.UnpairedB)
	}
	if _, err := Dumps("-", "-", Options{Stdin: strings.NewReader("")}); err == nil || !strings.Contains(err.Error(), "given 2 times") {
		t.Errorf("stdin twice: %v", err)
	}
}

// Two runs are compared at one stage: a kept its modules before and after optimisation, b only
// after, so a's optimised modules are compared with b's (not its unoptimised ones, whose
// differences would be XLA's fusions); a stage named is kept.
func TestDumpsAtOneStage(t *testing.T) {
	write := func(dir string, files map[string]string) string {
		for name, text := range files {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	}
	fused := strings.Replace(dumptest.Module("jit_step", 32), "negate(", "exponential(", 1)
	a := write(t.TempDir(), map[string]string{
		"module_0001.jit_step.before_optimizations.txt":    dumptest.Module("jit_step", 32),
		"module_0001.jit_step.cpu_after_optimizations.txt": fused,
		"module_0002.jit_init.before_optimizations.txt":    dumptest.Module("jit_init", 8),
		"module_0002.jit_init.cpu_after_optimizations.txt": dumptest.Module("jit_init", 8),
	})
	b := write(t.TempDir(), map[string]string{
		"module_0004.jit_step.cpu_after_optimizations.txt": fused,
		"module_0005.jit_init.cpu_after_optimizations.txt": dumptest.Module("jit_init", 8),
	})
	got, err := Dumps(a, b, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if want := "jit_init: module_0002 -> module_0005: identical; jit_step: module_0001 -> module_0004: identical"; pairs(got) != want ||
		!strings.HasSuffix(got.Pairs[0].A.Path, "cpu_after_optimizations.txt") {
		t.Errorf("pairs %s, want %s (%s)", pairs(got), want, got.Pairs[0].A.Path)
	}
	got, err = Dumps(b, a, Options{})
	if err != nil || !strings.HasSuffix(got.Pairs[0].B.Path, "cpu_after_optimizations.txt") {
		t.Errorf("b, a: %v %v", err, got.Pairs[0].B.Path)
	}
	if _, err := Dumps(a, b, Options{Stage: "before"}); err == nil || !strings.Contains(err.Error(), `no HLO files of stage "before_optimizations"`) {
		t.Errorf("a stage named is kept: %v", err)
	}
}

// torchCompile is PyTorch/XLA's analysis of one compilation, made by a frame of the user's
// program.
func torchCompile(hash, fn string, line int) string {
	a := "Compilation Analysis: "
	return a + strings.Repeat("=", 80) + "\n" + a + "Compilation Cause\n" + a + "  user torch_xla.sync\n" + a + "Graph Info: \n" +
		a + "  Graph Hash: " + hash + "\n" + a + "  Number of Graph Inputs: 2\n" + a + "  Number of Graph Outputs: 1\n" +
		a + "Python Frame Triggered Execution: \n" +
		a + "  sync (/venv/lib/python3.11/site-packages/torch_xla/torch_xla.py:87)\n" +
		a + fmt.Sprintf("  %s (/w/train.py:%d)\n", fn, line) +
		a + "  <module> (/w/train.py:624)\n" + a + strings.Repeat("-", 80) + "\n" + a + strings.Repeat("=", 80) + "\n"
}

// PyTorch/XLA's graphs have no name: the log names them by the frame that compiled them, the
// dump calls every one SyncTensorsGraph. They meet in the order they were compiled, across
// frames, and each frame's graphs are one program.
func TestJoinTorchFrames(t *testing.T) {
	_, d := dumptest.Write(t, t.TempDir(),
		dumptest.File{ID: 0, Name: "SyncTensorsGraph.218", Batch: 32}, dumptest.File{ID: 1, Name: "SyncTensorsGraph.219", Batch: 16}, dumptest.File{ID: 2, Name: "SyncTensorsGraph.221", Batch: 24})
	rep := readLog(t, torchCompile("aa", "train", 166)+torchCompile("bb", "evaluate", 200)+torchCompile("cc", "train", 166))
	got, _ := explain(d, rep, Options{})
	if fams := families(got); fams != "train.py:166 (train): 2 (2); train.py:200 (evaluate): 1 (1)" {
		t.Errorf("families %s", fams)
	}
	if ps := pairs(got); ps != "train.py:166 (train): module_0000 -> module_0002: batch_size" || got.Pairs[0].HashA != "aa" || got.Pairs[0].HashB != "cc" {
		t.Errorf("pairs %s", ps)
	}
}

// A rank's compile requests meet its dumps by the identity explain joins a whole log by: a
// retraced TF function (a new trace id) links with its own dump, not with the dump of the
// trace before it when that one was not dumped.
func TestLinkEntriesByIdentity(t *testing.T) {
	const first, again = "a_inference_train_step_101__XlaMustCompile_true__.12", "a_inference_train_step_377__XlaMustCompile_true__.57"
	dumped := &diff.DumpFile{Path: "module_0011." + again + ".before_optimizations.txt", ID: 11, ModuleName: again, Family: frameworks.Family(again)}
	d := &diff.Dump{Files: []*diff.DumpFile{dumped}}
	es := []ledger.Entry{
		{Program: "train_step", Family: frameworks.Family(first), Module: first, Compiled: true},
		{Program: "train_step", Family: frameworks.Family(again), Module: again, Compiled: true},
	}
	links := LinkEntries(d, es)
	if len(links) != 1 || links[&es[1]] != dumped || links[&es[0]] != nil {
		t.Errorf("links %v: want only the retrace (%s) linked with its dump", links, again)
	}
}

// Each process after the first dumps into a folder of its own (pid-N): XLA numbers every
// process's modules from 0, so a module is a version only of its own process's modules, and
// it is linked with its own process's compilation. When the log does not tell the processes
// apart, the one folder that compiled is linked all the same.
func TestJoinProcesses(t *testing.T) {
	_, d := dumptest.Write(t, t.TempDir(),
		dumptest.File{ID: 0, Name: "jit_step", Batch: 32, PID: 101}, dumptest.File{ID: 1, Name: "jit_step", Batch: 24, PID: 101},
		dumptest.File{ID: 0, Name: "jit_step", Batch: 32, PID: 202}, dumptest.File{ID: 1, Name: "jit_step", Batch: 16, PID: 202})
	var names []string
	for _, f := range d.Files {
		names = append(names, fmt.Sprintf("%d/%d", f.PID, f.ID))
	}
	if got := strings.Join(names, " "); got != "101/0 101/1 202/0 202/1" {
		t.Fatalf("files %s", got)
	}
	// The log: the two processes' compilations interleaved, as one run.log holds them.
	rep := readLog(t, jax("step", "ShapedArray(float32[32,8])")+jax("step", "ShapedArray(float32[32,8])")+
		jax("step", "ShapedArray(float32[16,8])")+jax("step", "ShapedArray(float32[24,8])"))
	units := rep.Modules[0].Compiled()
	for i, pid := range []int{101, 202, 202, 101} {
		units[i].PID = pid
	}
	links := LinkDumps(d, rep)
	for _, f := range d.Files {
		want := map[[2]int]int{{101, 0}: 1, {202, 0}: 3, {202, 1}: 5, {101, 1}: 7}[[2]int{f.PID, f.ID}]
		if u := links[f]; u == nil || u.Line != want {
			t.Errorf("pid %d module %d: linked with %+v, want line %d", f.PID, f.ID, u, want)
		}
	}
	got, explained := explain(d, rep, Options{})
	if ps := pairs(got); ps != "jit_step: module_0000 -> module_0001: batch_size; jit_step: module_0000 -> module_0001: batch_size" {
		t.Errorf("pairs %s", ps)
	}
	var changes []string
	for _, p := range got.Pairs {
		changes = append(changes, filepath.Base(filepath.Dir(p.A.Path))+" "+p.Result.Causes[0].Summary+" "+filepath.Base(filepath.Dir(p.B.Path)))
	}
	if c := strings.Join(changes, "; "); !strings.Contains(c, "pid-101 ") || !strings.Contains(c, "32 → 24 in 1 parameter(s) pid-101") ||
		!strings.Contains(c, "32 → 16 in 1 parameter(s) pid-202") {
		t.Errorf("compared %s", c)
	}
	if len(explained) != 2 || explained[0].Unit == nil || explained[0].Unit.Line != 7 || explained[1].Unit == nil || explained[1].Unit.Line != 5 {
		t.Errorf("explained %+v", explained)
	}

	// One process's folder, a log that names no process: linked in order.
	_, d = dumptest.Write(t, t.TempDir(), dumptest.File{ID: 0, Name: "jit_step", Batch: 32, PID: 303}, dumptest.File{ID: 1, Name: "jit_step", Batch: 24, PID: 303})
	rep = readLog(t, jax("step", "ShapedArray(float32[32,8])")+jax("step", "ShapedArray(float32[24,8])"))
	if links := LinkDumps(d, rep); len(links) != 2 || links[d.Files[1]].Line != 3 {
		t.Errorf("one process's folder: %d links", len(links))
	}
}
