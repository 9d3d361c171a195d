package ledger

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/recomp/recomp/frameworks"
	"github.com/recomp/recomp/logscan"
)

// StageRecord is a compile stage one process reported to its framework's monitoring API (JAX's
// jax.monitoring: "trace", "lower" or "compile") with its duration, as recomp's probe records
// it: what tells apart the processes that wrote one log (ReadOptions.Stages).
//
// A record of stage WorkerStage names a process instead (Name: pytest -n's worker id, gw0), which
// the report then names the process by.
type StageRecord struct {
	Stage    string
	Duration time.Duration
	PID      int
	Name     string // the function the stage is of, as the probe names it ("" when it does not)
	// Shapes are, for a trace, its arguments' dtypes and shapes as JAX's log prints them in a
	// request's signature ("float32[8,16]"); nil when the probe did not say.
	Shapes []string
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

// The lines between a process's stages carry no duration: JAX's explanation of a trace
// ("TRACING CACHE MISS", logged while the function is traced, before its "Finished tracing"),
// and its persistent cache's words on a request (the miss or hit, the entry written or not,
// the key's parts: between the request's lowering and its "Finished XLA compilation"). An
// explanation goes with the process whose probe record is the next trace of its function that
// no explanation has taken; a cache line with the process whose request of its module is open
// and has had no line of that kind; a key part with the last process routed.

// pidRouter says which process wrote a JAX event of a run's log, from the probe's records.
type pidRouter struct {
	byStage map[probeKey][]reporter // a stage's duration → the processes that reported it, in order
	pids    map[int]bool            // the processes the records named
	traced  []tracedBy              // functions traced whose request has not been seen, in order
	last    string                  // the process of the last JAX event routed
	// traces are, by function (frameworks.FunctionOf), the processes whose traces the probe
	// recorded and the log's "Finished tracing" has not shown yet, in order; explained counts the
	// first of them an explanation went to.
	traces    map[string][]int
	explained map[string]int
	open      []openRequest   // requests routed and not finished, in order
	held      []logscan.Event // cache lines waiting for the request they end (afterCompile)
}

// openRequest is a compile request of module by process pid, and the kinds of cache line it has
// had.
type openRequest struct {
	module, pid string
	had         []logscan.Kind
}

// WorkerStage is the stage of a StageRecord that names its process (the pytest plugin's worker).
const WorkerStage = "worker"

// ProcessStage is the stage of a StageRecord that says only that its process ran a stack (the
// probe recorded a trace of it, a TF function's): the processes that may have written a log.
const ProcessStage = "process"

// Processes whose compile records count their own compilations of each function (TF's "Compiled
// F 2 times": logscan.Event.Count) and name no process: pytest -n's workers each compile the
// functions of the tests they run, and their lines, untagged, interleave in one log. Read as one
// process, every worker's first compilation of a function would be another's compiled again. A
// count tells them apart: a count of 1 is a process's first compilation of the function, and a
// count of n continues the process whose last compilation of it was counted n-1. Each first
// compilation of a function after the first starts a process of its own ("process 2", "process
// 3", …, the log's own being the first), which takes the compilations that continue its count;
// so the compilations again that are counted are the ones each process counted, whichever
// process's other lines go with which. A process has one count of 1 a function at most, so no
// family is split into more processes than compiled it: what is counted again is never less
// than what was (more, when workers compiled only different functions of one family). Used only
// when the probe's records show that several processes ran a stack: a log of one process keeps
// every line in its own.

// countRouter keys compilations with counts by the process their count continues.
type countRouter struct {
	last map[string][]int // by module, the last count of each process's compilations of it
}

// counted says whether ev counts its process's compilations of its module.
func counted(ev logscan.Event) bool {
	return ev.Kind == logscan.CompileFinished && ev.Count > 0 && ev.Module != ""
}

// has says whether a compilation of module was counted.
func (c *countRouter) has(module string) bool {
	_, ok := c.last[module]
	return ok
}

// process is the process of a counted compilation: "" for the log's own, "process N" for another.
func (c *countRouter) process(ev logscan.Event) string {
	if c.last == nil {
		c.last = map[string][]int{}
	}
	slots, ok := c.last[ev.Module]
	if !ok && len(c.last) >= maxFunctions {
		return "" // (a bound on the functions followed: the rest stay the log's own)
	}
	at := -1
	if ev.Count == 1 {
		if len(slots) < maxCounted {
			at = len(slots)
			slots = append(slots, 0)
		} else {
			at = len(slots) - 1
		}
	} else {
		for i, n := range slots {
			if n == ev.Count-1 {
				at = i
				break
			}
		}
		if at < 0 { // a count whose predecessor the log did not show: the first process behind it
			for i, n := range slots {
				if n < ev.Count {
					at = i
					break
				}
			}
		}
		if at < 0 {
			at = 0
			if len(slots) == 0 {
				slots = append(slots, 0)
			}
		}
	}
	slots[at] = ev.Count
	c.last[ev.Module] = slots
	if at == 0 {
		return ""
	}
	return "process " + strconv.Itoa(at+1)
}

// processesOf says whether the probe's records are of several processes: then the processes a
// log's lines are tagged with (logscan's "pid N" rank: the probe writing a pytest session's
// run.log itself) are each a process of their own. One process's tags are dropped.
func processesOf(recs []StageRecord) bool {
	first := 0
	for _, rec := range recs {
		switch {
		case rec.PID == 0:
		case first == 0:
			first = rec.PID
		case rec.PID != first:
			return true
		}
	}
	return false
}

// namesOf are the names the records give processes besides their ids (WorkerStage), nil when none.
func namesOf(recs []StageRecord) map[int]string {
	var names map[int]string
	for _, rec := range recs {
		if rec.Stage == WorkerStage && rec.PID != 0 && rec.Name != "" && len(names) < maxOpen {
			if names == nil {
				names = map[int]string{}
			}
			names[rec.PID] = rec.Name
		}
	}
	return names
}

// maxOpen bounds the open requests the router keeps, maxHeld the cache lines it holds,
// maxFunctions the functions whose traces it follows.
const (
	maxCounted   = 256 // the processes a function's counts tell apart
	maxOpen      = 256
	maxHeld      = 256
	maxFunctions = 4096
)

// afterCompile says whether ev is a persistent cache's line written after the compiler's own
// work and before the request's "Finished XLA compilation": the entry written, or not. Two
// processes' compilations of one module end in either order, so the line is held until the
// next request of its module finishes, and goes with that request's process.
func afterCompile(ev logscan.Event) bool {
	return ev.Kind == logscan.CacheWrite || ev.Kind == logscan.CacheNotWritten
}

// route gives put ev with its process ("" when the probe cannot say) and, before ev, the lines
// it held that ev's process ends (afterCompile).
func (r *pidRouter) route(ev logscan.Event, put func(string, logscan.Event)) {
	if stageProducers[ev.Producer] && afterCompile(ev) {
		if len(r.held) == maxHeld {
			put(r.last, r.held[0])
			r.held = r.held[1:]
		}
		r.held = append(r.held, ev)
		return
	}
	p := r.process(ev)
	if p != "" && stageOf(ev) == "compile" {
		for i, h := range r.held {
			if frameworks.SameFunction(h.Module, ev.Module) {
				r.held = slices.Delete(r.held, i, i+1)
				put(p, h)
				break
			}
		}
	}
	put(p, ev)
}

// printedTwice says whether ev is one record printed a second time (two handlers), to be
// dropped: an event that repeats the one before it (logscan.Event.Repeat) and that no second
// process of the log explains (keeps). r may be nil (one process).
func (r *pidRouter) printedTwice(ev logscan.Event) bool {
	return ev.Repeat && (r == nil || ev.Rank != "" || !r.keeps(ev))
}

// keeps says whether an event that repeats the one before it (logscan.Event.Repeat) is another
// process's rather than one record printed twice: a stage the probe recorded once more with
// its duration (two processes compiling in step can take the same time, to the nanosecond the
// probe's clock gives), a request of a function another trace of which has had no request, an
// explanation of a trace none has explained, a cache's lookup line for an open request of its
// module that has had none, a cache's line after compiling while fewer are held than requests
// of its module are open. Two processes' lines alike and next to each other are common (pytest
// -n's workers set up the same fixture at once); a record printed twice within one of several
// processes may then be read as another's.
func (r *pidRouter) keeps(ev logscan.Event) bool {
	if !r.several() || !stageProducers[ev.Producer] {
		return false
	}
	if routable(ev) {
		return r.has(ev) // the probe recorded another stage of that duration (two processes in step)
	}
	switch ev.Kind {
	case logscan.CompileRequest:
		return slices.ContainsFunc(r.traced, func(t tracedBy) bool { return frameworks.SameFunction(t.function, ev.Module) })
	case logscan.Retrace, logscan.Trace:
		k := frameworks.FunctionOf(ev.Module)
		return r.explained[k] < len(r.traces[k])
	case logscan.CacheHit, logscan.CacheMiss, logscan.CacheReadError:
		return slices.ContainsFunc(r.open, func(o openRequest) bool {
			return frameworks.SameFunction(o.module, ev.Module) && !slices.Contains(o.had, ev.Kind)
		})
	case logscan.CacheWrite, logscan.CacheNotWritten:
		open, held := 0, 0
		for _, o := range r.open {
			if frameworks.SameFunction(o.module, ev.Module) {
				open++
			}
		}
		for _, h := range r.held {
			if frameworks.SameFunction(h.Module, ev.Module) {
				held++
			}
		}
		return held < open
	}
	return false
}

// flush gives put the lines still held at the end of the log, with the last process routed.
func (r *pidRouter) flush(put func(string, logscan.Event)) {
	for _, h := range r.held {
		put(r.last, h)
	}
	r.held = nil
}

type probeKey struct {
	stage string
	ns    int64
}

// reporter is the process that reported a stage, and the shapes of a trace's arguments.
type reporter struct {
	pid    int
	shapes []string
}

// tracedBy is a function a process traced, with its arguments' shapes when the probe said.
type tracedBy struct {
	function string
	pid      string
	shapes   []string
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
	r := newRouter()
	r.add(recs)
	if !r.several() {
		return nil
	}
	return r
}

func newRouter() *pidRouter {
	return &pidRouter{byStage: map[probeKey][]reporter{}, pids: map[int]bool{}, traces: map[string][]int{}, explained: map[string]int{}}
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
		r.byStage[k] = append(r.byStage[k], reporter{rec.PID, rec.Shapes})
		if k := frameworks.FunctionOf(rec.Name); rec.Stage == "trace" && k != "" && len(r.traces[k]) < maxTraced &&
			(len(r.traces) < maxFunctions || r.traces[k] != nil) {
			r.traces[k] = append(r.traces[k], rec.PID)
		}
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
		pid, shapes := r.take(st, int64(ev.Duration))
		if pid == "" {
			return ""
		}
		switch st {
		case "trace":
			if len(r.traced) == maxTraced {
				r.traced = r.traced[1:]
			}
			r.traced = append(r.traced, tracedBy{ev.Module, pid, shapes})
			r.traceShown(ev.Module, pid)
		case "compile":
			r.finished(ev.Module, pid)
		}
		r.last = pid
		return pid
	}
	switch ev.Kind {
	case logscan.CompileRequest:
		pid := r.last // a request whose trace the log does not show: the last process that reported
		if i := r.requested(ev); i >= 0 {
			pid = r.traced[i].pid
			r.traced = slices.Delete(r.traced, i, i+1)
		}
		r.last = pid
		if pid != "" {
			if len(r.open) == maxOpen {
				r.open = r.open[1:]
			}
			r.open = append(r.open, openRequest{module: ev.Module, pid: pid})
		}
		return pid
	case logscan.Retrace, logscan.Trace:
		return r.explanation(ev.Module)
	case logscan.CacheHit, logscan.CacheMiss, logscan.CacheReadError: // (afterCompile's lines are held: route)
		return r.cacheLine(ev)
	case logscan.CacheKeyPart, logscan.CacheKeyFlag:
		return r.last
	}
	return ""
}

