package cache

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recomp/recomp/frameworks"
	"github.com/recomp/recomp/frameworks/framework"
)

func takeDir(t *testing.T, dir string, logs ...string) *Inventory {
	t.Helper()
	use, err := ReadLogUse(logs, nil)
	if err != nil {
		t.Fatal(err)
	}
	inv, err := Take([]Folder{OSFolder(dir)}, use)
	if err != nil {
		t.Fatal(err)
	}
	return inv
}

// PyTorch/XLA 2.9's real persistent cache (testdata/runs/torch-xla-2.9/persistent-cache): the
// entry is named by the graph hash the analysis prints, its head names the HLO module, run 1
// missed it and wrote it (PersistentCacheMiss), run 2 found it and could not deserialise it on
// CPU (PersistentCacheDeserializeFailure) and compiled the graph again.
func TestTorchXLAPersistentCache(t *testing.T) {
	run := "../testdata/runs/torch-xla-2.9/persistent-cache"
	for _, c := range []struct {
		logs   []string
		status func(*CacheEntry) bool
	}{
		{nil, func(e *CacheEntry) bool { return !e.Used() }},
		{[]string{run + "/run1.log"}, func(e *CacheEntry) bool { return e.Missed && e.Unreadable == "" }},
		{[]string{run + "/run2.log"}, func(e *CacheEntry) bool {
			return !e.Hit && e.Unreadable == "PersistentCacheDeserializeFailure 1"
		}},
	} {
		inv := takeDir(t, run+"/cache", c.logs...)
		if inv.Count != 1 || inv.ByKind["torch-xla"] != 1 || inv.Foreign != 0 {
			t.Fatalf("%v: %+v", c.logs, inv)
		}
		e := inv.Entries[0]
		if e.Key != "c1ea8fedad37d35ccadccc65bd1c879d" || e.Graph != "SyncTensorsGraph.218" || !c.status(e) {
			t.Errorf("%v: %+v", c.logs, e)
		}
	}
}

// The Neuron and vLLM fixtures (testdata/caches, built to the layouts their sources write):
// each entry folder is one entry, named by its graph or part of the model, with its state.
func TestCacheTrees(t *testing.T) {
	for _, c := range []struct {
		dir     string
		kind    EntryKind
		want    map[string]string // entry path → "program state"
		damaged int
	}{
		{"../testdata/caches/neuron/a", "neuron", map[string]string{
			"neuronxcc-2.15.128.0+56dc5a86/MODULE_98ba4c9111d5882d2331+39f12043": "MODULE_98ba4c9111d5882d2331+39f12043 ",
			"neuronxcc-2.15.128.0+56dc5a86/MODULE_a7b0021f88c35fba5c31+39f12043": "MODULE_a7b0021f88c35fba5c31+39f12043 partial",
			"neuronxcc-2.15.128.0+56dc5a86/MODULE_12486829708343293975+d41d8cd9": "MODULE_12486829708343293975+d41d8cd9 failed",
			"neuronxcc-2.15.128.0+56dc5a86/MODULE_7411938889920977621+d41d8cd9":  "MODULE_7411938889920977621+d41d8cd9 locked",
		}, 3},
		{"../testdata/caches/vllm/a", "vllm", map[string]string{
			"torch_compile_cache/1517964802/rank_0_0/backbone": "backbone (rank 0, data-parallel rank 0) ",
			"torch_compile_cache/a1b2c3d4e5/rank_0_0/backbone": "backbone (rank 0, data-parallel rank 0) partial",
		}, 1},
	} {
		inv := takeDir(t, c.dir)
		if inv.Count != len(c.want) || inv.ByKind[c.kind] != len(c.want) || inv.Damaged != c.damaged || inv.Dirs != 0 {
			t.Errorf("%s: count %d by kind %v damaged %d dirs %d", c.dir, inv.Count, inv.ByKind, inv.Damaged, inv.Dirs)
		}
		for _, e := range inv.Entries {
			if got := e.Graph + " " + e.State; c.want[e.Name] != got {
				t.Errorf("%s: %s: %q, want %q", c.dir, e.Name, got, c.want[e.Name])
			}
			if e.Size == 0 || e.Prunable() {
				t.Errorf("%s: %s: size %d prunable %v", c.dir, e.Name, e.Size, e.Prunable())
			}
		}
	}
}

