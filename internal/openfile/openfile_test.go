package openfile

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestReadCapped(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "m.json")
	os.WriteFile(p, []byte(`{"a": 1}`), 0o644)
	var v map[string]int
	if err := ReadJSON(p, false, 64, "a test", &v); err != nil || v["a"] != 1 {
		t.Fatalf("%v %v", v, err)
	}
	big := filepath.Join(dir, "big.json")
	f, _ := os.Create(big)
	f.Truncate(1 << 30) // sparse
	f.Close()
	var tl *TooLargeError
	if _, err := ReadCapped(big, false, 1<<20, "a test"); !errors.As(err, &tl) || tl.Size != 1<<30 {
		t.Errorf("1 GiB file: %v", err)
	}
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte("{\n\"a\": 1,\n}"), 0o644)
	if err := ReadJSON(bad, false, 64, "a test", &v); err == nil || err.Error()[:len(bad)+2] != bad+":3" {
		t.Errorf("syntax error names no line: %v", err)
	}
	if _, err := ReadCapped(dir, false, 64, "a test"); err == nil {
		t.Error("a folder read")
	}
}
