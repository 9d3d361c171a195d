package cache

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestClassifyEntry(t *testing.T) {
	for name, want := range map[string]string{
		"277a08fe4c20b50.poplar_exec":  EntryTFIPU,
		"277a08fe4c20b50.xla_engine":   EntryTFIPUOld,
		"277a08fe4c20b50.compile_lock": EntryLock,
		"277a08fe4c20b50.read_lock":    EntryLock,
		"1234567890123.popef":          EntryPopEF,
		"1234567890123.popart":         EntryPopARTOld,
		"jit_train_step-0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef": EntryJAX,
		"jit_f-0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef-atime":    EntryJAX,
		"notes.txt":                   EntryOther,
		"Z77a08fe4c20b50.poplar_exec": EntryOther,
	} {
		if got := ClassifyEntry(name); got != want {
			t.Errorf("ClassifyEntry(%q) = %s, want %s", name, got, want)
		}
	}
}

// TestInventoryOfAHugeFolder checks that a folder of 100 000 entries is counted exactly while
// only the touched entries and MaxListed others are kept.
func TestInventoryOfAHugeFolder(t *testing.T) {
	if testing.Short() {
		t.Skip("creates 100 000 files")
	}
	dir := t.TempDir()
	const n = 100_000
	for i := 0; i < n; i++ {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("%x.poplar_exec", i+0x100000)), []byte{1}, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)
	use := NewLogUse()
	use.Add("cache_hit", "/elsewhere/"+fmt.Sprintf("%x.poplar_exec", n+0x100000-1))
	use.Add("cache_miss", "/x/ffffffff.poplar_exec")
	inv, err := Take([]string{dir}, use)
	if err != nil {
		t.Fatal(err)
	}
	if inv.Count != n || inv.Bytes != n || inv.Unused != n-1 || inv.Dirs != 1 {
		t.Errorf("count %d bytes %d unused %d dirs %d", inv.Count, inv.Bytes, inv.Unused, inv.Dirs)
	}
	if len(inv.Entries) != MaxListed+1 {
		t.Errorf("kept %d entries, want %d", len(inv.Entries), MaxListed+1)
	}
	if inv.Entries[0].Name != "100000.poplar_exec" || !inv.Entries[len(inv.Entries)-1].Hit {
		t.Errorf("first %s last %+v", inv.Entries[0].Name, inv.Entries[len(inv.Entries)-1])
	}
	if len(inv.MissingMisses) != 1 || inv.MissingMisses[0] != "ffffffff.poplar_exec" {
		t.Errorf("missing misses %v", inv.MissingMisses)
	}
}

func TestJAXEntriesMatchTheLoggedKey(t *testing.T) {
	dir := t.TempDir()
	key := "jit_f-" + strings.Repeat("ab", 32)
	for _, n := range []string{key + "-cache", key + "-atime", "jit_g-" + strings.Repeat("cd", 32) + "-cache"} {
		if err := os.WriteFile(filepath.Join(dir, n), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	use := NewLogUse()
	use.Add("cache_hit", key)
	inv, err := Take([]string{dir}, use)
	if err != nil {
		t.Fatal(err)
	}
	if inv.Unused != 1 || len(inv.MissingMisses) != 0 {
		t.Errorf("unused %d, missing %v", inv.Unused, inv.MissingMisses)
	}
	for _, e := range inv.Entries {
		if strings.HasPrefix(e.Name, key) != e.Hit {
			t.Errorf("%s: hit %v", e.Name, e.Hit)
		}
	}
}
