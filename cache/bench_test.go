package cache

import (
	"math/big"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// BenchmarkTake100k takes the inventory of a PyTorch/XLA persistent cache of 100 000 entries
// (files named by 128-bit hashes in decimal, 1 KiB each) in a real folder, as recomp cache
// does: every entry counted, the first 1000 listed and their heads read for the graph they hold.
// B/op (all the memory allocated by one inventory) bounds what it holds at once; heap-sys-MB is
// the heap the runtime took from the system by the end.
func BenchmarkTake100k(b *testing.B) {
	dir := b.TempDir()
	head := []byte{0x0a, 0x1a, 0x0a, 0x18, 0x0a, 0x14}
	head = append(append(head, "SyncTensorsGraph.218"...), make([]byte, 1024-len(head)-20)...)
	n := new(big.Int).Lsh(big.NewInt(1), 120)
	for i := 0; i < 100_000; i++ {
		name := new(big.Int).Add(n, big.NewInt(int64(i)*7919)).String()
		if err := os.WriteFile(filepath.Join(dir, name), head, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	folders := []Folder{OSFolder(dir)}
	b.ReportAllocs()
	b.ResetTimer()
	var inv *Inventory
	for i := 0; i < b.N; i++ {
		var err error
		if inv, err = Take(folders, NewLogUse()); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	if inv.Count != 100_000 || inv.ByKind["torch-xla"] != 100_000 || len(inv.Entries) != MaxListed || inv.Entries[0].Graph != "SyncTensorsGraph.218" {
		b.Fatalf("count %d kinds %v listed %d first %+v", inv.Count, inv.ByKind, len(inv.Entries), inv.Entries[0])
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	b.ReportMetric(float64(ms.HeapSys)/(1<<20), "heap-sys-MB")
}

// BenchmarkTakeInductor100k takes the inventory of an Inductor cache of 100 000 FX-graph entries
// (fxgraph/<key[1:3]>/<key>/<entry>, each a copy of a real torch 2.9 entry, 54 KB) in a real
// folder: every key folder counted, the first 1000 listed and their pickles read for the graph
// and the key's parts. It fails when an inventory allocates more than 100 MB (issue 42's bar,
// with under 2 s: docs/performance.md).
func BenchmarkTakeInductor100k(b *testing.B) {
	real, _ := filepath.Glob("../testdata/runs/torch-2.9/inductor-cache/cache/fxgraph/*/*/*")
	if len(real) == 0 {
		b.Skip("no Inductor entry in testdata")
	}
	entry, err := os.ReadFile(real[0])
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	const digits = "abcdefghijklmnopqrstuvwxyz234567"
	for i := 0; i < 100_000; i++ {
		// the first 2000 keys by name (those listed) start "faa", the others do not
		key := []byte("f" + strings.Repeat("a", 51))
		for j, n := 3, i; j < 8; j, n = j+1, n/32 {
			key[j] = digits[n%32]
		}
		if i >= 2*MaxListed {
			key[1] = "bcdefghijklmnopqrstuvwxyz"[i%25]
		}
		d := filepath.Join(dir, "fxgraph", string(key[1:3]), string(key))
		if err := os.MkdirAll(d, 0o755); err != nil {
			b.Fatal(err)
		}
		if i < 2*MaxListed { // the listed ones are read: a real entry; the others are only counted
			err = os.WriteFile(filepath.Join(d, strings.Repeat("e", 51)), entry, 0o644)
		} else {
			err = os.WriteFile(filepath.Join(d, strings.Repeat("e", 51)), entry[:1024], 0o644)
		}
		if err != nil {
			b.Fatal(err)
		}
	}
	folders := []Folder{OSFolder(dir)}
	b.ReportAllocs()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	b.ResetTimer()
	var inv *Inventory
	for i := 0; i < b.N; i++ {
		if inv, err = Take(folders, NewLogUse()); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	if per := (after.TotalAlloc - before.TotalAlloc) / uint64(b.N); per > 100<<20 {
		b.Errorf("%d MB allocated per inventory, more than 100 MB", per>>20)
	}
	if inv.Count != 100_000 || inv.ByKind["inductor-fx"] != 100_000 || len(inv.Entries) != MaxListed || len(inv.Entries[0].Parts) < 300 {
		b.Fatalf("count %d kinds %v listed %d first %+v", inv.Count, inv.ByKind, len(inv.Entries), inv.Entries[0])
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	b.ReportMetric(float64(ms.HeapSys)/(1<<20), "heap-sys-MB")
}
