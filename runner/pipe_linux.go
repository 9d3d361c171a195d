package runner

import (
	"os"
	"syscall"
)

// childAttr makes the kernel kill the command when recomp ends (the parent-death signal), even
// when recomp is killed with SIGKILL and cannot pass anything on, unless a watchdog does it
// (watched): it ends the processes the command started too, which the signal does not reach,
// and the command must still be there, their parent, when it looks for them.
func childAttr(watched bool) *syscall.SysProcAttr {
	if watched {
		return &syscall.SysProcAttr{}
	}
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}

// growPipe asks for a 1 MiB pipe (F_SETPIPE_SZ): fewer switches between a command that prints
// fast and recomp.
func growPipe(f *os.File) {
	const setPipeSize = 1031
	syscall.Syscall(syscall.SYS_FCNTL, f.Fd(), setPipeSize, 1<<20)
}
