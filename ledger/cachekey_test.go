package ledger

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// units returns the units of a scan's first family.
func firstUnits(t *testing.T, s *Scan) []*Unit {
	t.Helper()
	if len(s.Ledger.Modules) == 0 {
		t.Fatal("no module")
	}
	return s.Ledger.Modules[0].Units
}

// The parts of JAX's cache key (JAX_DEBUG_LOG_MODULES=jax._src.cache_key), logged while the
// key is computed, belong to the compile request they precede the lookup of: on the real runs
// cache-xla-flag of both JAX matrices (JAX 0.12 prints each line twice), run 2's key includes
// the flag that run 2 added and run 1's does not; both hash the same computation.
func TestCacheKeyParts(t *testing.T) {
	for _, m := range []string{"jax-0.12", "jax-0.4"} {
		dir := filepath.Join("../testdata/runs", m, "cache-xla-flag")
		var parts [2]map[string]string
		var flags [2][]string
		for i, log := range []string{"run1.log", "run2.log"} {
			s := readScan(t, ReadOptions{SameProcess: true}, Log{Path: filepath.Join(dir, log)})
			us := firstUnits(t, s)
			if len(us) != 1 || !us[0].Miss || !us[0].Written || us[0].Hash == "" {
				t.Fatalf("%s/%s: units %+v", m, log, us)
			}
			parts[i] = map[string]string{}
			for _, p := range us[0].KeyParts {
				if _, dup := parts[i][p.Name]; dup {
					t.Errorf("%s/%s: part %s kept twice", m, log, p.Name)
				}
				parts[i][p.Name] = p.Hash
			}
			flags[i] = us[0].KeyFlags
		}
		// The parts both versions hash (JAX 0.12 adds "backend version"; jax/_src/cache_key.py get).
		for _, name := range []string{"computation", "jax_lib version", "XLA flags", "compile_options", "accelerator_config", "compression", "custom_hook"} {
			if parts[0][name] == "" || parts[1][name] == "" {
				t.Errorf("%s: part %q missing: %v / %v", m, name, parts[0], parts[1])
			}
		}
		if parts[0]["computation"] != parts[1]["computation"] || parts[0]["XLA flags"] == parts[1]["XLA flags"] ||
			parts[0]["jax_lib version"] != parts[1]["jax_lib version"] {
			t.Errorf("%s: parts %v / %v", m, parts[0], parts[1])
		}
		if len(flags[0]) != 0 || !slices.Equal(flags[1], []string{"--xla_cpu_enable_fast_min_max=true"}) {
			t.Errorf("%s: flags %q / %q (the dump flag is not in the key)", m, flags[0], flags[1])
		}
	}
}

// JAX's "Not writing persistent cache entry" is kept, with where it said it, on the compilation
// it is about (the real runs cache-never-written); the cache-key lines of a request logged before
// its compile line wait for it.
func TestNotWrittenQuote(t *testing.T) {
	for _, m := range []string{"jax-0.12", "jax-0.4"} {
		path := filepath.Join("../testdata/runs", m, "cache-never-written", "run1.log")
		us := firstUnits(t, readScan(t, ReadOptions{SameProcess: true}, Log{Path: path}))
		q := us[0].NotWritten
		if len(us) != 1 || us[0].Written || q == nil || q.File != path || q.Line == 0 || q.Producer != "jax" ||
			!strings.HasPrefix(q.Text, "Not writing persistent cache entry for 'jit_train_step' because it took < 1.00 seconds") {
			t.Errorf("%s: %+v, quote %+v", m, us, q)
		}
	}
	log := "get_cache_key hash of serialized computation: 00ff\n" +
		"Compiling jit(f) with global shapes and types (ShapedArray(float32[2]),). Argument mapping: (UnspecifiedValue,).\n" +
		"get_cache_key hash of serialized XLA flags: 11ee\n" +
		"PERSISTENT COMPILATION CACHE MISS for 'jit_f' with key 'jit_f-1'\n" +
		"Finished XLA compilation of jit(f) in 0.1 sec\n" +
		"/x/jax/_src/compiler.py:870: UserWarning: Error writing persistent compilation cache entry for 'jit_f': PermissionError: [Errno 13] Permission denied\n"
	us := firstUnits(t, readScan(t, ReadOptions{}, text("a.log", log)))
	if len(us) != 1 || len(us[0].KeyParts) != 2 || us[0].KeyParts[0] != (KeyPart{Name: "computation", Hash: "00ff"}) || us[0].NotWritten == nil ||
		!strings.Contains(us[0].NotWritten.Text, "Permission denied") {
		t.Errorf("units %+v", us[0])
	}
}

