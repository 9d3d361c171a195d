//go:build unix

package openfile

import "syscall"

// nonBlock opens a FIFO without waiting for a writer.
const nonBlock = syscall.O_NONBLOCK
