package livetest

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// A line written by another goroutine is waited for; AppendLog appends.
func TestWaitFor(t *testing.T) {
	var b Buffer
	go func() {
		time.Sleep(10 * time.Millisecond)
		b.Write([]byte("compiled again\n"))
	}()
	WaitFor(t, &b, "compiled again")
	p := filepath.Join(t.TempDir(), "train.log")
	AppendLog(t, p, "a\n")
	AppendLog(t, p, "b\n")
	if got, err := os.ReadFile(p); err != nil || string(got) != "a\nb\n" {
		t.Errorf("%q, %v", got, err)
	}
}
