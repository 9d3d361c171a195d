//go:build unix

package torch_test

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time the process has used (user and system), for a benchmark's MB per
// CPU second: on a machine other processes load, wall time says more about them than about
// the code.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
