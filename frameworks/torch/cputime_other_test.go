//go:build !unix

package torch_test

import "time"

// cpuTime is 0 where the process's CPU time is not read: no MB per CPU second is reported.
func cpuTime() time.Duration { return 0 }
