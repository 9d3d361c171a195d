//go:build unix

package runner

import (
	"os"
	"os/exec"
	"syscall"
)

// stopSignals are sent in turn to stop a command at a recompilation.
var stopSignals = []os.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGKILL}

// ownGroup starts the command in a process group of its own: what a stop signals is the
// command and the processes it started, never recomp or the processes beside it in a pipeline.
func ownGroup(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
}

// signalGroup sends sig to the command's process group when ownGroup gave it one (own), else
// to the command alone.
func signalGroup(p *os.Process, own bool, sig os.Signal) {
	if s, ok := sig.(syscall.Signal); ok && own && p.Pid > 0 {
		syscall.Kill(-p.Pid, s)
		return
	}
	p.Signal(sig)
}

// groupAlive says whether the command's process group (or the command) still has a process.
func groupAlive(p *os.Process, own bool) bool {
	pid := p.Pid
	if own {
		pid = -pid
	}
	return syscall.Kill(pid, 0) == nil
}
