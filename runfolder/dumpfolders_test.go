package runfolder

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// A dump's own folder lists its files and the folders that are no process's; each process's
// folder (pid-N, a folder) is read on its own, in name order.
func TestDumpFolders(t *testing.T) {
	dump := t.TempDir()
	for _, d := range []string{"pid-12", "pid-7", "pid-0", "pid-012", "module_0004.jit_step", "pid-7/pid-9"} {
		if err := os.MkdirAll(filepath.Join(dump, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"module_0000.jit_f.before_optimizations.txt", "pid-3", "pid-12/module_0000.jit_g.before_optimizations.txt"} {
		if err := os.WriteFile(filepath.Join(dump, f), []byte("HloModule m\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	folders, err := DumpFolders(dump)
	if err != nil {
		t.Fatal(err)
	}
	type got struct {
		path    string
		pid     int
		entries []string
	}
	var gots []got
	for _, f := range folders {
		rel, _ := filepath.Rel(dump, f.Path)
		g := got{path: rel, pid: f.PID}
		for _, e := range f.Entries {
			g.entries = append(g.entries, e.Name())
		}
		if f.Err != nil {
			t.Errorf("%s: %v", rel, f.Err)
		}
		gots = append(gots, g)
	}
	want := []got{
		{".", 0, []string{"module_0000.jit_f.before_optimizations.txt", "module_0004.jit_step", "pid-0", "pid-012", "pid-3"}},
		{"pid-12", 12, []string{"module_0000.jit_g.before_optimizations.txt"}},
		{"pid-7", 7, []string{"pid-9"}},
	}
	if !slices.EqualFunc(gots, want, func(a, b got) bool {
		return a.path == b.path && a.pid == b.pid && slices.Equal(a.entries, b.entries)
	}) {
		t.Errorf("DumpFolders:\n got %+v\nwant %+v", gots, want)
	}
	if _, err := DumpFolders(filepath.Join(dump, "missing")); !os.IsNotExist(err) {
		t.Errorf("a missing dump: %v, want not-exist", err)
	}
}
