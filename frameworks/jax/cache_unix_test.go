//go:build unix

package jax

import (
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// An entry that is not a regular file (a FIFO named from a log's key would block) is never read.
func TestCompileTimeSkipsAFIFO(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "f-cache")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	done := make(chan error, 1)
	go func() { _, err := CompileTime(fifo); done <- err }()
	select {
	case err := <-done:
		if err == nil {
			t.Error("a FIFO read as an entry")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("reading a FIFO entry hangs")
	}
}
