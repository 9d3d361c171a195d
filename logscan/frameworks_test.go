package logscan

import (
	"math/rand"
	"regexp"
	"strings"
	"testing"
	"time"
)

// Lines as jax 0.10, tensorflow 2.21 and pytorch/xla print them (see frameworks.go), under the
// prefixes their loggers add.
func TestFrameworkLines(t *testing.T) {
	for _, c := range []struct {
		line     string
		kind     Kind
		producer string
		module   string
		hash     string
		dur      time.Duration
		detail   string // Detail, or Signature for a compile request
	}{
		{"Compiling jit(train_step) with global shapes and types (ShapedArray(float32[8,4]), ShapedArray(float32[32,8])). Argument mapping: (UnspecifiedValue, UnspecifiedValue).",
			CompileRequest, "jax", "jit_train_step", "", 0, "(ShapedArray(float32[8,4]), ShapedArray(float32[32,8]))"},
		{"WARNING:jax._src.interpreters.pxla:Compiling jit(<lambda>) with global shapes and types (ShapedArray(float32[16,16]),). Argument mapping: (UnspecifiedValue,).",
			CompileRequest, "jax", "jit__lambda", "", 0, "(ShapedArray(float32[16,16]),)"},
		// jax 0.3 (function id after the name) and 0.2 ("for args").
		{"Compiling train_step (140245115224064) with global shapes and types [ShapedArray(float32[32,8])]. Argument mapping: [OpShardingSharding({replicated})].",
			CompileRequest, "jax", "jit_train_step", "", 0, "[ShapedArray(float32[32,8])]"},
		{"Compiling f (139877341226912) for args (ShapedArray(float32[3]),).",
			CompileRequest, "jax", "jit_f", "", 0, "(ShapedArray(float32[3]),)"},
		{"WARNING:2023-06-07 00:14:40,280:jax._src.interpreters.pxla:1514: Finished XLA compilation of jit(f) in 0.059201717 sec",
			RequestDone, "jax", "jit_f", "", 59201717 * time.Nanosecond, ""},
		{"W1122 06:47:28.138073 3516 pxla.py:1514] Finished XLA compilation of pmap(g) in 2.5 sec",
			RequestDone, "jax", "pmap_g", "", 2500 * time.Millisecond, ""},
		{"Persistent compilation cache hit for 'jit_train_step' with key 'jit_train_step-5a0c1f'",
			CacheHit, "jax", "jit_train_step", "jit_train_step-5a0c1f", 0, ""},
		{"PERSISTENT COMPILATION CACHE MISS for 'jit_train_step' with key 'jit_train_step-5a0c1f'",
			CacheMiss, "jax", "jit_train_step", "jit_train_step-5a0c1f", 0, ""},
		{"Writing jit_train_step to persistent compilation cache with key 'jit_train_step-5a0c1f'",
			CacheWrite, "jax", "jit_train_step", "jit_train_step-5a0c1f", 0, ""},
		{"WARNING:tensorflow:5 out of the last 6 calls to <function step at 0x7fd5e3ebd760> triggered tf.function retracing. Tracing is expensive and the excessive number of tracings could be due to (1) creating @tf.function repeatedly in a loop",
			Retrace, "tf", "step", "", 0, "5 out of the last 6 calls to step triggered tf.function retracing"},
		// TF 2.2's wording: the same counting sentence, another explanation after it.
		{"WARNING:tensorflow:6 out of the last 11 calls to <function Model.step at 0x7f00> triggered tf.function retracing. Tracing is expensive and the excessive number of tracings is likely due to passing python objects instead of tensors. Also, tf.function has experimental_relax_shapes=True option that relaxes argument shapes that can avoid unnecessary retracing.",
			Retrace, "tf", "Model.step", "", 0, "6 out of the last 11 calls to Model.step triggered tf.function retracing"},
		{"I0000 00:00:1795329831.386345    2433 device_compiler.h:551] Instantly compiling for signature: __inference_step_10",
			CompileBegin, "tf", "__inference_step_10", "", 0, ""},
		{"I0000 00:00:1795329831.481085    2433 device_compilation_profiler.cc:113] Compiled __inference_step_10 1 times, compile time: 94706 us, cumulative: 94706 us (0 us / 94.7 ms)",
			CompileFinished, "tf", "__inference_step_10", "", 94706 * time.Microsecond, "compiled 1 times"},
		{"pt-xla-profiler: CompileTime too frequent: 21 counts during 11 steps",
			Retrace, "pytorch-xla", "", "", 0, "CompileTime too frequent: 21 counts during 11 steps"},
	} {
		ev := one(t, c.line)
		text := ev.Detail
		if ev.Kind == CompileRequest {
			text = ev.Signature
		}
		if ev.Kind != c.kind || string(ev.Producer) != c.producer || ev.Module != c.module || ev.Hash != c.hash || ev.Duration != c.dur || text != c.detail {
			t.Errorf("%q:\n got %+v", c.line, ev)
		}
	}
}

