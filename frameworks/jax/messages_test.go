package jax_test

import (
	"strings"
	"testing"
	"time"

	"github.com/recomp/recomp/frameworks/jax"
	"github.com/recomp/recomp/internal/scantest"
	"github.com/recomp/recomp/logscan"
)

// sha is the hash part of a JAX cache key.
const sha = "9f47c1b3ce99c20843308b1dddaa953397d4cf233297ed33f3c07043f7154687"

// Lines as jax 0.4 to 0.12 prints them, under the prefixes its loggers add.
func TestMessages(t *testing.T) {
	for _, c := range []struct {
		line     string
		kind     logscan.Kind
		producer string
		module   string
		hash     string
		dur      time.Duration
		detail   string // Detail, or Signature for a compile request
	}{
		{"Compiling jit(train_step) with global shapes and types (ShapedArray(float32[8,4]), ShapedArray(float32[32,8])). Argument mapping: (UnspecifiedValue, UnspecifiedValue).",
			logscan.CompileRequest, "jax", "jit_train_step", "", 0, "(ShapedArray(float32[8,4]), ShapedArray(float32[32,8]))"},
		{"WARNING:jax._src.interpreters.pxla:Compiling jit(<lambda>) with global shapes and types (ShapedArray(float32[16,16]),). Argument mapping: (UnspecifiedValue,).",
			logscan.CompileRequest, "jax", "jit__lambda", "", 0, "(ShapedArray(float32[16,16]),)"},
		// jax 0.3 (function id after the name) and 0.2 ("for args").
		{"Compiling train_step (140245115224064) with global shapes and types [ShapedArray(float32[32,8])]. Argument mapping: [OpShardingSharding({replicated})].",
			logscan.CompileRequest, "jax", "jit_train_step", "", 0, "[ShapedArray(float32[32,8])]"},
		{"Compiling f (139877341226912) for args (ShapedArray(float32[3]),).",
			logscan.CompileRequest, "jax", "jit_f", "", 0, "(ShapedArray(float32[3]),)"},
		{"WARNING:2023-06-07 00:14:40,280:jax._src.interpreters.pxla:1514: Finished XLA compilation of jit(f) in 0.059201717 sec",
			logscan.RequestDone, "jax", "jit_f", "", 59201717 * time.Nanosecond, ""},
		{"W1122 06:47:28.138073 3516 pxla.py:1514] Finished XLA compilation of pmap(g) in 2.5 sec",
			logscan.RequestDone, "jax", "pmap_g", "", 2500 * time.Millisecond, ""},
		{"Persistent compilation cache hit for 'jit_train_step' with key 'jit_train_step-5a0c1f'",
			logscan.CacheHit, "jax", "jit_train_step", "jit_train_step-5a0c1f", 0, ""},
		{"PERSISTENT COMPILATION CACHE MISS for 'jit_train_step' with key 'jit_train_step-5a0c1f'",
			logscan.CacheMiss, "jax", "jit_train_step", "jit_train_step-5a0c1f", 0, ""},
		{"Writing jit_train_step to persistent compilation cache with key 'jit_train_step-5a0c1f'",
			logscan.CacheWrite, "jax", "jit_train_step", "jit_train_step-5a0c1f", 0, ""},
		// Why an entry was not written, as JAX 0.4.38 and 0.12 word it (the real runs
		// cache-never-written), and the other reasons of jax/_src/compiler.py and compilation_cache.py.
		{"Not writing persistent cache entry for 'jit_train_step' because it took < 1.00 seconds to compile (0.06s)",
			logscan.CacheNotWritten, "jax", "jit_train_step", "", 60 * time.Millisecond, "Not writing persistent cache entry for 'jit_train_step' because it took < 1.00 seconds to compile (0.06s)"},
		{"WARNING:2026-11-24 07:26:50,673:jax._src.compiler:723: Not writing persistent cache entry for 'jit_train_step' because it took < 1.00 seconds to compile (0.03s)",
			logscan.CacheNotWritten, "jax", "jit_train_step", "", 30 * time.Millisecond, "Not writing persistent cache entry for 'jit_train_step' because it took < 1.00 seconds to compile (0.03s)"},
		{"Not writing persistent cache entry with key 'jit_f-" + sha + "' since its size (1200 bytes) is less than threshold (4096 bytes)",
			logscan.CacheNotWritten, "jax", "jit_f", "jit_f-" + sha, 0, "Not writing persistent cache entry with key 'jit_f-" + sha + "' since its size (1200 bytes) is less than threshold (4096 bytes)"},
		{"Not writing persistent cache entry since process_id != 0",
			logscan.CacheNotWritten, "jax", "", "", 0, "Not writing persistent cache entry since process_id != 0"},
		// Python's warnings.warn layout, which recomp does not know: found by the message's head.
		{"/venv/lib/python3.12/site-packages/jax/_src/compiler.py:806: UserWarning: Error reading persistent compilation cache entry for 'jit_f': XlaRuntimeError: INTERNAL: Failed to deserialize executable",
			logscan.CacheReadError, "jax", "jit_f", "", 0, "Error reading persistent compilation cache entry for 'jit_f': XlaRuntimeError: INTERNAL: Failed to deserialize executable"},
		{"/venv/lib/python3.12/site-packages/jax/_src/compiler.py:870: UserWarning: Error writing persistent compilation cache entry for 'jit_f': PermissionError: [Errno 13] Permission denied: '/cache/jit_f-" + sha + "-cache'",
			logscan.CacheNotWritten, "jax", "jit_f", "", 0, "Error writing persistent compilation cache entry for 'jit_f': PermissionError: [Errno 13] Permission denied: '/cache/jit_f-" + sha + "-cache'"},
		// jax._src.cache_key's debug log (the real runs cache-xla-flag).
		{"DEBUG:2026-11-24 07:44:16,383:jax._src.cache_key:152: get_cache_key hash of serialized XLA flags: 4d46bbc87400d11108ad8e0aba0af7d47c7bd5e412497c3d9c47c0ce5619aeba",
			logscan.CacheKeyPart, "jax", "", "4d46bbc87400d11108ad8e0aba0af7d47c7bd5e412497c3d9c47c0ce5619aeba", 0, "XLA flags"},
		{"DEBUG:2026-11-24 07:44:16,383:jax._src.cache_key:152: get_cache_key hash of serialized jax_lib version: c8601d1831072872293c1f9c58282e40273dd0289eaea98e369c2037dc4231ae",
			logscan.CacheKeyPart, "jax", "", "c8601d1831072872293c1f9c58282e40273dd0289eaea98e369c2037dc4231ae", 0, "jax_lib version"},
		{"DEBUG:2026-11-24 07:44:16,383:jax._src.cache_key:358: Including XLA flag in cache key: --xla_cpu_enable_fast_min_max=true",
			logscan.CacheKeyFlag, "jax", "", "", 0, "--xla_cpu_enable_fast_min_max=true"},
	} {
		ev := scantest.One(t, c.line)
		text := ev.Detail
		if ev.Kind == logscan.CompileRequest {
			text = ev.Signature
		}
		if ev.Kind != c.kind || string(ev.Producer) != c.producer || ev.Module != c.module || ev.Hash != c.hash || ev.Duration != c.dur || text != c.detail {
			t.Errorf("%q:\n got %+v", c.line, ev)
		}
	}
}

