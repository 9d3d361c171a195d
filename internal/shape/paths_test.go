package shape

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// machinePath is a path that names the machine a run was made on: an absolute path into a
// Python installation (its lib/pythonX.Y, where the stack's frames are), a home folder's
// (/root/, /Users/), or the checkout's generators (…/testdata/runs/gen/). A committed run names
// them as driver.py's relative_paths does: venv/lib/python3.11/site-packages/…,
// python/lib/python3.11/…, testdata/runs/gen/….
var machinePath = regexp.MustCompile(`(?:^|[^A-Za-z0-9._/-])(/[A-Za-z0-9._-]+(?:/[A-Za-z0-9._-]+)*/(?:lib/python3\.\d+/|testdata/runs/gen/)|/root/|/Users/)`)

// TestNoMachinePathInTestdata fails on a machine's path (machinePath) in a text file of the
// module's test data (the committed runs, the test fixtures); binary files (a persistent cache's
// entries) are left out, as the generators leave them.
func TestNoMachinePathInTestdata(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if strings.HasPrefix(d.Name(), ".") && path != root || rel == "testdata/runs/gen" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.Contains("/"+rel, "/testdata/") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if bytes.IndexByte(b, 0) >= 0 {
			return nil // binary
		}
		checked++
		for i, line := range strings.Split(string(b), "\n") {
			if m := machinePath.FindStringSubmatch(line); m != nil && !strings.HasPrefix(m[1], "/tmp/") { // a temporary folder names no machine
				t.Errorf("%s:%d: a machine's path %q", rel, i+1, m[1])
				return nil // one a file
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 1000 {
		t.Errorf("%d files checked, want the committed runs' (over 1000)", checked)
	}
}
