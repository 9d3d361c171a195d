package cache

import (
	"encoding/json"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/recomp/recomp/frameworks/framework"
)

// inductorRuns are the runs of a torch 2.9 scenario that share one Inductor cache: each run's
// trace, and the keys it wrote, as truth.json records them from the cache torch left.
type inductorRuns struct {
	Logs          []string `json:"logs"`
	InductorCache struct {
		Runs []struct {
			FXHit   int `json:"fxgraph_cache_hit"`
			Written struct {
				FX  []string `json:"fxgraph"`
				AOT []string `json:"aotautograd"`
			} `json:"written"`
		} `json:"runs"`
	} `json:"inductor_cache"`
}

func readInductorRuns(t *testing.T, run string) inductorRuns {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(run, "truth.json"))
	if err != nil {
		t.Fatal(err)
	}
	var r inductorRuns
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	if len(r.Logs) != 3 || len(r.InductorCache.Runs) != 3 {
		t.Fatalf("%s: %d logs, %d runs", run, len(r.Logs), len(r.InductorCache.Runs))
	}
	return r
}

// Inductor's real cache after three runs (testdata/runs/torch-2.9/inductor-cache): run 1 wrote an
// FX-graph and an AOTAutograd entry, run 2 was served by them, run 3 (another config value) wrote
// a second pair. The inventory names each entry's graph and what each run's trace did with it.
func TestInductorCacheInventory(t *testing.T) {
	run := "../testdata/runs/torch-2.9/inductor-cache"
	truth := readInductorRuns(t, run)
	var earlier []string // the FX-graph keys the runs before wrote
	for i, r := range truth.InductorCache.Runs {
		inv := takeDir(t, run+"/cache", run+"/"+truth.Logs[i])
		if inv.Count != 4 || inv.ByKind["inductor-fx"] != 2 || inv.ByKind["aotautograd"] != 2 || inv.Damaged != 0 || inv.Foreign != 0 {
			t.Fatalf("run %d: %+v", i+1, inv)
		}
		for _, e := range inv.Entries {
			written := contains(r.Written.FX, e.Key) || contains(r.Written.AOT, e.Key)
			switch {
			case e.Kind == "inductor-fx" && !strings.HasPrefix(e.Graph, "predict at torch_runs.py:"):
				t.Errorf("run %d: %s: graph %q", i+1, e.Name, e.Graph)
			case e.Kind == "aotautograd" && !strings.HasPrefix(e.Graph, "FX graph f"):
				t.Errorf("run %d: %s: graph %q", i+1, e.Name, e.Graph)
			case written != (e.Written && e.Missed):
				t.Errorf("run %d: %s: written by the run %v, inventory %+v", i+1, e.Name, written, e)
			case e.Kind == "inductor-fx" && r.FXHit > 0 && contains(earlier, e.Key) != e.Hit:
				t.Errorf("run %d (served): %s: written before %v, hit %v", i+1, e.Name, contains(earlier, e.Key), e.Hit)
			}
		}
		earlier = append(earlier, r.Written.FX...)
	}
}

