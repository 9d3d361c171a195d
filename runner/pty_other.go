//go:build !linux

package runner

import (
	"errors"
	"io"
	"os"
)

// openPTY is not supported here: the command's output goes through pipes.
func openPTY() (master, slave *os.File, err error) {
	return nil, nil, errors.New("pseudo-terminals are supported on Linux only")
}

func copyWindowSize(io.Writer, *os.File) {}

type ptyReader struct{ f *os.File }

func (r ptyReader) Read(p []byte) (int, error) { return r.f.Read(p) }

// IsTerminal reports whether f is a character device (a terminal, on the systems recomp runs).
func IsTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

func growPipe(*os.File) {}
