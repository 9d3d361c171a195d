package frameworks

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/recomp/recomp/frameworks/cause"
	"github.com/recomp/recomp/frameworks/framework"
	"github.com/recomp/recomp/hlo"
	"github.com/recomp/recomp/logscan"
)

func TestFamily(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"cluster_35__XlaCompiledKernel_true__XlaNumConstantArgs_2__XlaNumResourceArgs_0_.56", "cluster_35__XlaCompiledKernel_true__XlaNumConstantArgs_2__XlaNumResourceArgs_0_"},
		{"a_inference_train_function_18311__XlaMustCompile_true_config_proto___n_007_n_0...02_001_000__executor_type____.19234",
			"a_inference_train_function_N__XlaMustCompile_true_config_proto___n_007_n_0...02_001_000__executor_type____"},
		{"a_inference_train_function_640__XlaMustCompile_true_config_proto___n_007_n_0...02_001_000__executor_type____.412",
			"a_inference_train_function_N__XlaMustCompile_true_config_proto___n_007_n_0...02_001_000__executor_type____"},
		{"__inference_step_77", "__inference_step_N"},
		{"jit_ipu_intor1e.0", "jit_ipu_intor1e"},
		{"SyncTensorsGraph.38", "SyncTensorsGraph"},
		{"jit_f", "jit_f"},
		{"main.22_spmd", "main.22_spmd"},
		{".5", ".5"},
		{"", ""},
	} {
		if got := Family(c.in); got != c.want {
			t.Errorf("Family(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestFunctionKey(t *testing.T) {
	log := Family("__inference_train_step_10")
	dump := Family("a_inference_train_step_10__XlaMustCompile_true_config_proto_13561319589895757934_executor_type_11160318154034397263_.2")
	if FunctionKey(log) != FunctionKey(dump) || FunctionKey(log) != "tf function train_step" {
		t.Errorf("%q → %q, %q → %q", log, FunctionKey(log), dump, FunctionKey(dump))
	}
	if FunctionKey("jit_step") != "jit_step" || FunctionKey(Family("a_inference_test_step_5__")) == FunctionKey(Family("a_inference_train_step_5__")) {
		t.Error("different functions share a key")
	}
}

// Every message the classifier knows must contain an anchor, or the prefilter drops it.
func TestAnchorsCoverMessages(t *testing.T) {
	msgs := []string{
		"Begin XLA compilation: m (Hash: 0x1)", "End XLA compilation: m (Hash: 0x1)", "Loaded m from /c/x.poplar_exec",
		"Couldn't find /c/x.xla_engine in executable cache", "A pre-compiled Poplar program has been saved to /c/x.poplar_exec",
		"Begin compiling Poplar engine m", "End compiling Poplar engine.", "Module m has not been compiled yet (Hash: 0x1).",
		"Skip engine compilation - output is constant.", "Compiling module m:", "100% Compilation Finished [Elapsed: 00:00:01.0]",
		"Starting phase: graphConstruction", "Ending phase: Loading executable (duration 1 ms; diff RSS: 0 MB)",
		"Graph compilation:  10%|#| 1/10 [00:01<", "Starting compilation", "Starting Engine compilation", "Graph compiled",
		"Loading serialized PopART executable from x", "Failed to load cached PopART executable from x: y",
		"Saving serialized Executablex to x", "Engine loaded", "Compiled cluster using XLA!",
		"TRACING CACHE MISS at a.py:1:1 (f):", "Persistent compilation cache hit for 'a' with key 'b'", "PERSISTENT COMPILATION CACHE MISS for 'a' with key 'b'",
		"Writing a to persistent compilation cache with key 'b'", "Finished XLA compilation of jit(f) in 1 sec",
		"1 out of the last 2 calls to f triggered tf.function retracing", "Instantly compiling for signature: s",
		"Compiled s 1 times, compile time: 1 us", "Compilation Analysis: Compilation Cause", "pt-xla-profiler: CompileTime too frequent",
		// XLA's alarm, JAX's compile time, the wrappers' notices
		"Very slow compile?  If you want to file a bug", "[Compiling module m] Slow compile?  XLA was built without", "The operation took 2m12.85s",
		"'jit_x' took at least 0.00 seconds to compile (0.06s)", "Not writing persistent cache", "TRACING CACHE MISS at a.py:1 (f) costing 1.0 ms because:",
		"Compiling the model with different input shapes.", "batch_size: 1, seq_len: 16", "  -- num_tokens: 16", "Compilation finished in in 44.09 [secs].",
		"XLA compilation detected on device #0; too many of these",
	}
	anchors := Grammar().Anchors()
	for _, m := range msgs {
		if !slices.ContainsFunc(anchors, func(a string) bool { return strings.Contains(m, a) }) {
			t.Errorf("no anchor in %q", m)
		}
	}
}

// The prefilter skips as far as its shortest anchor allows: no stack's anchor (a rule's or a
// vocabulary's) may be shorter than the 10 bytes the rules' anchors have, or every log is
// scanned slower where the CPU has no vector search (its shift table). A front end's progress
// lines are the one exception (Keras's "Epoch 1/2" is 9 bytes in all; its bars' one literal is
// "s/step"): the shift table searches for anchors that short with the sweep words
// (logscan/short.go), whose table's window is their shortest, so none may be shorter than the
// shortest sweep word (BenchmarkScanFrontEndAnchors measures what they cost).
func TestAnchorsKeepThePrefiltersStride(t *testing.T) {
	progress := map[string]bool{}
	for _, f := range frontEnds {
		if f.Log != nil {
			for _, a := range f.Log.Anchors {
				progress[a] = true
			}
		}
	}
	sweep := 255
	for _, f := range slices.Concat(compilers, all) {
		for _, w := range f.Vocabulary.Sweep {
			sweep = min(sweep, len(w))
		}
	}
	for _, a := range Grammar().Anchors() {
		if len(a) < 10 && !progress[a] || progress[a] && len(a) < sweep {
			t.Errorf("anchor %q is shorter than 10 bytes (a front end's: than %d, the shortest sweep word)", a, sweep)
		}
	}
}

// Each unit with a vocabulary declares sweep words (the compile word forms that find a new
// wording without an anchor), and each sweep word is a form of one of the unit's actions: it
// holds the action, or the action less its first letter ("ache hit" of "cache", "racing" of
// "trac"), so that the lines the sweep finds can pass the unit's vocabulary test.
func TestSweepWordsAreFormsOfActions(t *testing.T) {
	for _, f := range slices.Concat(compilers, all) {
		v := f.Vocabulary
		if len(v.Subjects) > 0 && len(v.Sweep) == 0 {
			t.Errorf("%s: a vocabulary without sweep words", f.Name)
		}
		for _, w := range v.Sweep {
			if !slices.ContainsFunc(v.Actions, func(a string) bool { return strings.Contains(w, a) || strings.Contains(w, a[1:]) }) {
				t.Errorf("%s: sweep word %q is a form of none of the actions %q", f.Name, w, v.Actions)
			}
		}
	}
}

// A program named by the role its graph says: beside the inputs that named it, or alone.
func TestWithRole(t *testing.T) {
	for _, c := range []struct{ program, role, want string }{
		{"__inference_one_step_on_data_N [num_inputs=10]", "train step", "__inference_one_step_on_data_N [train step, num_inputs=10]"},
		{"a_inference_one_step_on_data_N__", "test step", "a_inference_one_step_on_data_N__ [test step]"},
		{"jit_step", "", "jit_step"},
		{"jit_train_step", "train step", "jit_train_step"}, // Keras on JAX: the step's own function names it
	} {
		if got := WithRole(c.program, c.role); got != c.want {
			t.Errorf("WithRole(%q, %q) = %q, want %q", c.program, c.role, got, c.want)
		}
	}
	if got := DumpProgram("a_inference_one_step_on_data_433__.4", "test step"); got != "a_inference_one_step_on_data_N__ [test step]" {
		t.Errorf("a test step's dump: %q", got)
	}
	if got := DumpProgram("a_inference_one_step_on_data_433__.4", ""); got != "a_inference_one_step_on_data_433__" {
		t.Errorf("a Keras step's dump whose role is unknown: %q", got)
	}
	if FunctionID("a_inference_one_step_on_data_433__.4") != FunctionID("__inference_one_step_on_data_433") ||
		FunctionID("SyncTensorsGraph.52") != FunctionID("train.py:12 (step)") || FunctionID("jit_f.3") != "jit_f" {
		t.Error("a program's log and dump names do not meet")
	}
}

// counterStart strips what `(\.\d+)+$` matches, the expression it replaced.
func FuzzCounterStart(f *testing.F) {
	re := regexp.MustCompile(`(\.\d+)+$`)
	for _, s := range []string{"", ".", ".5", "1.2", "a.1.2", "jit_f.3", "cluster_35__XlaCompiledKernel_true__.56", "x.", "x..1", "x.1a", "SyncTensorsGraph.38.2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := s[:counterStart(s)], re.ReplaceAllString(s, ""); got != want {
			t.Errorf("%q: %q, the expression %q", s, got, want)
		}
	})
}

