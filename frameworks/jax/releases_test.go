package jax_test

import (
	"testing"
	"time"

	"github.com/recomp/recomp/internal/scantest"
	"github.com/recomp/recomp/logscan"
)

// Each release's wording of the compile request, the persistent cache and the compile time,
// as the format strings of jax's history print them (the tag and file in each comment), and
// as users pasted them (the issue named).
func TestWordingsByRelease(t *testing.T) {
	for _, c := range []struct {
		line   string
		kind   logscan.Kind
		module string
		key    string
		dur    time.Duration
		sig    string
	}{
		// jax-ml/jax#19654 (0.4.23/0.4.24, pxla.py "Compiling %s for with global shapes and types %s.").
		{"Compiling div for with global shapes and types [ShapedArray(float32[3]), ShapedArray(float32[3])]. Argument mapping: (GSPMDSharding({replicated}), GSPMDSharding({replicated})).",
			logscan.CompileRequest, "jit_div", "", 0, "[ShapedArray(float32[3]), ShapedArray(float32[3])]"},
		// jax-v0.3.25..v0.4.7 pxla.py: the function id, then "for with".
		{"Compiling convert_element_type (140245115224064) for with global shapes and types [ShapedArray(int32[])]. Argument mapping: [OpShardingSharding({replicated})].",
			logscan.CompileRequest, "jit_convert_element_type", "", 0, "[ShapedArray(int32[])]"},
		// jax-v0.4.8 pxla.py, a mesh: "Compiling %s for %s mesh with global shapes and types %s.".
		{"Compiling f for (('x', 4), ('y', 2)) mesh with global shapes and types [ShapedArray(float32[8,2])]. Argument mapping: (OpShardingSharding({devices=[4,2]0,1,2,3,4,5,6,7}),).",
			logscan.CompileRequest, "jit_f", "", 0, "[ShapedArray(float32[8,2])]"},
		// jax-v0.4.8 pxla.py, pmap: "Compiling %s (%d) for %d devices with args %s. (num_replicas=%d num_partitions=%d)".
		{"Compiling update (139921447393600) for 8 devices with args (ShapedArray(float32[128]),). (num_replicas=8 num_partitions=1)",
			logscan.CompileRequest, "pmap_update", "", 0, "(ShapedArray(float32[128]),)"},
		// jax-v0.2.28 xla.py: "({id(fun)} for args" (sic) and, past 10 arguments, "for N args.".
		{"Compiling step (140102535542784 for args (ShapedArray(float32[3]),).", logscan.CompileRequest, "jit_step", "", 0, "(ShapedArray(float32[3]),)"},
		{"Compiling step (140102535542784) for 12 args.", logscan.CompileRequest, "jit_step", "", 0, ""},
		// The persistent cache's hits: jax-v0.2.20 compilation_cache ("Persistent compilation cache
		// hit"), v0.2.28–v0.3.2x ("… for %s."), v0.3.25–v0.4.30 ("… for '%s'"), v0.4.31+ (with the key).
		{"Persistent compilation cache hit", logscan.CacheHit, "", "", 0, ""},
		{"Persistent compilation cache hit for jit_train_step.", logscan.CacheHit, "jit_train_step", "", 0, ""},
		{"INFO:jax._src.dispatch:Persistent compilation cache hit for 'jit_train_step'", logscan.CacheHit, "jit_train_step", "", 0, ""},
		// A write, jax-v0.2.28..v0.4.30 compilation_cache.py: the key unquoted, a full stop after.
		{"Writing jit_train_step to persistent compilation cache with key jit_train_step-" + sha + ".",
			logscan.CacheWrite, "jit_train_step", "jit_train_step-" + sha, 0, ""},
		// The compile time before a write: jax-v0.3.25..v0.4.23 compiler.py ("…, writing persistent
		// cache entry") and v0.4.24+ (without).
		{"'jit_x' took at least 0.00 seconds to compile (0.06s)", logscan.CompileEnd, "jit_x", "", 60 * time.Millisecond, ""},
		{"INFO:jax._src.dispatch:'jit_update' took at least 1.00 seconds to compile (3.41s), writing persistent cache entry",
			logscan.CompileEnd, "jit_update", "", 3410 * time.Millisecond, ""},
	} {
		ev := scantest.One(t, c.line)
		if ev.Kind != c.kind || ev.Producer != logscan.ProducerJAX || ev.Module != c.module || ev.Hash != c.key || ev.Duration != c.dur || ev.Signature != c.sig {
			t.Errorf("%q:\n got %+v", c.line, ev)
		}
	}
}

// The three headers of a tracing-cache-miss explanation: "because:" (0.4.24–0.5), "costing T ms
// because:" (0.6–0.8, jax/_src/pjit.py) and a bare colon (0.9+). Each is a retrace of the
// function it names, at its call site.
func TestTracingCacheMissHeaders(t *testing.T) {
	for _, c := range []struct {
		head string
		cost time.Duration
	}{
		{"TRACING CACHE MISS at /w/train.py:47:12 (main) because:", 0},
		{"TRACING CACHE MISS at /w/train.py:47:12 (main) costing 12.345 ms because:", 12345 * time.Microsecond},
		{"TRACING CACHE MISS at /w/train.py:47:12 (main):", 0},
	} {
		evs, _ := scantest.Scan(t, c.head+"\n  for train_step defined at /w/train.py:39\n  all previously seen cache keys differ. For the closest previous key:\n  * at x, now f32[24,8] and before f32[32,8]\n", logscan.Options{})
		if len(evs) != 1 || evs[0].Kind != logscan.Retrace || evs[0].Path != "/w/train.py:47:12 (main)" || evs[0].Module != "train_step" || evs[0].Duration != c.cost {
			t.Errorf("%s: %+v", c.head, evs)
		}
	}
	// A record flattened onto one line (a JSON or rich handler), with the cost.
	ev := scantest.One(t, "TRACING CACHE MISS at /w/train.py:47:12 (main) costing 0.512 ms because: for train_step defined at /w/train.py:39 all previously seen cache keys differ.")
	if ev.Path != "/w/train.py:47:12 (main)" || ev.Module != "train_step" || ev.Duration != 512*time.Microsecond {
		t.Errorf("flattened: %+v", ev)
	}
}

// "Not writing persistent cache entry …" wrapped across lines by a terminal or a paste is one
// record, with its module and the compile time it gives.
func TestNotWrittenWrapped(t *testing.T) {
	evs, _ := scantest.Scan(t, "Not writing persistent cache entry for 'jit_train_step' because it took < 1.00\n"+
		"seconds to compile (0.06s)\nEpoch 2\n", logscan.Options{})
	if len(evs) != 1 || evs[0].Kind != logscan.CacheNotWritten || evs[0].Module != "jit_train_step" || evs[0].Duration != 60*time.Millisecond || evs[0].Line != 1 {
		t.Fatalf("%+v", evs)
	}
	evs, _ = scantest.Scan(t, "Not writing persistent cache\nentry for 'jit_f' because it took < 1.00 seconds to compile (0.02s)\n", logscan.Options{})
	if len(evs) != 1 || evs[0].Module != "jit_f" || evs[0].Duration != 20*time.Millisecond {
		t.Fatalf("%+v", evs)
	}
}