func TestFrameworkNoise(t *testing.T) {
	for _, line := range []string{
		"DEBUG:2026-11-24 07:44:16,383:jax._src.cache_key:356: Not including XLA flag in cache key: --xla_dump_to=dump2",
		"DEBUG:2026-11-24 07:44:16,383:jax._src.cache_key:158: get_cache_key hash after serializing XLA flags: 364fba0d6a5e5501f76fce829213c630ff63d484e1a915d9e672a01d8da742ce",
		"To enable the following instructions: AVX2 FMA, in other operations, rebuild TensorFlow with the appropriate compiler flags.",
		"Compilation Analysis: Graph Info: ", // a block line with no block open
	} {
		if evs, _ := scantest.Scan(t, line+"\n", logscan.Options{}); len(evs) != 0 {
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
		evs, st := scantest.Scan(t, traceMiss, logscan.Options{BufSize: size})
		if len(evs) != 3 || evs[0].Kind != logscan.Retrace || evs[1].Kind != logscan.CompileStage || evs[2].Kind != logscan.CompileRequest {
			t.Fatalf("buf %d: %+v", size, evs)
		}
		want := "for train_step defined at /tmp/train.py:39\nall previously seen cache keys differ. For the closest previous key:\ndifferent input types:\n* at x, now f32[24,8] and before f32[32,8]"
		if evs[0].Reason != want || evs[0].Path != "/tmp/train.py:47:12 (main)" || evs[0].Line != 1 || evs[2].Line != 7 {
			t.Errorf("buf %d: %+v", size, evs[0])
		}
		if st.Lines != 7 {
			t.Errorf("buf %d: %d lines", size, st.Lines)
		}
	}
	// At the end of the log, and the 2024 wording.
	evs, _ := scantest.Scan(t, "TRACING CACHE MISS at a.py:1:1 (f) because:\n  never seen function:\n    f id=1 defined at a.py:1", logscan.Options{})
	if len(evs) != 1 || evs[0].Reason != "never seen function:\nf id=1 defined at a.py:1" {
		t.Errorf("%+v", evs)
	}
}

func TestJAXModuleName(t *testing.T) {
	for in, want := range map[string]string{"jit(step)": "jit_step", "jit(<lambda>)": "jit__lambda", "pmap(f)": "pmap_f", "jvp(jit(f))": "jvp_jit_f",
		"train_step": "jit_train_step", "<lambda>": "jit__lambda_"} {
		if got := jax.ModuleName(in); got != want {
			t.Errorf("%s: %s, want %s", in, got, want)
		}
	}
}

// Under a terminal a progress bar's last frame has no newline: JAX's record that follows is
// glued to it, and must be read wherever it starts. JAX's wrapped sentences are read whole.
func TestRecordsGluedToProgressBars(t *testing.T) {
	log := "Epoch 1: 100%|██████████| 16/16 [00:01<00:00, 12.1it/s]\r" +
		"loss 0.12 | 15/16TRACING CACHE MISS at /w/train.py:64:12 (main):\n" +
		"  for train_step defined at /w/train.py:20\n" +
		"  all previously seen cache keys differ. For the closest previous key:\n" +
		"  different input types:\n" +
		"  * at x, now f32[24,8] and before f32[32,8]\n" +
		"step 16/16Compiling jit(train_step) with global shapes and types (ShapedArray(float32[24,8]),). Argument mapping: (UnspecifiedValue,).\n" +
		"[00:02<00:00]Finished XLA compilation of jit(train_step) in 0.1 sec\n" +
		"RecompilingTRACING CACHE MISS at /w/train.py:70:1 (main):\n" + // capitals glued to a word still start a record
		"  never seen function:\n    eval id=1 defined at /w/train.py:30\n" +
		"  but seen another function defined on the same line; maybe the function is\n" +
		"  being re-defined repeatedly, preventing caching?\n" +
		"Recompiling jit(f) is not a compile request\n"
	evs, _ := scantest.Scan(t, log, logscan.Options{})
	var got []string
	for _, ev := range evs {
		got = append(got, string(ev.Kind)+" "+ev.Module)
	}
	if strings.Join(got, ", ") != "retrace train_step, compile_request jit_train_step, request_done jit_train_step, retrace eval" {
		t.Fatalf("events: %s", strings.Join(got, ", "))
	}
	if !strings.Contains(evs[0].Reason, "* at x, now f32[24,8] and before f32[32,8]") || evs[0].Line != 1 {
		t.Errorf("retrace %+v", evs[0])
	}
	if want := "but seen another function defined on the same line; maybe the function is being re-defined repeatedly, preventing caching?"; !strings.Contains(evs[3].Reason, want) {
		t.Errorf("wrapped sentence not read whole: %q", evs[3].Reason)
	}
}

// The stages before XLA's own compilation, with their times: tracing (both wordings) and the
// lowering to MLIR.
func TestStages(t *testing.T) {
	for _, c := range []struct {
		line, phase, module string
		dur                 time.Duration
	}{
		{"Finished tracing train_step for jit in 0.013793707 sec", "trace", "train_step", 13793707 * time.Nanosecond},
		{"WARNING:2026-11-24 06:55:16,149:jax._src.dispatch:182: Finished tracing + transforming matmul for pjit in 0.001117468 sec", "trace", "matmul", 1117468 * time.Nanosecond},
		{"Finished jaxpr to MLIR module conversion jit(train_step) in 0.024929047 sec", "lower", "jit_train_step", 24929047 * time.Nanosecond},
	} {
		ev := scantest.One(t, c.line)
		if ev.Kind != logscan.CompileStage || ev.Phase != c.phase || ev.Module != c.module || ev.Duration != c.dur {
			t.Errorf("%q: %+v", c.line, ev)
		}
	}
}

// TestPytreeMetadataExplanation: flax nnx's GraphDef, which JAX prints whole in its explanation
// of a pytree-metadata change, closes its nested parts on unindented lines, and is longer than
// the lines a held record keeps: the explanation goes on through them, and keeps the lines
// that name the attributes (now, before) and the sentence's end, with the lines between left
// out; the records after it are read as before.
func TestPytreeMetadataExplanation(t *testing.T) {
	graphdef := func(temp string) string {
		var b strings.Builder
		b.WriteString("GraphDef(nodes=[NodeDef(\n")
		for i := 0; i < 30; i++ {
			b.WriteString("  type='Linear',\n  index=" + string(rune('0'+i%10)) + ",\n), NodeDef(\n")
		}
		b.WriteString("  type='Model',\n)], attributes=[('lin', NodeAttr()), ('temperature', Static(value=" + temp + "))], num_leaves=2)")
		return b.String()
	}
	log := "TRACING CACHE MISS at /v/flax/nnx/transforms/compilation.py:1023:49 (JitWrapped.__call__):\n" +
		"  for train_step defined at /tmp/t.py:9\n" +
		"  all previously seen cache keys differ. For the closest previous key:\n" +
		"  different input pytree:\n" +
		"  * at input path [0][0]._graphdef, now <class 'flax.nnx.graphlib.GraphDef'> with pytree metadata " + graphdef("1.0") +
		" and before <class 'flax.nnx.graphlib.GraphDef'> with pytree metadata " + graphdef("2.0") +
		", so the pytree node metadata does not match\n" +
		"Compiling jit(train_step) with global shapes and types (ShapedArray(float32[3]),). Argument mapping: (UnspecifiedValue,).\n"
	evs, _ := scantest.Scan(t, log, logscan.Options{})
	if len(evs) != 2 || evs[0].Kind != logscan.Retrace || evs[1].Kind != logscan.CompileRequest {
		t.Fatalf("%+v", evs)
	}
	r := evs[0].Reason
	for _, want := range []string{"Static(value=1.0)", "Static(value=2.0)", " and before ", "does not match", logscan.Elided} {
		if !strings.Contains(r, want) {
			t.Errorf("the reason lacks %q:\n%s", want, r)
		}
	}
	if n := strings.Count(r, "\n") + 1; n > 60 {
		t.Errorf("the reason keeps %d lines", n)
	}
}

// A request's signature read as the probe's trace records list a call's arrays: dtype[dims],
// no spaces, in order, whatever the dtype's name.
func TestSignatureArrays(t *testing.T) {
	if got := jax.Framework.SignatureArrays("(ShapedArray(float32[4, 4]), ShapedArray(bfloat16[]), ShapedArray(float8_e4m3fn[2,3], weak_type=True), ShapedArray(bool[7]))"); strings.Join(got, " ") != "float32[4,4] bfloat16[] float8_e4m3fn[2,3] bool[7]" {
		t.Errorf("signature arrays %q", got)
	}
}

// A program whose logging has two handlers prints each record twice, in two layouts: counted
// once. Two processes writing one log (the probe tags each line with its process) that compile
// the same function with the same arguments are two compilations, however alike their lines.
func TestRepeatsByProcess(t *testing.T) {
	const req = "Compiling jit(step) with global shapes and types (ShapedArray(float32[8]),). Argument mapping: (UnspecifiedValue,)."
	for _, c := range []struct {
		name string
		log  string
		want []string // each event's rank
	}{
		{"one process, two handlers", "WARNING:jax._src.interpreters.pxla:" + req + "\n" + req + "\n", []string{""}},
		{"one tagged process, two handlers", "[pid 41] WARNING:jax._src.interpreters.pxla:" + req + "\n[pid 41] " + req + "\n", []string{"pid 41"}},
		{"two processes", "[pid 41] " + req + "\n[pid 42] " + req + "\n", []string{"pid 41", "pid 42"}},
		{"two ranks", "[rank0]: " + req + "\n[rank1]: " + req + "\n", []string{"0", "1"}},
	} {
		evs, _ := scantest.Scan(t, c.log, logscan.Options{})
		var got []string
		for _, ev := range evs {
			if ev.Kind == logscan.CompileRequest {
				got = append(got, ev.Rank)
			}
		}
		if strings.Join(got, "|") != strings.Join(c.want, "|") {
			t.Errorf("%s: compile requests of ranks %q, want %q", c.name, got, c.want)
		}
	}
}