func TestFrameworkNoise(t *testing.T) {
	for _, line := range []string{
		"Finished tracing train_step for jit in 0.013793707 sec",
		"Finished jaxpr to MLIR module conversion jit(train_step) in 0.024929047 sec",
		"To enable the following instructions: AVX2 FMA, in other operations, rebuild TensorFlow with the appropriate compiler flags.",
		"Compilation Analysis: Graph Info: ", // a block line with no block open
	} {
		if evs, _ := scanAll(t, line+"\n", Options{}); len(evs) != 0 {
			t.Errorf("%q: got %+v, want no event", line, evs)
		}
	}
}

const traceMiss = `TRACING CACHE MISS at /tmp/train.py:47:12 (main):
  for train_step defined at /tmp/train.py:39
  all previously seen cache keys differ. For the closest previous key:
  different input types:
  * at x, now f32[24,8] and before f32[32,8]
Finished tracing train_step for jit in 0.010736704 sec
Compiling jit(train_step) with global shapes and types (ShapedArray(float32[24,8]),). Argument mapping: (UnspecifiedValue,).
`

func TestTracingCacheMissKeepsItsExplanation(t *testing.T) {
	// Buffer sizes above the longest line: the explanation may straddle two reads.
	for _, size := range []int{0, 150, 181, 200, 230, 256, 300} {
		evs, st := scanAll(t, traceMiss, Options{BufSize: size})
		if len(evs) != 2 || evs[0].Kind != Retrace || evs[1].Kind != CompileRequest {
			t.Fatalf("buf %d: %+v", size, evs)
		}
		want := "for train_step defined at /tmp/train.py:39\nall previously seen cache keys differ. For the closest previous key:\ndifferent input types:\n* at x, now f32[24,8] and before f32[32,8]"
		if evs[0].Reason != want || evs[0].Path != "/tmp/train.py:47:12 (main)" || evs[0].Line != 1 || evs[1].Line != 7 {
			t.Errorf("buf %d: %+v", size, evs[0])
		}
		if st.Lines != 7 {
			t.Errorf("buf %d: %d lines", size, st.Lines)
		}
	}
	// At the end of the log, and the 2024 wording.
	evs, _ := scanAll(t, "TRACING CACHE MISS at a.py:1:1 (f) because:\n  never seen function:\n    f id=1 defined at a.py:1", Options{})
	if len(evs) != 1 || evs[0].Reason != "never seen function:\nf id=1 defined at a.py:1" {
		t.Errorf("%+v", evs)
	}
}

const ptxlaBlock = `
Compilation Analysis: ================================================================================
Compilation Analysis: Compilation Cause
Compilation Analysis:   most likely user code trying to access tensor value before mark_step
Compilation Analysis: Graph Info: 
Compilation Analysis:   Graph Hash: c74c3b91b855b2b123f833b0d5f86943
Compilation Analysis:   Number of Graph Inputs: 35
Compilation Analysis:   Number of Graph Outputs: 107
Compilation Analysis: Python Frame Triggered Execution: 
Compilation Analysis:   train_loop (/tmp/train.py:12)
Compilation Analysis: --------------------------------------------------------------------------------
Compilation Analysis: ================================================================================
Post Compilation Analysis: Graph input size: 0.000123 GB
`