// The advice that names stacks' variables is assembled from the units: each says its own part.
func TestAdviceFromUnits(t *testing.T) {
	if got, want := DumpAdvice(), "XLA_FLAGS=--xla_dump_to=DIR"; got != want {
		t.Errorf("DumpAdvice() = %q, want %q", got, want)
	}
	if got, want := SignaturesAdvice(), "JAX: JAX_LOG_COMPILES=1"; got != want {
		t.Errorf("SignaturesAdvice() = %q, want %q", got, want)
	}
	if got, want := ExecutionsAdvice(), "PyTorch/XLA's PT_XLA_DEBUG_LEVEL=2"; got != want {
		t.Errorf("ExecutionsAdvice() = %q, want %q", got, want)
	}
	want := "check that the program runs a jit, tf.function(jit_compile=True), torch.compile function or PyTorch/XLA step, and that it does not send " +
		"the framework's logging to a file or silence it (logging.disable, absl's flags, a TF_CPP_MIN_LOG_LEVEL of its own)"
	if got := NoCompileAdvice(); got != want {
		t.Errorf("NoCompileAdvice() =\n%s\nwant\n%s", got, want)
	}
}

// The prose the packages above take from the units (issue 32: no stack named outside them) says
// what it said when it was written there, word for word.
func TestProseFromUnits(t *testing.T) {
	for _, c := range []struct{ name, got, want string }{
		{"RewrappedAdvice", RewrappedAdvice(), "jax.jit of a new lambda or closure, a tf.function created in a loop"},
		{"GrowsAdvice", GrowsAdvice(), "tf.concat"},
		{"MaterializeAdvice", MaterializeAdvice(), "PyTorch/XLA: torch_xla.sync() after creating them, or create them on the CPU and move them with .to(device)"},
		{"StateFirstAdvice", StateFirstAdvice(), "JAX: opt_state = optimizer.init(params) outside the compiled step"},
		{"UnusedAdvice", UnusedAdvice(), "JAX logs none"},
		{"SwitchingAdvice", SwitchingAdvice(), "Graphcore's recompilation note: merge the graphs that alternate into one (e.g. train and validation in one loop), or place them on separate IPUs so each stays loaded"},
		{"KeyedCache().Words().Stored", KeyedCache().Words().Stored, "the compile time JAX stored in the entry, whole seconds"},
	} {
		if c.got != c.want {
			t.Errorf("%s() =\n%s\nwant\n%s", c.name, c.got, c.want)
		}
	}
	if once := OncePerProcess(); once == nil || once.Short+"'s "+once.OncePerProcess != "TF's Compiled cluster using XLA!" {
		t.Errorf("OncePerProcess() = %+v, want TF's", once)
	}
	if got := OnceProducers(); len(got) != 5 || !got[logscan.ProducerTF] || !got[logscan.ProducerXLA] || !got[logscan.ProducerTFIPU] ||
		!got[logscan.ProducerPoplar] || !got[logscan.ProducerPopLibs] {
		t.Errorf("OnceProducers() = %v, want TF's device compiler, XLA, and TF-IPU's Poplar and PopLibs", got)
	}
	if AdviceStack("jax", "tf.data") != "" || AdviceStack("jax", "") != "jax" || AdviceStack("tf", "arrays") != "tf" {
		t.Error("AdviceStack: only Keras's tf.data takes the front end's remedies on any stack")
	}
	jax := ForProducer(logscan.ProducerJAX)
	for _, c := range []struct{ name, got, want string }{
		{"MetadataAdvice(nnx)", jax.MetadataAdvice("[0][0]._graphdef"), "a plain Python attribute of a flax nnx Module is part of its graph definition, static to nnx.jit: each new value " +
			"traces and compiles the step again; hold it in an nnx.Variable (set its .value) or pass it as an argument, or keep it fixed"},
		{"MetadataAdvice", jax.MetadataAdvice("[1].config"), "a static field of an argument's pytree (its metadata: a dataclass field marked static, a module's plain attribute) " +
			"compiles again at each new value: make it an array leaf or pass it as an argument, or keep it fixed"},
		{"AttributeAdvice", jax.AttributeAdvice("temperature"), "a plain Python attribute of a module is static to its jit: each new value retraces and compiles the step; " +
			"hold `temperature` in a variable (flax nnx: nnx.Variable(jnp.asarray(...)), set its .value) or pass it as an argument, or keep it fixed"},
	} {
		if c.got != c.want {
			t.Errorf("jax %s =\n%s\nwant\n%s", c.name, c.got, c.want)
		}
	}
	if got := StageProducers(); len(got) != 1 || !got[logscan.ProducerJAX] {
		t.Errorf("StageProducers() = %v, want JAX's", got)
	}
	if !BySignature(logscan.ProducerJAX) || BySignature(logscan.ProducerTF) || !NamedBySignature("jax") || NamedBySignature("torch-xla") {
		t.Error("BySignature: only JAX keys its compilations by the argument signature")
	}
	for why, said := range map[string]string{
		"TRACING CACHE MISS at f.py:3 because:\n  cache miss explanation unavailable": "cache miss explanation unavailable",
		"  explanation unavailable! please open an issue":                             "explanation unavailable!",
	} {
		kind, ch, gotSaid, ok := Explains(why)
		if !ok || kind != cause.StaticArgument || gotSaid != said ||
			ch != "a static argument took a new value (JAX found the input pytree, the argument names and their types unchanged)" {
			t.Errorf("Explains(%q) = %q, %q, %q, %v", why, kind, ch, gotSaid, ok)
		}
	}
	if kind, _, _, ok := Explains("different input pytree"); !ok || kind != cause.Pytree || SaidBy(kind) != "" {
		t.Error("Explains does not read JAX's pytree change")
	}
	if kind, ch, _, ok := Explains("- 0/0: temperature == 1.0"); !ok || kind != cause.PythonScalar || SaidBy(kind) != "dynamo" ||
		ch != "the Python value temperature changed from 1.0: dynamo had specialised the function on it" {
		t.Errorf("Explains does not read dynamo's guard: %q %q %v", kind, ch, ok)
	}
	if _, _, _, ok := Explains("tensor 'x' size mismatch at index 1"); ok {
		t.Error("Explains reads words that name no construct")
	}
}

