//go:build linux

package runner

import (
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
	"unsafe"
)

// openPTY opens a pseudo-terminal pair: the command writes to the slave, recomp reads the
// master.
func openPTY() (master, slave *os.File, err error) {
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, nil, err
	}
	var unlock int32
	if err := ioctl(m.Fd(), syscall.TIOCSPTLCK, uintptr(unsafe.Pointer(&unlock))); err != nil {
		m.Close()
		return nil, nil, err
	}
	var n uint32
	if err := ioctl(m.Fd(), syscall.TIOCGPTN, uintptr(unsafe.Pointer(&n))); err != nil {
		m.Close()
		return nil, nil, err
	}
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		m.Close()
		return nil, nil, err
	}
	return m, s, nil
}

func ioctl(fd, req, arg uintptr) error {
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, fd, req, arg); e != 0 {
		return e
	}
	return nil
}

type winsize struct{ rows, cols, x, y uint16 }

// copyWindowSize gives the pseudo-terminal the size of the terminal recomp writes to.
func copyWindowSize(from io.Writer, to *os.File) {
	f, ok := from.(*os.File)
	if !ok {
		return
	}
	var ws winsize
	if ioctl(f.Fd(), syscall.TIOCGWINSZ, uintptr(unsafe.Pointer(&ws))) == nil && ws.cols > 0 {
		ioctl(to.Fd(), syscall.TIOCSWINSZ, uintptr(unsafe.Pointer(&ws)))
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

// IsTerminal reports whether f is a terminal.
func IsTerminal(f *os.File) bool {
	var ws winsize
	return ioctl(f.Fd(), syscall.TIOCGWINSZ, uintptr(unsafe.Pointer(&ws))) == nil
}

// growPipe asks for a 1 MiB pipe (F_SETPIPE_SZ): fewer switches between a command that prints
// fast and recomp.
func growPipe(f *os.File) {
	const setPipeSize = 1031
	syscall.Syscall(syscall.SYS_FCNTL, f.Fd(), setPipeSize, 1<<20)
}
