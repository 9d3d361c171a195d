package report

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/recomp/recomp/cache"
	"github.com/recomp/recomp/frameworks/framework"
)

// The cache document written entry by entry is byte for byte the document written whole: with
// no entry, with entries whose key parts, names and paths hold quotes, brackets, escapes and
// the `"listed": []` the stream cuts at, with a cache held against it, and the hostile texts.
func TestCacheJSONStreamed(t *testing.T) {
	odd := `x "listed": [] {[,:]} \ é ` + "\u2028\x1b<&>"
	parts := []framework.Factor{{Part: framework.KeyGraph, Name: "gm", Value: "3 ops #abc"}, {Part: framework.KeyFlags, Name: odd, Value: odd}}
	entry := func(name string, parts []framework.Factor) *cache.CacheEntry {
		return &cache.CacheEntry{Dir: odd, Name: name, Kind: "inductor-fx", Folder: true, Size: 54164, ModTime: time.Unix(1e9, 0),
			Graph: odd, Key: "f" + strings.Repeat("a", 51), Parts: parts, Hit: true}
	}
	caches := []*Cache{
		{Dirs: []string{odd}, Inventory: &cache.Inventory{ByKind: map[cache.EntryKind]int{}}},
		{Dirs: []string{odd, "b"}, LogsGiven: true, Inventory: &cache.Inventory{Count: 3, Warnings: []string{odd},
			ByKind:  map[cache.EntryKind]int{"inductor-fx": 3},
			Entries: []*cache.CacheEntry{entry("fxgraph/aa/k1", parts), entry(odd, nil), entry("fxgraph/bb/k3", parts[:1])}}},
		{Dirs: []string{"a"}, AgainstDirs: []string{odd}, Against: &cache.Comparison{Held: 1,
			Entries: []*cache.KeyComparison{{Kind: "inductor-fx", A: odd, B: "b", Differs: []framework.KeyPart{framework.KeyFlags},
				Parts: []cache.PartPair{{Part: framework.KeyFlags, Name: odd, A: odd, B: "1"}}}}},
			Inventory: &cache.Inventory{Count: 1, ByKind: map[cache.EntryKind]int{"inductor-fx": 1}, Entries: []*cache.CacheEntry{entry("e", parts)}}},
	}
	for _, s := range hostileTexts {
		caches = append(caches, reportsWith(t, s)["cache"].(*Cache))
	}
	for _, c := range caches {
		var whole, streamed bytes.Buffer
		if err := writeJSON(&whole, CacheDocument(c)); err != nil {
			t.Fatal(err)
		}
		if err := writeCacheJSON(&streamed, c); err != nil {
			t.Fatal(err)
		}
		if whole.String() != streamed.String() {
			t.Errorf("streamed:\n%s\nwhole:\n%s", streamed.String(), whole.String())
		}
	}
}
