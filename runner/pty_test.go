//go:build unix

package runner

import (
	"bytes"
	"io"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
	"github.com/recomp/recomp/internal/livetest"
)

// recompsTerminal opens a pseudo-terminal of the given size to stand for the terminal recomp
// writes to: the test writes to tty and reads what arrived on it from the returned buffer.
func recompsTerminal(t *testing.T, rows, cols uint16) (master, tty *os.File, screen *livetest.Buffer) {
	t.Helper()
	master, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	t.Cleanup(func() { master.Close(); tty.Close() })
	if err := pty.Setsize(master, &pty.Winsize{Rows: rows, Cols: cols}); err != nil {
		t.Fatal(err)
	}
	screen = &livetest.Buffer{}
	go io.Copy(screen, master)
	return master, tty, screen
}

// The command's pseudo-terminal has the size of recomp's terminal when it starts, and the new
// size after recomp's terminal is resized (SIGWINCH): the command is told (its WINCH trap runs)
// and `stty size` on its output then reads the new size.
func TestWindowSizeFollowsRecompsTerminal(t *testing.T) {
	master, tty, screen := recompsTerminal(t, 41, 113)
	var log livetest.Buffer
	script := `stty size <&1; trap 'stty size <&1; exit 0' WINCH; echo ready; i=0
while [ $i -lt 200 ]; do sleep 0.05; i=$((i+1)); done; echo no SIGWINCH; exit 9`
	done := make(chan *Result)
	go func() {
		res, err := Run(Options{Command: []string{"sh", "-c", script}, Stdout: tty, Stderr: tty, Terminal: true, Log: &log})
		if err != nil {
			t.Error(err)
		}
		done <- res
	}()
	for i := 0; !strings.Contains(screen.String(), "ready"); i++ {
		if i > 2000 { // 20 s: a loaded machine is slow
			t.Fatalf("the command did not start: recomp's terminal shows %q", screen.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := pty.Setsize(master, &pty.Winsize{Rows: 50, Cols: 132}); err != nil {
		t.Fatal(err)
	}
	// A terminal that is resized sends SIGWINCH to its foreground processes: recomp is one.
	syscall.Kill(os.Getpid(), syscall.SIGWINCH)
	var res *Result
	select {
	case res = <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("the command did not end")
	}
	var sizes []string // the log's lines end in \r\n: the pseudo-terminal's output processing
	for _, l := range strings.Split(strings.TrimSpace(log.String()), "\n") {
		if _, text, _ := strings.Cut(l, " "); !strings.Contains(text, "ready") {
			sizes = append(sizes, strings.TrimSpace(text))
		}
	}
	if res.ExitCode != 0 || strings.Join(sizes, "|") != "41 113|50 132" {
		t.Errorf("exit %d; the command saw sizes %q, want 41 113 then 50 132; log %q", res.ExitCode, sizes, log.String())
	}
	for i := 0; !strings.Contains(screen.String(), "50 132"); i++ {
		if i > 2000 { // 20 s: a loaded machine is slow
			t.Fatalf("recomp's terminal shows %q", screen.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// A terminal recomp writes to that reports no size leaves the command's at the system's
// default, and no resize is sent to a command that ran without a pseudo-terminal.
func TestWindowSizeWithoutATerminal(t *testing.T) {
	_, tty, _ := recompsTerminal(t, 0, 0)
	var log livetest.Buffer
	if _, err := Run(Options{Command: []string{"sh", "-c", "stty size <&1"}, Stdout: tty, Stderr: tty, Terminal: true, Log: &log}); err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(log.String(), " 0 0\r\n") {
		t.Errorf("log %q, want the size 0 0", log.String())
	}
	var out bytes.Buffer
	res, err := Run(Options{Command: []string{"sh", "-c", "if [ -t 1 ]; then echo tty; else echo notty; fi"}, Stdout: &out, Stderr: &out, Terminal: true, Log: io.Discard})
	if err != nil || res.ExitCode != 0 || out.String() != "tty\n" && out.String() != "tty\r\n" {
		t.Errorf("a terminal for a command whose output is a buffer: %v %q", err, out.String())
	}
}
