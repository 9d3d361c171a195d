//go:build unix

package cache

import (
	"os"
	"path"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"testing/fstest"
	"time"
)

// Links in a cache tree on disk: a link to a folder (an entry elsewhere, a key folder, a
// folder of keys) is never walked, so what lies outside the cache is neither counted nor
// read; a link to a file in an entry is sized by that file; a dangling link adds nothing; a
// FIFO is sized, never opened. Both walks agree, and nothing in the folder changes.
func TestTreeWalkLinks(t *testing.T) {
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
	root := t.TempDir()
	outside, dir := filepath.Join(root, "outside"), filepath.Join(root, "cache")
	writeMapFS(t, outside, fstest.MapFS{
		path.Join("fxgraph/ab", key("ab"), name): {Data: entry},
		path.Join("big", name):                   {Data: make([]byte, 1<<20)},
	})
	writeMapFS(t, dir, fstest.MapFS{
		path.Join("fxgraph/ab", key("ab"), name): {Data: entry},
		path.Join("fxgraph/cd", key("cd"), name): {Data: entry[:100]},
	})
	links := map[string]string{
		"fxgraph/ef":                                     filepath.Join(outside, "fxgraph/ab"),                     // a folder of keys
		path.Join("fxgraph/ab", key("gh")):               filepath.Join(outside, "fxgraph/ab", key("ab")),          // a key folder
		path.Join("fxgraph/cd", key("cd"), "x"+name[1:]): filepath.Join(outside, "big", name),                      // a file
		path.Join("fxgraph/cd", key("cd"), "z"+name[1:]): filepath.Join(outside, "gone"),                           // nothing
		"aotautograd":                                    filepath.Join(outside, "fxgraph", "ab", key("ab"), name), // a file where a tree is
	}
	for at, to := range links {
		if err := os.Symlink(to, filepath.Join(dir, filepath.FromSlash(at))); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "fxgraph/cd", key("cd"), "y"+name[1:]), 0o644); err != nil {
		t.Fatal(err)
	}
	before := treeState(t, root)
	for _, folder := range []Folder{{Name: dir, FS: os.DirFS(dir)}, OSFolder(dir)} {
		inv, err := Take([]Folder{folder}, NewLogUse())
		if err != nil {
			t.Fatal(err)
		}
		// the two entries, and the link to a file where a tree would be, counted as a file
		if inv.Count != 3 || inv.ByKind["inductor-fx"] != 2 || inv.ByKind["other"] != 1 || len(inv.Entries) != 3 {
			t.Fatalf("path %q: %d entries (%v), %d listed: %+v", folder.Path, inv.Count, inv.ByKind, len(inv.Entries), inv.Entries)
		}
		for _, e := range inv.Entries {
			if e.Kind == "other" {
				continue
			}
			want := int64(len(entry))
			if strings.Contains(e.Name, key("cd")) {
				want = 100 + 1<<20 // its file and the file its link names; the dangling link and the FIFO add nothing
			}
			if e.Size != want {
				t.Errorf("path %q: %s: %d bytes, want %d", folder.Path, e.Name, e.Size, want)
			}
		}
	}
	if after := treeState(t, root); !reflect.DeepEqual(before, after) {
		t.Errorf("the folders changed:\n%v\n%v", before, after)
	}
}

// treeState is every name under root with its size, time and mode, links not followed.
func treeState(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		out[p] = info.Mode().String() + " " + info.ModTime().String() + " " + strconv.FormatInt(info.Size(), 10)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// A FIFO where a listed entry's file is (a PyTorch/XLA entry's name at the top, the file an
// Inductor entry's pickle is read from) is never opened: opening one for reading waits for a
// writer, and the inventory would never end.
func TestFIFOEntriesNeverWaitedOn(t *testing.T) {
	key := "f" + strings.Repeat("ab", 25) + "c"
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "fxgraph", key[1:3], key), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"257758919866642146955247157900283250589", filepath.Join("fxgraph", key[1:3], key, strings.Repeat("e", 51))} {
		if err := syscall.Mkfifo(filepath.Join(dir, p), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, folder := range []Folder{{Name: dir, FS: os.DirFS(dir)}, OSFolder(dir)} {
		done := make(chan *Inventory, 1)
		go func() {
			inv, err := Take([]Folder{folder}, NewLogUse())
			if err != nil {
				t.Error(err)
			}
			done <- inv
		}()
		select {
		case inv := <-done:
			if inv == nil || inv.Count != 2 || inv.ByKind["torch-xla"] != 1 || inv.ByKind["inductor-fx"] != 1 || len(inv.Entries) != 2 {
				t.Errorf("path %q: %+v", folder.Path, inv)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("path %q: the inventory waits on a FIFO", folder.Path)
		}
	}
}
