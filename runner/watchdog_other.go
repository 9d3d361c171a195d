//go:build !linux

package runner

import "io"

// WatchdogCommand: no watchdog outside Linux.
func WatchdogCommand() []string { return nil }

// Watchdog: no watchdog outside Linux.
func Watchdog(io.Reader) int { return 0 }

type watchdog struct{}

func startWatchdog([]string) *watchdog { return nil }

func (*watchdog) arm(int, bool) {}

func (*watchdog) done() {}
