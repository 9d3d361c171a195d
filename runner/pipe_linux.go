package runner

import (
	"os"
	"syscall"
)

// growPipe asks for a 1 MiB pipe (F_SETPIPE_SZ): fewer switches between a command that prints
// fast and recomp.
func growPipe(f *os.File) {
	const setPipeSize = 1031
	syscall.Syscall(syscall.SYS_FCNTL, f.Fd(), setPipeSize, 1<<20)
}
