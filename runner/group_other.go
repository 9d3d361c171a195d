//go:build !unix

package runner

import (
	"os"
	"os/exec"
)

// stopSignals: outside Unix a process can only be killed.
var stopSignals = []os.Signal{os.Kill}

func ownGroup(*exec.Cmd) {}

func signalGroup(p *os.Process, _ bool, sig os.Signal) { p.Signal(sig) }

func groupAlive(*os.Process, bool) bool { return true }