// Entries that are partial, corrupt or foreign are named so, and never proposed for removal.
func TestInductorDamagedEntries(t *testing.T) {
	real, _ := filepath.Glob("../testdata/runs/torch-2.9/inductor-cache/cache/fxgraph/*/*/*")
	if len(real) == 0 {
		t.Fatal("no entry")
	}
	entry, err := os.ReadFile(real[0])
	if err != nil {
		t.Fatal(err)
	}
	key := func(p string) string { return "f" + p + strings.Repeat("x", 49) }
	name := strings.Repeat("e", 51)
	fsys := fstest.MapFS{
		path.Join("fxgraph/ab", key("ab"), name):                {Data: entry},
		path.Join("fxgraph/cd", key("cd"), ".4242.17.tmp"):      {Data: entry[:100]},
		path.Join("fxgraph/ef", key("ef"), name):                {Data: []byte("not a pickle")},
		path.Join("fxgraph/gh", key("ij"), name):                {Data: entry},
		path.Join("fxgraph/kl", key("kl"), "README"):            {Data: []byte("mine")},
		path.Join("aotautograd", "a"+key("mn")[1:], name):       {Data: entry}, // an FX graph where an AOTAutograd entry belongs
		path.Join("locks", "c"+strings.Repeat("z", 51)+".lock"): {Data: nil},
		path.Join("fxgraph/op", key("op"), name):                {Data: entry},
		path.Join("fxgraph/op", key("op"), "sub/deeper/x"):      {Data: []byte("deep")}, // sized with the entry
	}
	dir := t.TempDir()
	writeMapFS(t, dir, fsys)
	// the same in memory, on disk by its paths, on disk from each folder's descriptor
	for _, folder := range []Folder{{Name: "c", FS: fsys}, {Name: "c", FS: os.DirFS(dir)}, {Name: "c", FS: os.DirFS(dir), Path: dir}} {
		inv, err := Take([]Folder{folder}, NewLogUse())
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]string{
			"fxgraph/ab/" + key("ab"): "", "fxgraph/cd/" + key("cd"): "partial", "fxgraph/ef/" + key("ef"): "corrupt",
			"fxgraph/gh/" + key("ij"): "foreign", "fxgraph/kl/" + key("kl"): "foreign", "aotautograd/a" + key("mn")[1:]: "corrupt",
			"fxgraph/op/" + key("op"): "",
		}
		for _, e := range inv.Entries {
			if st, ok := want[e.Name]; !ok || st != e.State || e.Prunable() {
				t.Errorf("%T %q: %s: state %q, want %q (prunable %v)", folder.FS, folder.Path, e.Name, e.State, st, e.Prunable())
			}
			if e.Name == "fxgraph/op/"+key("op") && e.Size != int64(len(entry)+4) {
				t.Errorf("%T %q: %s: %d bytes, want %d", folder.FS, folder.Path, e.Name, e.Size, len(entry)+4)
			}
			delete(want, e.Name)
		}
		if len(want) > 0 || inv.Damaged != 5 || inv.Dirs != 1 {
			t.Errorf("%T %q: not listed %v; damaged %d, folders %d", folder.FS, folder.Path, want, inv.Damaged, inv.Dirs)
		}
	}
}

// Why one run's Inductor cache did not serve another: one test per part of the key the runs
// changed for real. inductor-cache: run 3 set TORCHINDUCTOR_MAX_AUTOTUNE_POINTWISE=1 (an Inductor
// config value); inductor-cache-keys: run 2 fed 24 rows, not 16 (the inputs), run 3 compiled
// another function on the same inputs (the graph).
func TestInductorWhyMissed(t *testing.T) {
	for _, c := range []struct {
		run   string
		a, b  int
		part  framework.KeyPart
		names string // the part's factor that differs first
		a2b   string
	}{
		{"inductor-cache", 0, 2, framework.KeyFlags, "inductor_config[max_autotune_pointwise]", "False → True"},
		{"inductor-cache-keys", 0, 1, framework.KeyInputs, "example_inputs[", "float32[16, 8]"},
		{"inductor-cache-keys", 0, 2, framework.KeyGraph, "gm", " ops #"},
	} {
		run := "../testdata/runs/torch-2.9/" + c.run
		truth := readInductorRuns(t, run)
		cacheOf := func(i int) *Inventory {
			w := truth.InductorCache.Runs[i].Written
			fsys := fstest.MapFS{}
			for _, k := range w.FX {
				copyEntry(t, fsys, run+"/cache", path.Join("fxgraph", k[1:3], k))
			}
			inv, err := Take([]Folder{{Name: "run" + string(rune('1'+i)), FS: fsys}}, NewLogUse())
			if err != nil || inv.Count != len(w.FX) || inv.Count == 0 {
				t.Fatalf("%s run %d: %v %+v", c.run, i+1, err, inv)
			}
			return inv
		}
		cmp := Compare(cacheOf(c.a), cacheOf(c.b))
		if len(cmp.Entries) != 1 || cmp.Held != 0 {
			t.Fatalf("%s: %+v", c.run, cmp)
		}
		k := cmp.Entries[0]
		first := k.Parts[0]
		if k.InA || len(k.Differs) == 0 || k.Differs[0] != c.part || !strings.HasPrefix(first.Name, c.names) ||
			!strings.Contains(k.Summary, c.a2b) || k.Remedy == "" || !first.Differ() {
			t.Errorf("%s run %d vs %d: %+v", c.run, c.a+1, c.b+1, k)
		}
		for _, p := range k.Parts {
			if p.Differ() && p.Part == framework.KeyVersions || p.Part == framework.KeyDevice && p.Differ() {
				t.Errorf("%s: the same torch and machine, yet %+v differs", c.run, p)
			}
		}
	}
}

func copyEntry(t *testing.T, fsys fstest.MapFS, root, dir string) {
	t.Helper()
	files, err := os.ReadDir(filepath.Join(root, dir))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(root, dir, f.Name()))
		if err != nil {
			t.Fatal(err)
		}
		fsys[path.Join(dir, f.Name())] = &fstest.MapFile{Data: b}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
