//go:build !linux

package runner

import (
	"os"
	"syscall"
)

// childAttr: no parent-death signal outside Linux.
func childAttr(bool) *syscall.SysProcAttr { return nil }

// growPipe: pipe sizes are fixed outside Linux.
func growPipe(*os.File) {}