// Why cache B's entries are not cache A's: one entry of B per part of the key, each named by
// the part that differs (first), its values on both sides and the stack's remedy; B's copy of
// A's entry is held.
func TestCompareKeyParts(t *testing.T) {
	for _, c := range []struct {
		stack string
		want  map[string]string // B's entry → "part: name A → B"
	}{
		{"neuron", map[string]string{
			"neuronxcc-2.15.128.0+56dc5a86/MODULE_98ba4c9111d5882d2331+39f12043": "held",
			"neuronxcc-2.16.0.0+ab12cd34/MODULE_98ba4c9111d5882d2331+39f12043":   "versions: neuronx-cc version 2.15.128.0+56dc5a86 → 2.16.0.0+ab12cd34",
			"neuronxcc-2.15.128.0+56dc5a86/MODULE_98ba4c9111d5882d2331+5f0e11aa": "flags: compiler flags hash 39f12043 → 5f0e11aa",
			"neuronxcc-2.15.128.0+56dc5a86/MODULE_c3d4e5f60718293a4b5c+39f12043": "graph: graph hash 98ba4c9111d5882d2331 → c3d4e5f60718293a4b5c",
		}},
		{"vllm", map[string]string{
			"torch_compile_cache/1517964802/rank_0_0/backbone": "held",
			"torch_compile_cache/2b0e64f1aa/rank_0_0/backbone": `versions: compiler.torch_version "2.9.0" → "2.9.1"`,
			"torch_compile_cache/3c71d0e2bb/rank_0_0/backbone": "flags: config.model_config.max_model_len 8192 → 4096",
			"torch_compile_cache/4d82e1f3cc/rank_0_0/backbone": "device: config.parallel_config.tensor_parallel_size 1 → 2",
			"torch_compile_cache/5e93f204dd/rank_0_0/backbone": `environment: env.VLLM_FLOAT32_MATMUL_PRECISION "highest" → "high"`,
			"torch_compile_cache/6fa40315ee/rank_0_0/backbone": `graph: code[vllm/model_executor/models/llama.py] "5f2b7c0e" → "77aa19e3"`,
		}},
	} {
		a := takeDir(t, "../testdata/caches/"+c.stack+"/a")
		b := takeDir(t, "../testdata/caches/"+c.stack+"/b")
		cmp := Compare(a, b)
		if len(cmp.Entries) != len(c.want) || cmp.Held != 1 {
			t.Fatalf("%s: %d entries, %d held", c.stack, len(cmp.Entries), cmp.Held)
		}
		for _, k := range cmp.Entries {
			name := strings.TrimPrefix(k.B, "../testdata/caches/"+c.stack+"/b/")
			got := "held"
			if !k.InA {
				if len(k.Differs) != 1 || len(k.Parts) == 0 || !k.Parts[0].Differ() || k.Remedy == "" {
					t.Errorf("%s: %s: differs %v parts %+v remedy %q", c.stack, name, k.Differs, k.Parts, k.Remedy)
					continue
				}
				p := k.Parts[0]
				got = fmt.Sprintf("%s: %s %s → %s", k.Differs[0], p.Name, p.A, p.B)
				if !strings.Contains(k.Summary, p.Name) || k.Remedy != remedyOf(c.stack, k.Differs[0]) {
					t.Errorf("%s: %s: summary %q remedy %q", c.stack, name, k.Summary, k.Remedy)
				}
			}
			if got != c.want[name] {
				t.Errorf("%s: %s: %q, want %q", c.stack, name, got, c.want[name])
			}
		}
	}
}

func remedyOf(kind string, p framework.KeyPart) string {
	for _, tr := range frameworks.CacheTrees() {
		if tr.Kind == kind {
			return tr.Remedy[p]
		}
	}
	return ""
}

// A PyTorch/XLA persistent cache of two entries, one the run hit (it ran the graph without
// compiling it and its metrics count a hit), one it missed and wrote.
func TestTorchXLACountedUse(t *testing.T) {
	dir := t.TempDir()
	hit, missed := "257758919866642146955247157900283250589", "1"
	for _, n := range []string{hit, missed, "notes.txt"} {
		os.WriteFile(filepath.Join(dir, n), []byte("x"), 0o644)
	}
	log := filepath.Join(t.TempDir(), "run.log")
	os.WriteFile(log, []byte("Compilation Analysis: ================================================================================\n"+
		"Compilation Analysis: Compilation Cause\n"+
		"Compilation Analysis:   mark_step when dynamo processing input graphs\n"+
		"Compilation Analysis: Graph Info: \n"+
		"Compilation Analysis:   Graph Hash: 1\n"+
		"Compilation Analysis:   Number of Graph Inputs: 2\n"+
		"Compilation Analysis:   Number of Graph Outputs: 1\n"+
		"Compilation Analysis: Python Frame Triggered Execution: \n"+
		"Compilation Analysis:   train_step (train.py:10)\n"+
		"Compilation Analysis: --------------------------------------------------------------------------------\n"+
		"Compilation Analysis: ================================================================================\n"+
		"Execution Analysis: ================================================================================\n"+
		"Execution Analysis: Execution Cause\n"+
		"Execution Analysis:   mark_step when dynamo processing input graphs\n"+
		"Execution Analysis: Graph Info: \n"+
		"Execution Analysis:   Graph Hash: c1ea8fedad37d35ccadccc65bd1c879d\n"+
		"Execution Analysis:   Number of Graph Inputs: 2\n"+
		"Execution Analysis:   Number of Graph Outputs: 1\n"+
		"Execution Analysis: Python Frame Triggered Execution: \n"+
		"Execution Analysis:   eval_step (train.py:20)\n"+
		"Execution Analysis: --------------------------------------------------------------------------------\n"+
		"Execution Analysis: ================================================================================\n"+
		"Counter: PersistentCacheHit\n  Value: 1\nCounter: PersistentCacheMiss\n  Value: 1\n"), 0o644)
	inv := takeDir(t, dir, log)
	status := map[string]string{}
	for _, e := range inv.Entries {
		status[e.Name] = fmt.Sprintf("%s hit=%v missed=%v", e.Kind, e.Hit, e.Missed)
	}
	want := map[string]string{hit: "torch-xla hit=true missed=false", missed: "torch-xla hit=false missed=true", "notes.txt": "other hit=false missed=false"}
	for n, w := range want {
		if status[n] != w {
			t.Errorf("%s: %q, want %q", n, status[n], w)
		}
	}
}