// explanation is the process of JAX's explanation of a trace of function: the next trace of it
// the probe recorded that no explanation has taken ("" when none).
func (r *pidRouter) explanation(function string) string {
	k := frameworks.FunctionOf(function)
	if i, q := r.explained[k], r.traces[k]; i < len(q) {
		r.explained[k] = i + 1
		return "pid " + strconv.Itoa(q[i])
	}
	return ""
}

// traceShown takes the trace of function by pid (its "Finished tracing" line) off the traces
// the log has not shown.
func (r *pidRouter) traceShown(function, pid string) {
	id, err := strconv.Atoi(strings.TrimPrefix(pid, "pid "))
	if err != nil {
		return
	}
	k := frameworks.FunctionOf(function)
	q := r.traces[k]
	if i := slices.Index(q, id); i >= 0 {
		r.traces[k] = slices.Delete(q, i, i+1)
		if i < r.explained[k] {
			r.explained[k]--
		}
	}
}

// cacheLine is the process of a persistent cache's line about a request: the first open request
// of its module that has had no line of its kind, else the first open one of its module, else
// the last process routed.
func (r *pidRouter) cacheLine(ev logscan.Event) string {
	first := -1
	for i := range r.open {
		o := &r.open[i]
		if !frameworks.SameFunction(o.module, ev.Module) {
			continue
		}
		if !slices.Contains(o.had, ev.Kind) {
			o.had = append(o.had, ev.Kind)
			return o.pid
		}
		if first < 0 {
			first = i
		}
	}
	if first >= 0 {
		return r.open[first].pid
	}
	return r.last
}