// Each unit's probe hook defines the function the probe calls and tags its records with the
// unit's name, which explain joins them by; the four ways of joining are all used, and a hook
// that joins none records compilations (for the pytest plugin).
func TestProbeHooks(t *testing.T) {
	attach := map[framework.Attach]bool{}
	for _, p := range Probes() {
		if !strings.Contains(p.Hook, "\ndef "+p.Function+"(module):\n") {
			t.Errorf("%s: the hook defines no %s(module)", p.Name, p.Function)
		}
		if !strings.Contains(p.Hook, `"framework": "`+p.Name+`"`) {
			t.Errorf("%s: the hook's records are not tagged %q", p.Name, p.Name)
		}
		if p.Package == "" || p.Records == "" || p.Attach == 0 && !p.Compiles || (p.Attach != framework.AttachCallSpan) == (p.Event == "") {
			t.Errorf("%s: probe %+v", p.Name, *p.Probe)
		}
		if p.Attach != 0 {
			attach[p.Attach] = true
		}
	}
	if len(attach) != 4 {
		t.Errorf("joined %v ways, want 4", attach)
	}
	if !ProbeStages("jax") || ProbeStages("tf") || ProbeStages("python") {
		t.Error("ProbeStages: only JAX's records are compile stages")
	}
}

// TestFrontStep: JAX's explanation names the function it traced and its file; Keras's JAX trainer
// defines its steps, a user's file defines no Keras step, and an explanation that names no file
// (or another stack's compilation) tells nothing.
func TestFrontStep(t *testing.T) {
	const trainer = "/v/lib/python3.12/site-packages/keras/src/backend/jax/trainer.py"
	for _, c := range []struct {
		p           logscan.Producer
		module, why string
		front, step string
	}{
		{logscan.ProducerJAX, "jit_train_step", "never seen function:\ntrain_step id=140311885932736 defined at " + trainer + ":123", "keras", "train step"},
		{logscan.ProducerJAX, "jit_test_step", "for test_step defined at " + trainer + ":167\nall previously seen cache keys differ. For the closest previous key:\n" +
			"different input types:\n* at data[0], now f32[8,6] and before f32[32,6]", "keras", "test step"},
		{logscan.ProducerJAX, "jit_predict_step", "for JAXTrainer.make_predict_function.<locals>.predict_step defined at " + trainer + ":327", "keras", "predict step"},
		{logscan.ProducerJAX, "jit_train_step", "for train_step defined at /home/me/train.py:12\n* at x, now f32[24,8] and before f32[32,8]", "", ""},
		{logscan.ProducerJAX, "jit_train_step", "cache miss explanation unavailable", "", ""},
		{logscan.ProducerTF, "__inference_one_step_on_data_12", "for train_step defined at " + trainer + ":123", "", ""},
	} {
		f, step := FrontStep(c.p, c.module, c.why)
		name := ""
		if f != nil {
			name = f.Name
		}
		if name != c.front || step != c.step {
			t.Errorf("FrontStep(%s, %q, %q) = %q, %q; want %q, %q", c.p, c.module, c.why, name, step, c.front, c.step)
		}
	}
}

