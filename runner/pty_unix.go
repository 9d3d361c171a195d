//go:build unix

package runner

import (
	"errors"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"

	"github.com/creack/pty"
)

// openPTY opens a pseudo-terminal pair (creack/pty: Linux, macOS and the BSDs): the command
// writes to the slave, recomp reads the master.
func openPTY() (master, slave *os.File, err error) {
	return pty.Open()
}

// copyWindowSize gives the pseudo-terminal the size of the terminal recomp writes to; a
// terminal that reports no size (0 columns) leaves it as it is.
func copyWindowSize(from io.Writer, to *os.File) {
	f, ok := from.(*os.File)
	if !ok {
		return
	}
	if ws, err := pty.GetsizeFull(f); err == nil && ws.Cols > 0 {
		pty.Setsize(to, ws)
	}
}

// followWindowSize keeps the pseudo-terminal at the size of recomp's terminal until stop is
// called: on each SIGWINCH (the terminal was resized) it copies the new size and then sends
// SIGWINCH to the command. The kernel's own SIGWINCH for the resized pseudo-terminal reaches
// no one, since the command's controlling terminal is recomp's (so that Ctrl-C still reaches
// it); the SIGWINCH the command may get from that terminal can come before the copy, so the
// one sent here is the one that finds the new size.
func followWindowSize(from io.Writer, master *os.File, p *os.Process) (stop func()) {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGWINCH)
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-ch:
				copyWindowSize(from, master)
				p.Signal(syscall.SIGWINCH)
			case <-done:
				return
			}
		}
	}()
	return func() {
		signal.Stop(ch)
		close(done)
		wg.Wait()
	}
}

// ptyReader reads the master side: once every writer of the slave is gone, Linux answers EIO,
// which is the end of the output.
type ptyReader struct{ f *os.File }

func (r ptyReader) Read(p []byte) (int, error) {
	n, err := r.f.Read(p)
	if errors.Is(err, syscall.EIO) {
		err = io.EOF
	}
	return n, err
}
