// Package gctune sets the garbage collector's GOGC while a command reads, from the heap that is
// live, so that the heap's goal stays under a bound (recomp scan's: ScanHeapGoal), and recomp's
// soft memory limit (Limit).
package gctune

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync/atomic"
)

// ScanHeapGoal is the heap recomp scan lets the garbage collector grow to before it collects,
// while what is live is small. Reading a log allocates mostly short-lived garbage (a unit per
// compile request, of which a bounded number stay listed) on top of a live heap that grows
// slowly to a few tens of MB; with the default GOGC of 100 the collector runs each time the
// heap doubles, and on a log dense in compile records (1 line in 20) its cycles, and the
// preemptions they need, cost about a fifth of scan's CPU and hold up the read-ahead pipeline
// (8 cycles on recomp-bench's 200 MB dense log; 4 with this). A fixed higher GOGC trades that
// for peak memory without a bound (GOGC=400: 73 MB peak RSS on that log, over the 64 MiB
// scan is held to); Tune raises GOGC only as far as keeps the heap's goal under this, never
// below the default, so a large live heap is collected as it is by default (45 MB peak RSS
// on that log, 42 MB with GOGC=100).
const ScanHeapGoal = 32 << 20

// The range Tune keeps GOGC in.
const (
	minGCPercent = 100
	maxGCPercent = 400
)

// gcPercent is the GOGC that makes the heap's goal (live × (1 + GOGC/100)) goal, kept within
// [minGCPercent, maxGCPercent].
func gcPercent(live, goal uint64) int {
	if live == 0 || live*(1+maxGCPercent/100) <= goal {
		return maxGCPercent
	}
	if live*(1+minGCPercent/100) >= goal {
		return minGCPercent
	}
	return int((goal - live) * 100 / live)
}

// gcSentinel is the object whose collection tells Tune that a cycle ended (it holds a
// pointer, so it is never one of the runtime's tiny allocations, which are collected
// together).
type gcSentinel struct {
	_ *byte
	_ [8]byte
}

// tuning is set while a Tune is at work: one at a time (commands run side by side in one
// process, as the tests run them, would otherwise restore each other's GOGC out of order).
var tuning atomic.Bool

// Tune sets GOGC after every collection from the heap that is live, so that the next goal is
// goal (gcPercent), until the function it returns is called; that restores the GOGC it found.
// It does nothing when GOGC is set in the environment (the user's setting stands) or while
// another Tune is at work.
func Tune(goal uint64) (stop func()) {
	if os.Getenv("GOGC") != "" || !tuning.CompareAndSwap(false, true) {
		return func() {}
	}
	var stopped atomic.Bool
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	old := debug.SetGCPercent(maxGCPercent)
	var arm func()
	arm = func() {
		runtime.AddCleanup(new(gcSentinel), func(struct{}) {
			if stopped.Load() {
				return
			}
			metrics.Read(sample)
			if sample[0].Value.Kind() == metrics.KindUint64 {
				debug.SetGCPercent(gcPercent(sample[0].Value.Uint64(), goal))
			}
			arm()
		}, struct{}{})
	}
	arm()
	return func() {
		if stopped.Swap(true) {
			return
		}
		debug.SetGCPercent(old)
		tuning.Store(false)
	}
}

// MemoryLimit is the soft limit Limit gives the Go runtime: the garbage collector collects as
// the heap nears it rather than letting the heap grow to twice what is live. What recomp holds
// is bounded on its own (see docs/performance.md); this keeps the garbage of reading 100 000
// modules from doubling the peak.
const MemoryLimit = 192 << 20

// Limit sets MemoryLimit as the runtime's soft memory limit, unless GOMEMLIMIT sets one.
func Limit() {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(MemoryLimit)
	}
}
