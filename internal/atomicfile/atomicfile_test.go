package atomicfile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWrite(t *testing.T) {
	for name, write := range map[string]func(string, []byte, os.FileMode) error{"Write": Write, "WriteUnsynced": WriteUnsynced} {
		dir := t.TempDir()
		path := filepath.Join(dir, "report.json")
		if err := write(path, []byte("first\n"), 0o644); err != nil {
			t.Fatal(name, err)
		}
		if err := write(path, []byte("second\n"), 0o600); err != nil {
			t.Fatal(name, err)
		}
		b, _ := os.ReadFile(path)
		st, _ := os.Stat(path)
		if string(b) != "second\n" || st.Mode().Perm() != 0o600 {
			t.Errorf("%s: content %q mode %v", name, b, st.Mode())
		}
		if left, _ := filepath.Glob(filepath.Join(dir, ".report.json.tmp-*")); len(left) != 0 {
			t.Errorf("%s: temporary files left: %v", name, left)
		}
		if err := write(filepath.Join(dir, "missing", "x.json"), []byte("x"), 0o644); err == nil || !strings.Contains(err.Error(), "x.json") {
			t.Errorf("%s: a write into a missing folder: %v", name, err)
		}
	}
}

// A write that cannot be completed leaves the previous file as it was and says which file.
func TestWriteFailureKeepsThePreviousFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "manifest.json")
	if err := Write(path, []byte("previous\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A folder in the target's place cannot be renamed over.
	err := Write(filepath.Join(dir, "missing", "x.json"), []byte("x"), 0o644)
	if err == nil || !errors.Is(err, os.ErrNotExist) || !strings.Contains(err.Error(), "x.json") {
		t.Errorf("write into a missing folder: %v", err)
	}
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)
	os.WriteFile(filepath.Join(dir, "sub", "keep"), nil, 0o644)
	if err := Write(filepath.Join(dir, "sub"), []byte("x"), 0o644); err == nil {
		t.Error("renamed over a non-empty folder")
	}
	if b, _ := os.ReadFile(path); string(b) != "previous\n" {
		t.Errorf("previous file changed: %q", b)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".*tmp-*")); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
}
