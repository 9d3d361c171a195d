package torchxla

import (
	"os"
	"path/filepath"
	"testing"
)

// An entry's file name is the graph hash of the analysis in decimal; its head names the HLO
// module (the real entry PyTorch/XLA 2.9 wrote on CPU).
func TestPersistentCacheEntry(t *testing.T) {
	real := "../../testdata/runs/torch-xla-2.9/persistent-cache/cache/257758919866642146955247157900283250589"
	name := filepath.Base(real)
	if !entryNames.MatchString(name) || entryKey(name) != "c1ea8fedad37d35ccadccc65bd1c879d" || entryName("c1ea8fedad37d35ccadccc65bd1c879d") != name {
		t.Errorf("%s: key %s, back %s", name, entryKey(name), entryName(entryKey(name)))
	}
	// the analysis prints a hash without its leading zeros (51bb8e5aa32789234f58896fb92b033, 31 digits)
	if entryKey("6790082153394774726008752620373717043") != "51bb8e5aa32789234f58896fb92b033" || entryKey("0") != "0" ||
		entryName("51bb8e5aa32789234f58896fb92b033") != "6790082153394774726008752620373717043" {
		t.Errorf("short hash: %s %s", entryKey("6790082153394774726008752620373717043"), entryKey("0"))
	}
	big := "340282366920938463463374607431768211456" // 2^128: no hash
	if entryKey(big) != big || entryName("zz") != "" || entryName("123456789012345678901234567890123") != "" {
		t.Errorf("out of range: %s %q", entryKey(big), entryName("zz"))
	}
	if p, ok := (persistentCache{}).EntryFile("/c", "../x"); ok {
		t.Errorf("a key that is no hash names %s", p)
	}
	head, err := os.ReadFile(real)
	if err != nil {
		t.Fatal(err)
	}
	if g := entryGraph(head[:4096]); g != "SyncTensorsGraph.218" {
		t.Errorf("graph %q", g)
	}
	for _, h := range [][]byte{nil, {0x0a}, {0x0a, 0xff}, {0x0a, 0x03, 'a', ' ', 'b'}, []byte("UNIMPLEMENTED")} {
		if g := entryGraph(h); g != "" {
			t.Errorf("%q: graph %q", h, g)
		}
	}
}

func FuzzEntryGraph(f *testing.F) {
	f.Add([]byte{0x0a, 0x05, 0x0a, 0x03, 'a', '.', '1'})
	f.Add([]byte{0x0a, 0x80})
	f.Fuzz(func(t *testing.T, b []byte) {
		if g := entryGraph(b); len(g) > len(b) || g != "" && !moduleName([]byte(g)) {
			t.Errorf("%q from %q", g, b)
		}
	})
}
