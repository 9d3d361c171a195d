//go:build unix

package main

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/creack/pty"
	"github.com/recomp/recomp/internal/livetest"
)

// inTerminal runs the recomp binary (the test binary, as TestMain makes it) with args in a
// terminal of 30 rows and 100 columns, as a user does, with env added to its environment: its
// exit code and what the terminal shows, each "\r\n" a terminal writes for "\n" made "\n" again.
func inTerminal(t *testing.T, timeout time.Duration, env []string, args ...string) (int, string) {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "recomp")
	if err := os.Symlink(os.Args[0], bin); err != nil {
		t.Skip(err)
	}
	master, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	defer master.Close()
	if err := pty.Setsize(master, &pty.Winsize{Rows: 30, Cols: 100}); err != nil {
		t.Fatal(err)
	}
	var screen livetest.Buffer
	copied := make(chan struct{})
	go func() { io.Copy(&screen, master); close(copied) }()
	cmd := exec.Command(bin, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
	cmd.Env = append(append(os.Environ(), "TERM=xterm", "NO_COLOR=1"), env...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	tty.Close() // the child has it
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(timeout):
		cmd.Process.Kill()
		t.Fatalf("recomp did not end; the terminal shows:\n%s", screen.String())
	}
	select {
	case <-copied:
	case <-time.After(5 * time.Second):
	}
	// Each terminal's output processing turns \n into \r\n: the command's pseudo-terminal and
	// this one.
	return cmd.ProcessState.ExitCode(), regexp.MustCompile(`\r+\n`).ReplaceAllString(screen.String(), "\n")
}
