package cache

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/recomp/recomp/logscan"
)

func TestClassifyEntry(t *testing.T) {
	for name, want := range map[string]EntryKind{
		"277a08fe4c20b50.poplar_exec":            "tf-ipu",
		"277a08fe4c20b50.xla_engine":             "tf-ipu-sdk1",
		"277a08fe4c20b50.xla_engine.poplar_exec": "tf-ipu-sdk1",
		"277a08fe4c20b50.compile_lock":           "lock",
		"277a08fe4c20b50.read_lock":              "lock",
		"1234567890123.popef":                    "popart",
		"1234567890123.popart":                   "popart-sdk2",
		"jit_train_step-0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef": "jax",
		"jit_f-0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef-atime":    "jax",
		"notes.txt":                   EntryOther,
		"train.py":                    EntryOther,
		"Z77a08fe4c20b50.poplar_exec": EntryOther,
		"a b-0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef": EntryOther,
	} {
		if got := ClassifyEntry(name); got != want {
			t.Errorf("ClassifyEntry(%q) = %s, want %s", name, got, want)
		}
	}
}

// TestInventoryOfAHugeFolder checks that a folder of 100 000 entries is counted exactly while
// only the touched entries and MaxListed others are kept (on an in-memory file system).
func TestInventoryOfAHugeFolder(t *testing.T) {
	fsys := fstest.MapFS{"sub": &fstest.MapFile{Mode: os.ModeDir | 0o755}}
	const n = 100_000
	for i := 0; i < n; i++ {
		fsys[fmt.Sprintf("%x.poplar_exec", i+0x100000)] = &fstest.MapFile{Data: []byte{1}, ModTime: time.Unix(0, 0)}
	}
	use := NewLogUse()
	use.Add(logscan.CacheHit, "/elsewhere/"+fmt.Sprintf("%x.poplar_exec", n+0x100000-1))
	use.Add(logscan.CacheMiss, "/x/ffffffff.poplar_exec")
	inv, err := Take([]Folder{{Name: "cache", FS: fsys}}, use)
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
	use.Add(logscan.CacheHit, key)
	inv, err := Take([]Folder{{Name: dir, FS: os.DirFS(dir)}}, use)
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

// TestOnlyCacheEntriesArePrunable: a stray file, a lock or a touched entry is never proposed
// for removal, and a loop of links is a warning, not a hang.
func TestOnlyCacheEntriesArePrunable(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"train.py", "abc.compile_lock", "abc.poplar_exec", "def.poplar_exec", "odd\nname.poplar_exec"} {
		if err := os.WriteFile(filepath.Join(dir, n), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.Symlink("loop2", filepath.Join(dir, "loop1"))
	os.Symlink("loop1", filepath.Join(dir, "loop2"))
	use := NewLogUse()
	use.Add(logscan.CacheHit, "/c/abc.poplar_exec")
	inv, err := Take([]Folder{{Name: dir, FS: os.DirFS(dir)}}, use)
	if err != nil {
		t.Fatal(err)
	}
	var prunable []string
	for _, e := range inv.Entries {
		if e.Prunable() {
			prunable = append(prunable, e.Name)
		}
	}
	if strings.Join(prunable, ",") != "def.poplar_exec" || inv.Unused != 1 || inv.Foreign != 2 {
		t.Errorf("prunable %q, unused %d, foreign %d", prunable, inv.Unused, inv.Foreign)
	}
	if len(inv.Warnings) != 2 || !strings.Contains(inv.Warnings[0], "link") {
		t.Errorf("warnings %q", inv.Warnings)
	}
}

// ReadLogUse takes the cache events of every log, standard input included, by
// the entry's base name; a log that cannot be opened is an error naming it.
func TestReadLogUse(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a.log")
	os.WriteFile(a, []byte("Loaded cluster_3 from /c/9a8b.poplar_exec\n"), 0o644)
	stdin := strings.NewReader("Couldn't find /c/77ff.poplar_exec in executable cache\n")
	use, err := ReadLogUse([]string{a, "-"}, stdin)
	if err != nil {
		t.Fatal(err)
	}
	if !use.Hits["9a8b.poplar_exec"] || !use.Misses["77ff.poplar_exec"] || len(use.Hits)+len(use.Misses)+len(use.Writes) != 2 {
		t.Errorf("use %+v", use)
	}
	for _, c := range []struct {
		paths []string
		err   string
	}{
		{[]string{a, filepath.Join(dir, "missing.log")}, "missing.log"},
		{[]string{dir}, "is a directory, not a log file"},
		{[]string{"-", "-"}, "given 2 times"},
	} {
		if _, err := ReadLogUse(c.paths, strings.NewReader("")); err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("%v: %v, want %q", c.paths, err, c.err)
		}
	}
}