func TestPyTorchXLAAnalysis(t *testing.T) {
	evs, _ := scanAll(t, ptxlaBlock+ptxlaBlock, Options{})
	if len(evs) != 2 {
		t.Fatalf("%+v", evs)
	}
	for _, ev := range evs {
		if ev.Kind != CompileBegin || ev.Producer != "pytorch-xla" || ev.Hash != "c74c3b91b855b2b123f833b0d5f86943" ||
			ev.Reason != "most likely user code trying to access tensor value before mark_step" {
			t.Errorf("%+v", ev)
		}
	}
	if evs[0].Line != 3 || evs[1].Line != 16 {
		t.Errorf("lines %d, %d", evs[0].Line, evs[1].Line)
	}
}

func TestJAXModuleName(t *testing.T) {
	for in, want := range map[string]string{"jit(step)": "jit_step", "jit(<lambda>)": "jit__lambda", "pmap(f)": "pmap_f", "jvp(jit(f))": "jvp_jit_f",
		"train_step": "jit_train_step", "<lambda>": "jit__lambda_"} {
		if got := jaxModuleName(in); got != want {
			t.Errorf("%s: %s, want %s", in, got, want)
		}
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
		traceMiss, "Persistent compilation cache hit for 'a' with key 'b'", "PERSISTENT COMPILATION CACHE MISS for 'a' with key 'b'",
		"Writing a to persistent compilation cache with key 'b'", "Finished XLA compilation of jit(f) in 1 sec",
		"1 out of the last 2 calls to f triggered tf.function retracing", "Instantly compiling for signature: s",
		"Compiled s 1 times, compile time: 1 us", "Compilation Analysis: Compilation Cause", "pt-xla-profiler: CompileTime too frequent",
	}
	for _, m := range msgs {
		if got := anchorFilter.lines([]byte(m+"\n"), 0, nil); len(got) == 0 {
			t.Errorf("no anchor in %q", m)
		}
	}
}

// The shift-table prefilter must find exactly the lines a plain search finds.
func TestPrefilterMatchesPlainSearch(t *testing.T) {
	words := append(Anchors(), "compiler", "compile", "tracing", "phase", "engine", "Compilatio", "xecutabl",
		"\n", "\n", " ", "  ", "ab", "zz", "ompilatio", "g phase:", ".poplar_ex")
	rng := rand.New(rand.NewSource(1))
	plain := func(text []byte) []span {
		var out []span
		start := 0
		for i := 0; i <= len(text); i++ {
			if i == len(text) || text[i] == '\n' {
				line := string(text[start:i])
				for _, a := range anchorStrings {
					if strings.Contains(line, a) {
						out = append(out, span{start, i})
						break
					}
				}
				start = i + 1
			}
		}
		return out
	}
	for round := 0; round < 3000; round++ {
		var b strings.Builder
		for n := rng.Intn(40); n > 0; n-- {
			b.WriteString(words[rng.Intn(len(words))])
		}
		text := []byte(b.String())
		got := anchorFilter.lines(text, 0, nil)
		want := plain(text)
		if len(got) != len(want) {
			t.Fatalf("%q: got %v, want %v", text, got, want)
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("%q: got %v, want %v", text, got, want)
			}
		}
		var parts [][]span
		if par := anchorFilter.candidates(text, nil, &parts); len(par) != len(want) {
			t.Fatalf("%q: candidates %v, want %v", text, par, want)
		}
	}
}

// The parallel split must give the same candidates as one pass.
func TestPrefilterParallelSplit(t *testing.T) {
	text := noisyLog(3 * parallelMin)
	one := anchorFilter.lines(text, 0, nil)
	var parts [][]span
	par := anchorFilter.candidates(text, nil, &parts)
	if len(one) == 0 || len(one) != len(par) {
		t.Fatalf("one pass %d, parallel %d", len(one), len(par))
	}
	for i := range one {
		if one[i] != par[i] {
			t.Fatalf("span %d: %v vs %v", i, one[i], par[i])
		}
	}
	re := regexp.MustCompile(`(?m)^.*Begin XLA compilation.*$`)
	if n := len(re.FindAllIndex(text, -1)); n != len(one) {
		t.Errorf("%d candidate lines, %d compile lines", len(one), n)
	}
}
