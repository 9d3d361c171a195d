package openfile

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
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

// The buffer a file's size sizes holds the whole file, whatever its size against the first
// read's, and a file at the cap is read, one byte more refused.
func TestReadCappedSizes(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []int{0, 1, 511, 512, 513, 4096, 70000} {
		p := filepath.Join(dir, "f")
		want := bytes.Repeat([]byte("0123456789abcdef"), n/16+1)[:n]
		os.WriteFile(p, want, 0o644)
		got, err := ReadCapped(p, false, int64(n), "a test")
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%d bytes, cap %d: read %d bytes, %v", n, n, len(got), err)
		}
		if n > 0 {
			var tl *TooLargeError
			if _, err := ReadCapped(p, false, int64(n-1), "a test"); !errors.As(err, &tl) {
				t.Errorf("%d bytes, cap %d: %v", n, n-1, err)
			}
		}
	}
}

// A document padded with white space (a run folder's start manifest) decodes, and a syntax
// error in one still names its line.
func TestReadJSONPadded(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "m.json")
	os.WriteFile(p, append([]byte("{\"a\": 2}\n"), bytes.Repeat([]byte(" "), 64<<10)...), 0o644)
	var v map[string]int
	if err := ReadJSON(p, false, 1<<20, "a test", &v); err != nil || v["a"] != 2 {
		t.Fatalf("%v %v", v, err)
	}
	os.WriteFile(p, append([]byte("{\n\"a\": 2,\n}\n"), bytes.Repeat([]byte(" \n"), 100)...), 0o644)
	if err := ReadJSON(p, false, 1<<20, "a test", &v); err == nil || !strings.HasPrefix(err.Error(), p+":3:") {
		t.Errorf("syntax error names no line: %v", err)
	}
	os.WriteFile(p, bytes.Repeat([]byte(" "), 100), 0o644)
	if err := ReadJSON(p, false, 1<<20, "a test", &v); err == nil {
		t.Error("a document of white space read")
	}
}