// TestRoleFromSourceFiles: a JAX module whose source files hold Keras's JAX trainer, and whose
// function is one of its steps, is that Keras step; the same name from the program's own file is not.
func TestRoleFromSourceFiles(t *testing.T) {
	const trainer = "/v/lib/python3.12/site-packages/keras/src/backend/jax/trainer.py"
	for _, c := range []struct {
		family string
		files  []string
		want   string
	}{
		{"jit_predict_step", []string{"/home/me/t.py", trainer}, "predict step"},
		{"jit_test_step", []string{trainer}, "test step"},
		{"jit_train_step", []string{"/home/me/train.py"}, ""},
		{"jit_convert_element_type", []string{trainer}, ""},
		{"jit_train_step", nil, ""},
	} {
		m := &hlo.Module{Name: c.family, FileNames: c.files}
		if got := Role(c.family, m); got != c.want {
			t.Errorf("Role(%s, files %q) = %q, want %q", c.family, c.files, got, c.want)
		}
	}
}

// TestLambdaSite: JAX's explanation of a lambda it traced says where the lambda is defined, which
// tells apart the lambdas of one module name (jit__lambda); a named function has none.
func TestLambdaSite(t *testing.T) {
	const trainer = "/v/site-packages/keras/src/backend/jax/trainer.py"
	for _, c := range []struct{ why, want string }{
		{"never seen function:\n<lambda> id=140206324321408 defined at " + trainer + ":270", "trainer.py:270"},
		{"for <lambda> defined at " + trainer + ":306\nall previously seen cache keys differ. For the closest previous key:", "trainer.py:306"},
		{"for Model.<locals>.<lambda> defined at /home/me/t.py:9", "t.py:9"},
		{"for train_step defined at " + trainer + ":123", ""},
		{"", ""},
	} {
		if got := LambdaSite(logscan.ProducerJAX, c.why); got != c.want {
			t.Errorf("LambdaSite(%q) = %q, want %q", c.why, got, c.want)
		}
	}
	if got := WithRole("jit__lambda [trainer.py:270]", "train step"); got != "jit__lambda [train step, trainer.py:270]" {
		t.Errorf("WithRole of a lambda = %q", got)
	}
	if got := WithRole("jit_train_step", "train step"); got != "jit_train_step" {
		t.Errorf("WithRole of a step's own function = %q", got)
	}
}
