package cache

import (
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"testing/fstest"
)

// A cache folder on disk reads the same whether its trees are walked by paths in its fs.FS or
// with the system's calls from each folder's descriptor (OSFolder): every real and fixture
// cache of testdata, entry by entry (sizes, times, states, key parts), and the warnings.
func TestTreeWalksAgree(t *testing.T) {
	dirs := []string{"../testdata/runs/torch-2.9/inductor-cache/cache", "../testdata/caches/neuron/a", "../testdata/caches/neuron/b",
		"../testdata/caches/vllm/a", "../testdata/caches/vllm/b"}
	for _, dir := range dirs {
		byPath, err := Take([]Folder{{Name: dir, FS: os.DirFS(dir)}}, NewLogUse())
		if err != nil {
			t.Fatal(err)
		}
		byFD, err := Take([]Folder{OSFolder(dir)}, NewLogUse())
		if err != nil {
			t.Fatal(err)
		}
		if byFD.Count == 0 || len(byFD.Entries) == 0 {
			t.Fatalf("%s: nothing read: %+v", dir, byFD)
		}
		if !reflect.DeepEqual(byPath, byFD) {
			t.Errorf("%s: by path %+v\nby descriptor %+v", dir, byPath, byFD)
		}
	}
}

// Counting an entry folder that is not listed makes no entry: the memory an inventory
// allocates grows by a few names per entry folder, not by what os.ReadDir and a FileInfo cost
// (about 1.9 KB an entry before).
func TestTreeWalkAllocatesLittlePerEntry(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 4000 folders")
	}
	name := strings.Repeat("e", 51)
	const digits = "abcdefghijklmnopqrstuvwxyz234567"
	write := func(dir string, n int) {
		for i := range n {
			key := []byte("f" + strings.Repeat("a", 51))
			for j, k := 3, i; j < 8; j, k = j+1, k/32 {
				key[j] = digits[k%32]
			}
			d := filepath.Join(dir, "fxgraph", string(key[1:3]), string(key))
			if err := os.MkdirAll(d, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(d, name), []byte("x"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	allocated := func(dir string, count int) uint64 {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		inv, err := Take([]Folder{OSFolder(dir)}, NewLogUse())
		runtime.ReadMemStats(&after)
		if err != nil || inv.Count != count || len(inv.Entries) != MaxListed {
			t.Fatalf("%s: %v: %d entries, %d listed", dir, err, inv.Count, len(inv.Entries))
		}
		return after.TotalAlloc - before.TotalAlloc
	}
	small, large := t.TempDir(), t.TempDir()
	write(small, 2000)
	write(large, 4000)
	allocated(large, 4000) // warm: the stacks' tables made once
	perEntry := (float64(allocated(large, 4000)) - float64(allocated(small, 2000))) / 2000
	if perEntry > 600 {
		t.Errorf("%.0f bytes allocated per entry folder counted, want at most 600", perEntry)
	}
	t.Logf("%.0f bytes per entry folder", perEntry)
}

// writeMapFS writes fsys's files under dir.
func writeMapFS(t *testing.T, dir string, fsys fstest.MapFS) {
	t.Helper()
	for name, f := range fsys {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
