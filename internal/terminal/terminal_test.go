//go:build unix

package terminal

import (
	"os"
	"testing"

	"github.com/creack/pty"
)

// Is: a terminal is one, a pipe, a file and /dev/null are not; Color and Width follow it.
func TestIs(t *testing.T) {
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	defer ptmx.Close()
	defer tty.Close()
	if err := pty.Setsize(ptmx, &pty.Winsize{Rows: 24, Cols: 91}); err != nil {
		t.Fatal(err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	null, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	f, err := os.CreateTemp(t.TempDir(), "file")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if !Is(tty) || Is(w) || Is(null) || Is(f) {
		t.Errorf("terminal %v, pipe %v, /dev/null %v, file %v", Is(tty), Is(w), Is(null), Is(f))
	}
	if Width(tty) != 91 || Width(w) != 0 || Width(null) != 0 {
		t.Errorf("widths: terminal %d, pipe %d, /dev/null %d", Width(tty), Width(w), Width(null))
	}
	t.Setenv("NO_COLOR", "")
	if !Color(tty) || Color(w) {
		t.Errorf("an empty NO_COLOR: terminal coloured %v, pipe %v", Color(tty), Color(w))
	}
	t.Setenv("NO_COLOR", "1")
	if Color(tty) {
		t.Error("NO_COLOR=1: the terminal is still coloured")
	}
}
