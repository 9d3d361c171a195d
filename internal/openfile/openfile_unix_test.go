//go:build unix

package openfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// A FIFO found in a folder is refused at once (the open does not wait for a writer), a device too;
// one named on the command line is read.
func TestOpenSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "f.log")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip(err)
	}
	done := make(chan error, 1)
	go func() { _, _, err := Open(fifo, false); done <- err }()
	select {
	case err := <-done:
		if !errors.Is(err, ErrNotRegular) {
			t.Errorf("FIFO in a folder: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("opening a FIFO found in a folder waits for a writer")
	}
	if _, err := ReadCapped("/dev/zero", false, 1<<20, "a test"); !errors.Is(err, ErrNotRegular) {
		t.Errorf("/dev/zero: %v", err)
	}
	if ok, why := Regular(fifo); ok || why == "" {
		t.Errorf("Regular(fifo) = %v, %q", ok, why)
	}
	go func() {
		w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err == nil {
			w.WriteString("hello")
			w.Close()
		}
	}()
	f, _, err := Open(fifo, true)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if b, _ := io.ReadAll(f); string(b) != "hello" {
		t.Errorf("named FIFO read %q", b)
	}
}
