//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Round 3 (issue 28), class 5: a special file where recomp expects a regular one (a FIFO, a
// device, a huge file) is refused or skipped with a word, never waited on nor read whole.

const jaxRun = "../../testdata/runs/jax-0.12/partial-batch"

// runFolderCopy makes a run folder of the example run: its run.log and dump/.
func runFolderCopy(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "run")
	os.MkdirAll(filepath.Join(dir, "dump"), 0o755)
	copyFile(t, filepath.Join(jaxRun, "run.log"), filepath.Join(dir, "run.log"))
	entries, _ := os.ReadDir(filepath.Join(jaxRun, "dump"))
	for _, e := range entries {
		copyFile(t, filepath.Join(jaxRun, "dump", e.Name()), filepath.Join(dir, "dump", e.Name()))
	}
	return dir
}

func copyFile(t *testing.T, from, to string) {
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// within runs recomp with args and fails the test when it takes more than 20 s.
func within(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	type res struct {
		code        int
		out, errout string
	}
	done := make(chan res, 1)
	go func() {
		c, o, e := runIn(t, "", args...)
		done <- res{c, o, e}
	}()
	select {
	case r := <-done:
		return r.code, r.out, r.errout
	case <-time.After(20 * time.Second):
		t.Fatalf("recomp %s hangs", strings.Join(args, " "))
	}
	return 0, "", ""
}

// A run folder whose manifest.json is a FIFO, /dev/zero or a huge file: scan, guard, explain and
// diff answer at once, none waits on it or reads it whole.
func TestSpecialManifest(t *testing.T) {
	for _, kind := range []string{"fifo", "zero", "huge"} {
		t.Run(kind, func(t *testing.T) {
			dir := runFolderCopy(t)
			m := filepath.Join(dir, "manifest.json")
			switch kind {
			case "fifo":
				if err := syscall.Mkfifo(m, 0o644); err != nil {
					t.Skip(err)
				}
			case "zero":
				if err := os.Symlink("/dev/zero", m); err != nil {
					t.Skip(err)
				}
			case "huge":
				f, _ := os.Create(m)
				f.WriteString(`{"version": 1, "command": ["`)
				f.Truncate(512 << 20) // sparse: 512 MiB of NUL bytes, on no disk
				f.Close()
			}
			other := runFolderCopy(t)
			for _, args := range [][]string{{"scan", dir}, {"guard", dir}, {"explain", dir}, {"diff", other, dir}} {
				code, _, stderr := within(t, args...)
				if code == exitInternal || strings.Contains(stderr, "panic") {
					t.Errorf("recomp %s: exit %d\n%s", args[0], code, stderr)
				}
				if args[0] == "diff" && (code != exitUsage || !strings.Contains(stderr, "manifest.json")) {
					t.Errorf("recomp diff with a %s manifest: exit %d, want 2 naming it:\n%s", kind, code, stderr)
				}
				if args[0] == "diff" && kind == "huge" && !strings.Contains(stderr, "larger than") {
					t.Errorf("recomp diff read a 512 MiB manifest: %s", stderr)
				}
			}
		})
	}
}

// A FIFO or /dev/zero named *.log in a folder given to ranks or diff is skipped with a warning.
func TestSpecialLogInFolder(t *testing.T) {
	dir := t.TempDir()
	copyFile(t, filepath.Join(jaxRun, "run.log"), filepath.Join(dir, "rank0.log"))
	copyFile(t, filepath.Join(jaxRun, "run.log"), filepath.Join(dir, "rank1.log"))
	if err := syscall.Mkfifo(filepath.Join(dir, "rank2.log"), 0o644); err != nil {
		t.Skip(err)
	}
	os.Symlink("/dev/zero", filepath.Join(dir, "rank3.log"))
	code, out, stderr := within(t, "ranks", dir)
	if code == exitUsage || code == exitInternal {
		t.Fatalf("ranks: exit %d\n%s", code, stderr)
	}
	for _, n := range []string{"rank2.log", "rank3.log"} {
		if !strings.Contains(out, n) || !strings.Contains(out, "not a regular file") {
			t.Errorf("ranks says nothing of %s:\n%s", n, out)
		}
	}
	// diff: a folder with one log and one dump, and a FIFO named as a second log.
	side := t.TempDir()
	copyFile(t, filepath.Join(jaxRun, "run.log"), filepath.Join(side, "train.log"))
	os.Mkdir(filepath.Join(side, "dump"), 0o755)
	entries, _ := os.ReadDir(filepath.Join(jaxRun, "dump"))
	for _, e := range entries {
		copyFile(t, filepath.Join(jaxRun, "dump", e.Name()), filepath.Join(side, "dump", e.Name()))
	}
	syscall.Mkfifo(filepath.Join(side, "other.log"), 0o644)
	code, out, stderr = within(t, "diff", jaxRun, side)
	if code == exitUsage || code == exitInternal || !strings.Contains(out, "other.log") {
		t.Errorf("diff: exit %d, the FIFO not named:\n%s\n%s", code, out, stderr)
	}
}

// diff --cache names a JAX cache entry from a key in a log: a key that climbs out of the cache
// folder names nothing, and an entry that is a FIFO is not read.
func TestCacheKeyFIFO(t *testing.T) {
	cacheDir := t.TempDir()
	outside := filepath.Join(filepath.Dir(cacheDir), "evil-cache")
	if err := syscall.Mkfifo(outside, 0o644); err != nil {
		t.Skip(err)
	}
	defer os.Remove(outside)
	if err := syscall.Mkfifo(filepath.Join(cacheDir, "jit_f-fifo-cache"), 0o644); err != nil {
		t.Skip(err)
	}
	logA := filepath.Join(t.TempDir(), "a.log")
	logB := filepath.Join(t.TempDir(), "b.log")
	hit := func(key string) string {
		return "DEBUG:2026-01-01 00:00:00,000:jax._src.compilation_cache:Persistent compilation cache hit for 'jit_f' with key '" + key + "'\n"
	}
	os.WriteFile(logA, []byte(""), 0o644)
	os.WriteFile(logB, []byte(hit("../evil")+hit("jit_f-fifo")), 0o644)
	code, _, stderr := within(t, "diff", "--cache", cacheDir, logA, logB)
	if code == exitInternal || strings.Contains(stderr, "panic") {
		t.Errorf("diff --cache: exit %d\n%s", code, stderr)
	}
}
