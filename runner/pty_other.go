//go:build !unix

package runner

import (
	"errors"
	"io"
	"os"
)

// openPTY: no pseudo-terminals outside Unix (Windows): the command's output goes through pipes.
func openPTY() (master, slave *os.File, err error) {
	return nil, nil, errors.New("pseudo-terminals are not supported here")
}

func copyWindowSize(io.Writer, *os.File) {}

func followWindowSize(io.Writer, *os.File, *os.Process) (stop func()) { return func() {} }

type ptyReader struct{ f *os.File }

func (r ptyReader) Read(p []byte) (int, error) { return r.f.Read(p) }
