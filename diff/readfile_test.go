package diff

import (
	"bytes"
	"compress/gzip"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// gzipBomb returns a gzip stream of n members, each inflating to 1 MiB of zeros (a member is
// about 1 KB): a file of about n KB that inflates to n MiB.
func gzipBomb(t testing.TB, n int) []byte {
	t.Helper()
	var member bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&member, gzip.BestCompression)
	zw.Write(make([]byte, 1<<20))
	zw.Close()
	return bytes.Repeat(member.Bytes(), n)
}

// TestReadFileCaps: a gzip bomb is refused at the cap without what it inflates to ever being
// held in memory; a plain file over the cap is refused before it is read; stdin is capped too.
func TestReadFileCaps(t *testing.T) {
	dir := t.TempDir()
	bomb := filepath.Join(dir, "module_0001.f.before_optimizations.txt.gz")
	if err := os.WriteFile(bomb, gzipBomb(t, 64), 0o644); err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err := ReadFileMax(bomb, nil, 8<<20)
	runtime.ReadMemStats(&after)
	var tl *TooLargeError
	if !errors.As(err, &tl) || !tl.Inflated || !strings.Contains(err.Error(), "inflates (gzip) to more than 8 MiB") {
		t.Fatalf("a 64 KB file inflating to 64 MiB with a cap of 8 MiB: %v", err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 4<<20 {
		t.Errorf("refusing the bomb allocated %d MiB: it was inflated into memory", alloc>>20)
	}

	// under the cap it is read, in one allocation of its inflated size
	data, err := ReadFileMax(bomb, nil, 64<<20)
	if err != nil || len(data) != 64<<20 {
		t.Fatalf("at the cap: %d bytes, %v", len(data), err)
	}

	plain := filepath.Join(dir, "big.txt")
	os.WriteFile(plain, make([]byte, 3<<20), 0o644)
	if _, err := ReadFileMax(plain, nil, 2<<20); !errors.As(err, &tl) || tl.Inflated || !strings.Contains(err.Error(), "big.txt: larger than 2 MiB") {
		t.Errorf("plain file over the cap: %v", err)
	}
	if _, err := ReadFileMax("-", bytes.NewReader(gzipBomb(t, 4)), 1<<20); !errors.As(err, &tl) || !tl.Inflated {
		t.Errorf("a bomb on stdin: %v", err)
	}
	if _, err := ReadFileMax("-", bytes.NewReader(make([]byte, 2<<20)), 1<<20); !errors.As(err, &tl) || tl.Inflated {
		t.Errorf("plain stdin over the cap: %v", err)
	}

	// in a dump folder the bomb is a problem of its own (file named, exit 2), not a failed load
	d, err := LoadDump(dir, LoadOptions{MaxFileBytes: 8 << 20})
	if err != nil || len(d.Problems) != 1 || d.Problems[0].Path != bomb ||
		d.Problems[0].Message != "inflates (gzip) to more than 8 MiB, the most recomp reads of one HLO file" {
		t.Errorf("dump with a bomb: %v %+v", err, d)
	}
}

// TestDefaultCapRefusesAGigabyteBomb: the default cap (DefaultMaxFileBytes) refuses a 1 MB
// file that inflates to 1 GiB.
func TestDefaultCapRefusesAGigabyteBomb(t *testing.T) {
	if testing.Short() {
		t.Skip("inflates 512 MiB")
	}
	bomb := filepath.Join(t.TempDir(), "bomb.hlo.gz")
	if err := os.WriteFile(bomb, gzipBomb(t, 1024), 0o644); err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := ReadFile(bomb, nil)
	runtime.ReadMemStats(&after)
	var tl *TooLargeError
	if !errors.As(err, &tl) || tl.Cap != DefaultMaxFileBytes || !strings.Contains(err.Error(), "inflates (gzip) to more than 512 MiB") {
		t.Fatalf("1 GiB bomb: %v", err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 4<<20 {
		t.Errorf("refusing the bomb allocated %d MiB", alloc>>20)
	}
}
