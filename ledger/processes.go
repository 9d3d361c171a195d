package ledger

import (
	"strconv"
	"time"

	"github.com/recomp/recomp/frameworks"
	"github.com/recomp/recomp/logscan"
)

// StageRecord is a compile stage one process reported to its framework's monitoring API (JAX's
// jax.monitoring: "trace", "lower" or "compile") with its duration, as recomp's probe records
// it: what tells apart the processes that wrote one log (ReadOptions.Stages).
type StageRecord struct {
	Stage    string
	Duration time.Duration
	PID      int
}

// Processes that write one terminal: a program that starts workers (multiprocessing's spawn,
// a DataLoader's workers, a pool) under recomp run writes all their records to one run.log,
// where JAX's lines name no process. Read as one process, the records of workers compiling at
// the same time interleave: one worker's "Finished XLA compilation" closes another's request,
// the counts drift from run to run, and every worker's first compilation of a function looks
// like a recompilation of the others'. The probe writes each compile stage JAX reports with
// its process id and its duration, and JAX prints the same duration (to the nanosecond) in
// its "Finished tracing", "Finished jaxpr to MLIR" and "Finished XLA compilation" lines: so
// those lines are each process's own, and a "Compiling" request is that of the process that
// has just traced its function. Each process is then accounted as a process of its own.

// pidRouter says which process wrote a JAX event of a run's log, from the probe's records.
type pidRouter struct {
	byStage map[probeKey][]int // a stage's duration → the processes that reported it, in order
	pids    map[int]bool       // the processes the records named
	traced  []tracedBy         // functions traced whose request has not been seen, in order
	last    string             // the process of the last JAX event routed
}

type probeKey struct {
	stage string
	ns    int64
}

type tracedBy struct {
	function string
	pid      string
}

// stageOf is the probe's name of the stage a JAX event reports with its duration.
func stageOf(ev logscan.Event) string {
	switch {
	case ev.Kind == logscan.CompileStage && (ev.Phase == "trace" || ev.Phase == "lower"):
		return ev.Phase
	case ev.Kind == logscan.RequestDone:
		return "compile"
	}
	return ""
}

// newPIDRouter returns the router of stages of more than one
// process, nil otherwise (one process: nothing to tell apart).
func newPIDRouter(recs []StageRecord) *pidRouter {
	r := &pidRouter{byStage: map[probeKey][]int{}, pids: map[int]bool{}}
	r.add(recs)
	if !r.several() {
		return nil
	}
	return r
}

// add takes more of the probe's records (a live run's, as the probe writes them).
func (r *pidRouter) add(recs []StageRecord) {
	for _, rec := range recs {
		if rec.PID == 0 || rec.Duration <= 0 {
			continue
		}
		switch rec.Stage {
		case "trace", "lower", "compile":
		default:
			continue
		}
		r.pids[rec.PID] = true
		k := probeKey{rec.Stage, int64(rec.Duration)}
		r.byStage[k] = append(r.byStage[k], rec.PID)
	}
}

// several says whether the records are of more than one process.
func (r *pidRouter) several() bool { return len(r.pids) > 1 }

// routable says whether the router needs ev's record to name its process: a JAX stage with
// its duration.
func routable(ev logscan.Event) bool {
	return stageProducers[ev.Producer] && stageOf(ev) != "" && ev.Duration > 0
}

// maxTraced bounds the traced functions waiting for their request.
const maxTraced = 256

// process names the process of ev ("pid N"), "" when the probe cannot say.
func (r *pidRouter) process(ev logscan.Event) string {
	if !stageProducers[ev.Producer] {
		return ""
	}
	if st := stageOf(ev); st != "" && ev.Duration > 0 {
		pid := r.take(st, int64(ev.Duration))
		if pid == "" {
			return ""
		}
		if st == "trace" {
			if len(r.traced) == maxTraced {
				r.traced = r.traced[1:]
			}
			r.traced = append(r.traced, tracedBy{ev.Module, pid})
		}
		r.last = pid
		return pid
	}
	if ev.Kind == logscan.CompileRequest {
		for i, t := range r.traced {
			if frameworks.SameFunction(t.function, ev.Module) {
				r.traced = append(r.traced[:i], r.traced[i+1:]...)
				r.last = t.pid
				return t.pid
			}
		}
		return r.last // a request whose trace the log does not show: the last process that reported
	}
	return ""
}

// has says whether the probe's record of a routable event is there (see take).
func (r *pidRouter) has(ev logscan.Event) bool {
	for _, d := range []int64{0, -1, 1, -2, 2} {
		if len(r.byStage[probeKey{stageOf(ev), int64(ev.Duration) + d}]) > 0 {
			return true
		}
	}
	return false
}

// take finds and uses the probe's record of a stage of duration ns (to within the rounding of
// the log's nine decimals).
func (r *pidRouter) take(stage string, ns int64) string {
	for _, d := range []int64{0, -1, 1, -2, 2} {
		k := probeKey{stage, ns + d}
		if q := r.byStage[k]; len(q) > 0 {
			r.byStage[k] = q[1:]
			return "pid " + strconv.Itoa(q[0])
		}
	}
	return ""
}