// finished closes the first open request of module by pid.
func (r *pidRouter) finished(module, pid string) {
	for i, o := range r.open {
		if o.pid == pid && frameworks.SameFunction(o.module, module) {
			r.open = slices.Delete(r.open, i, i+1)
			return
		}
	}
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
// the log's nine decimals): its process, and a trace's arguments' shapes.
func (r *pidRouter) take(stage string, ns int64) (pid string, shapes []string) {
	for _, d := range []int64{0, -1, 1, -2, 2} {
		k := probeKey{stage, ns + d}
		if q := r.byStage[k]; len(q) > 0 {
			r.byStage[k] = q[1:]
			return "pid " + strconv.Itoa(q[0].pid), q[0].shapes
		}
	}
	return "", nil
}

// requested is the traced function a compile request is of (an index of traced; -1 when none):
// of the traces of its function, the first whose arguments' shapes the request's signature
// holds in order, else the first. Two processes that trace one function at the same moment
// print their requests in either order; the shapes tell them apart.
func (r *pidRouter) requested(ev logscan.Event) int {
	first := -1
	var sig []string
	for i, t := range r.traced {
		if !frameworks.SameFunction(t.function, ev.Module) {
			continue
		}
		if first < 0 {
			first = i
		}
		if len(t.shapes) == 0 {
			continue
		}
		if sig == nil {
			sig = frameworks.SignatureArrays(ev.Producer, ev.Signature)
		}
		if holdsInOrder(sig, t.shapes) {
			return i
		}
	}
	return first
}

// holdsInOrder says whether every one of want is in have, in order (a subsequence): the probe
// lists the arrays, the signature also Python scalars and what JAX made of them.
func holdsInOrder(have, want []string) bool {
	i := 0
	for _, h := range have {
		if i < len(want) && h == want[i] {
			i++
		}
	}
	return i == len(want)
}
