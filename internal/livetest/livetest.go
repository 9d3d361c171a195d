// Package livetest helps the tests of what recomp says while a program runs (recomp run's
// terminal, recomp watch's lines): a buffer read while it is written, a log appended to, and
// a wait for a line to appear.
package livetest

import (
	"bytes"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

// Buffer is a buffer written by one goroutine (a watcher, a terminal) while the test reads it.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *Buffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *Buffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// AppendLog appends s to the log at path (made when missing), as a program writing it does.
func AppendLog(t testing.TB, path, s string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
	f.Close()
}

// WaitFor polls what was said until it holds want, or fails at the deadline (20 s).
func WaitFor(t testing.TB, out *Buffer, want string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !strings.Contains(out.String(), want) {
		if time.Now().After(deadline) {
			t.Fatalf("recomp did not say %q; it said:\n%s", want, out.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
}