// A process's compile sequence: its requests in order, eager one-op programs left out, and a
// digest equal for equal sequences whatever the log's timing or names, different for a
// different variant or a request served instead of compiled.
func TestSequence(t *testing.T) {
	a := jaxStep("32,8") + jaxStep("24,8")
	b := "noise\n" + strings.ReplaceAll(a, "0.1 sec", "0.7 sec")
	c := jaxStep("32,8") + jaxStep("16,8")
	s := readScan(t, ReadOptions{}, text("a.log", a), text("b.log", b), text("c.log", c))
	seqs := s.Ledger.Sequences
	if len(seqs) != 3 {
		t.Fatalf("%d sequences", len(seqs))
	}
	if seqs[0].Count != 2 || len(seqs[0].Entries) != 2 || seqs[0].File != "a.log" || seqs[0].Compilations != 2 || seqs[0].Entries[1].Signature != "(ShapedArray(float32[24,8]),)" {
		t.Errorf("sequence %+v", seqs[0])
	}
	if seqs[0].Digest != seqs[1].Digest || seqs[0].Digest == seqs[2].Digest || len(seqs[0].DigestString()) != 16 {
		t.Errorf("digests %s %s %s", seqs[0].DigestString(), seqs[1].DigestString(), seqs[2].DigestString())
	}
	ranked := prefixed("[1,0]<stderr>:", a) + prefixed("[1,1]<stderr>:", c)
	r := readScan(t, ReadOptions{}, text("job.log", ranked)).Ledger.Sequences
	if len(r) != 2 || r[0].Rank != "0" || r[1].Rank != "1" || r[0].Digest != seqs[0].Digest || r[1].Digest != seqs[2].Digest {
		t.Errorf("ranked sequences %+v", r)
	}
	eager := "Compiling jit(convert_element_type) with global shapes and types (ShapedArray(int32[]),). Argument mapping: (UnspecifiedValue,).\n" +
		"Finished XLA compilation of jit(convert_element_type) in 0.01 sec\n"
	e := readScan(t, ReadOptions{}, text("e.log", eager+a)).Ledger.Sequences[0]
	if e.Eager != 1 || e.Digest != seqs[0].Digest {
		t.Errorf("eager: %+v", e)
	}
}

// "Not writing persistent cache entry …" is said after a compilation: alone in a log (JAX
// logs it at WARNING with jax_explain_cache_misses when nothing else of its compile logging
// is on) it is the evidence of one, with the compile time it gives; after the compilation's
// own lines it is part of that compilation.
func TestNotWrittenIsACompilation(t *testing.T) {
	alone := "WARNING:2026-11-24 07:26:50,673:jax._src.compiler:723: Not writing persistent cache entry for 'jit_train_step' because it took < 1.00 seconds to compile (0.03s)\n" +
		"WARNING:2026-11-24 07:26:51,102:jax._src.compiler:723: Not writing persistent cache entry for 'jit_eval_step' because it took < 1.00 seconds to compile (0.05s)\n"
	r := readScan(t, ReadOptions{}, text("a.log", alone)).Ledger
	if r.Summary.Compilations != 2 || r.Summary.CompileTime != 80*time.Millisecond || r.Procs[0].Evidence == 0 {
		t.Errorf("alone: %+v, evidence %d", r.Summary, r.Procs[0].Evidence)
	}
	after := "Compiling jit(f) with global shapes and types (ShapedArray(float32[2]),). Argument mapping: (UnspecifiedValue,).\n" +
		"Not writing persistent cache entry for 'jit_f' because it took < 1.00 seconds to compile (0.02s)\n" +
		"Finished XLA compilation of jit(f) in 0.03 sec\n" +
		"Compiling jit(g) with global shapes and types (ShapedArray(float32[2]),). Argument mapping: (UnspecifiedValue,).\n" +
		"Finished XLA compilation of jit(g) in 0.03 sec\n" +
		"Not writing persistent cache entry since process_id != 0\n"
	r = readScan(t, ReadOptions{}, text("b.log", after)).Ledger
	if r.Summary.Compilations != 2 {
		t.Errorf("after: %+v", r.Summary)
	}
}

// XLA's slow-compile alarm under JAX's compile logging is part of the compilation JAX asked
// for (XLA numbers the module, JAX does not), and gives its time.
func TestSlowCompileAlarmJoinsTheRequest(t *testing.T) {
	log := "Compiling jit(train_step) with global shapes and types (ShapedArray(float32[2]),). Argument mapping: (UnspecifiedValue,).\n" +
		"E0319 07:30:02.045318 1 slow_operation_alarm.cc:73] \n********************************\n" +
		"[Compiling module jit_train_step.503] Very slow compile? If you want to file a bug, run with envvar XLA_FLAGS=--xla_dump_to=/tmp/foo and attach the results.\n" +
		"********************************\n" +
		"E0319 07:32:14.895694 1 slow_operation_alarm.cc:140] The operation took 2m12.850942799s\n\n********************************\n" +
		"[Compiling module jit_train_step.503] Very slow compile? If you want to file a bug, run with envvar XLA_FLAGS=--xla_dump_to=/tmp/foo and attach the results.\n" +
		"********************************\n" +
		"Finished XLA compilation of jit(train_step) in 132.9 sec\n"
	r := readScan(t, ReadOptions{}, text("a.log", log)).Ledger
	if r.Summary.Compilations != 1 || r.Summary.CompileRequests != 1 || r.Summary.CompileTime != 132900*time.Millisecond {
		t.Errorf("%+v", r.Summary)
	}
}

// JAX logs "Finished XLA compilation" after each "Compiling": a request without it where the
// log stops had not finished (jax-ml/jax#19654, the excerpt cut inside integer_pow's).
func TestJAXRequestAtTheEndIsUnfinished(t *testing.T) {
	log := "Compiling div for with global shapes and types [ShapedArray(float32[3]), ShapedArray(float32[3])]. Argument mapping: (GSPMDSharding({replicated}), GSPMDSharding({replicated})).\n" +
		"Finished XLA compilation of jit(div) in 0.053856849670410156 sec\n" +
		"Compiling integer_pow for with global shapes and types [ShapedArray(float32[], weak_type=True)]. Argument mapping: (GSPMDSharding({replicated}),).\n"
	r := readScan(t, ReadOptions{}, text("a.log", log)).Ledger
	var got []string
	for _, f := range r.Findings {
		if f.Kind == FindingCompileUnfinished {
			got = append(got, f.Module)
		}
	}
	if r.Summary.Compilations != 2 || r.Procs[0].Cut == nil || r.Procs[0].Cut.Module != "jit_integer_pow" || len(got) != 1 || got[0] != "jit_integer_pow" {
		t.Errorf("%+v, unfinished %v", r.Summary, got)
	}
}
