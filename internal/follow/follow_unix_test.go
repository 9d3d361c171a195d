//go:build unix

package follow

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A named pipe in a followed folder is left out (listing skips what is not a regular file), and
// one put where a followed file's name was is refused with a warning: neither blocks a Poll.
func TestFollowSkipsFIFOs(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe.log"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	appendTo(t, filepath.Join(dir, "a.log"), "a\n")
	fl, err := New([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	defer fl.Close()
	expect(t, "folder", poll(t, fl), "a.log||a\n")

	named := filepath.Join(t.TempDir(), "app.log")
	fl2, err := New([]string{named})
	if err != nil {
		t.Fatal(err)
	}
	defer fl2.Close()
	if err := syscall.Mkfifo(named, 0o644); err != nil {
		t.Fatal(err)
	}
	chunks, warnings := fl2.Poll()
	if len(chunks) != 0 || len(warnings) != 1 || !strings.Contains(warnings[0], "not a regular file (named pipe)") {
		t.Errorf("chunks %v, warnings %v", chunks, warnings)
	}
}
