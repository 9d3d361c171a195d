package input

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func gz(t *testing.T, s string) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	if _, err := zw.Write([]byte(s)); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func write(t *testing.T, path string, data []byte) string {
	t.Helper()
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func readOpen(t *testing.T, path string, stdin io.Reader) (string, *File) {
	t.Helper()
	f, err := Open(path, stdin)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	defer f.Close()
	b, err := io.ReadAll(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return string(b), f
}

// Open reads a file, gzip by its magic bytes whatever its name, and standard input.
func TestOpen(t *testing.T) {
	dir := t.TempDir()
	plain := write(t, filepath.Join(dir, "run.log"), []byte("line 1\n"))
	packed := write(t, filepath.Join(dir, "run.txt"), gz(t, "line 1\n"))
	if got, f := readOpen(t, plain, nil); got != "line 1\n" || f.Gzip || f.Info == nil || f.Info.Size() != 7 {
		t.Errorf("plain: %q gzip %v", got, f.Gzip)
	}
	if got, f := readOpen(t, packed, nil); got != "line 1\n" || !f.Gzip {
		t.Errorf("gzip without .gz: %q gzip %v", got, f.Gzip)
	}
	if got, f := readOpen(t, "-", bytes.NewReader(gz(t, "from stdin\n"))); got != "from stdin\n" || !f.Gzip || f.Info != nil {
		t.Errorf("stdin: %q", got)
	}
	if _, err := Open("-", nil); err == nil || err.Error() != "-: no standard input" {
		t.Errorf("no stdin: %v", err)
	}
	if _, err := Open(dir, nil); !errors.Is(err, ErrFolder) || err.Error() != dir+": is a folder" {
		t.Errorf("folder: %v", err)
	}
	var pe *os.PathError
	if _, err := Open(filepath.Join(dir, "missing"), nil); !errors.As(err, &pe) {
		t.Errorf("missing: %v is not the file system's error", err)
	}
	bad := write(t, filepath.Join(dir, "bad.gz"), []byte{0x1f, 0x8b, 0, 0})
	if _, err := Open(bad, nil); err == nil || !strings.HasPrefix(err.Error(), bad+": ") {
		t.Errorf("a broken gzip header: %v", err)
	}
}

// ReadAll caps what it reads, before and after decompression.
func TestReadAllCap(t *testing.T) {
	dir := t.TempDir()
	plain := write(t, filepath.Join(dir, "m.txt"), []byte("0123456789"))
	packed := write(t, filepath.Join(dir, "m.txt.gz"), gz(t, strings.Repeat("x", 1000)))
	for _, c := range []struct {
		path string
		max  int64
		err  string
	}{
		{plain, 10, ""},
		{plain, 9, plain + ": larger than 9 bytes, the most recomp reads of one HLO file"},
		{packed, 1000, ""},
		{packed, 999, packed + ": inflates (gzip) to more than 999 bytes, the most recomp reads of one HLO file"},
	} {
		b, err := ReadAll(c.path, nil, c.max)
		switch {
		case c.err == "" && err != nil:
			t.Errorf("%s max %d: %v", c.path, c.max, err)
		case c.err != "" && (err == nil || err.Error() != c.err):
			t.Errorf("%s max %d: error %v, want %q", c.path, c.max, err, c.err)
		case c.err == "" && int64(len(b)) != c.max:
			t.Errorf("%s: read %d bytes", c.path, len(b))
		}
	}
	truncated := write(t, filepath.Join(dir, "cut.gz"), gz(t, strings.Repeat("y", 100))[:20])
	if _, err := ReadAll(truncated, nil, 1<<20); err == nil || !strings.HasPrefix(err.Error(), truncated+": ") {
		t.Errorf("a truncated gzip: %v", err)
	}
}

// A run folder is read through its run.log; any other path is itself.
func TestRunLog(t *testing.T) {
	dir := t.TempDir()
	run := filepath.Join(dir, "run")
	if err := os.Mkdir(run, 0o755); err != nil {
		t.Fatal(err)
	}
	log := write(t, filepath.Join(run, "run.log"), []byte("x\n"))
	for path, want := range map[string]string{run: log, log: log, dir: dir, "-": "-", "missing": "missing"} {
		if got := RunLog(path); got != want {
			t.Errorf("RunLog(%s) = %s, want %s", path, got, want)
		}
	}
}

func TestCheckStdin(t *testing.T) {
	if err := CheckStdin([]string{"a", "-", "b"}); err != nil {
		t.Error(err)
	}
	if err := CheckStdin([]string{"-", "a", "-"}); err == nil || !strings.Contains(err.Error(), "given 2 times") {
		t.Errorf("stdin twice: %v", err)
	}
}
