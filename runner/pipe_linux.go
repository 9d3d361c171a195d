package runner

import (
	"os"
	"syscall"
)

// childAttr makes the kernel kill the command when recomp ends (the parent-death signal), even
// when recomp is killed with SIGKILL and cannot pass anything on. It reaches the command itself:
// a process the command started and left running is the command's to end.
func childAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}

// growPipe asks for a 1 MiB pipe (F_SETPIPE_SZ): fewer switches between a command that prints
// fast and recomp.
func growPipe(f *os.File) {
	const setPipeSize = 1031
	syscall.Syscall(syscall.SYS_FCNTL, f.Fd(), setPipeSize, 1<<20)
}
