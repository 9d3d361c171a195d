package jax

import (
	"bytes"
	"compress/zlib"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// The compile time JAX stores at the head of a persistent-cache entry: the real entries of the
// runs in testdata (zlib: their Pythons had no zstandard) took under a second, which JAX stores
// as 0; an entry written the way JAX writes one (4-byte big-endian seconds, then the executable,
// zlib-compressed) reads back its seconds; zstandard and foreign files are refused with a reason.
func TestCompileTime(t *testing.T) {
	real, _ := filepath.Glob("../../testdata/runs/jax-0.*/*/cache/*-cache")
	if len(real) < 4 {
		t.Fatalf("%d real entries", len(real))
	}
	for _, f := range real {
		if d, err := CompileTime(f); err != nil || d != 0 {
			t.Errorf("%s: %v, %v", f, d, err)
		}
	}
	dir := t.TempDir()
	var b bytes.Buffer
	zw := zlib.NewWriter(&b)
	zw.Write(append([]byte{0, 0, 1, 44}, bytes.Repeat([]byte("executable"), 100)...))
	zw.Close()
	entry, ok := EntryFile(dir, "jit_f-"+string(bytes.Repeat([]byte("a"), 64)))
	if !ok {
		t.Fatal("a JAX key refused")
	}
	os.WriteFile(entry, b.Bytes(), 0o644)
	if d, err := CompileTime(entry); err != nil || d != 300*time.Second {
		t.Errorf("written entry: %v, %v", d, err)
	}
	zst := filepath.Join(dir, "z-cache")
	os.WriteFile(zst, []byte{0x28, 0xb5, 0x2f, 0xfd, 0, 0}, 0o644)
	if _, err := CompileTime(zst); !errors.Is(err, ErrZstd) {
		t.Errorf("zstd: %v", err)
	}
	other := filepath.Join(dir, "o-cache")
	os.WriteFile(other, []byte("not an entry"), 0o644)
	if _, err := CompileTime(other); err == nil {
		t.Error("a foreign file read as an entry")
	}
}

// A key comes from a log: one that would name a file outside the cache folder names none, and
// an entry that is not a regular file (a FIFO would block) is never read.
func TestEntryFileStaysInTheFolder(t *testing.T) {
	dir := t.TempDir()
	for _, key := range []string{"../../etc/passwd", "a/b", "..", "", "a\\b", "a\x00b", "/abs"} {
		if p, ok := EntryFile(dir, key); ok {
			t.Errorf("key %q names %s", key, p)
		}
	}
}
