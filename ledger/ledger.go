package ledger

import (
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/recomp/recomp/frameworks"
	"github.com/recomp/recomp/frameworks/cause"
	"github.com/recomp/recomp/logscan"
)

// Ledger accumulates the events of one process: call BeginInput, Add its events in order,
// EndInput, and Report. Several inputs fed to one Ledger are one process (a log split into
// parts); inputs that are separate processes get a Ledger each and their Reports are combined
// with Merge.
type Ledger struct {
	opt   Options
	input int
	file  string

	open, last *Unit
	units      int // units started in this input
	compiled   int // compilations of the program's own functions in this process (eager one-op programs left out)
	whys       []pendingWhy
	// traced are the facts of each function's latest trace the stack explained (at most
	// maxTracedFunctions): a retrace's words are held against them (frameworks.Against)
	traced    map[string][]cause.Fact
	traces    []pendingTrace // tracing times waiting for the compilation they led to
	marked    bool           // the warm-up marker of the current input has been seen
	loadsLate bool           // --warmup: the Warmup-th compilation has been seen

	sum          Summary
	mods         map[string]*Module
	order        []*Module
	other        *Module             // the families beyond MaxFamilies, in one account
	otherFams    map[uint64]struct{} // their names' hashes
	listed       int                 // units listed in Module.Units, all families together
	programs     map[uint64]int32    // compilations by the hash of their program
	late         []*Unit
	loads        []Load
	lateL        lateLoads // loads after warm-up
	pending      lateLoads // by default: loads after the last first compilation so far
	retraces     map[string]*retraceNote
	rorder       []*retraceNote
	reused       map[string]bool // TF auto-clustering: cluster groups that ran a compiled graph again
	files        []string
	markerWanted bool
	inputs       int
	evidence     int                     // events only per-compilation logging prints
	clusterLines int                     // TF's "Compiled cluster using XLA!" lines
	producers    []logscan.Producer      // producers of its events, in the order first seen
	tfEvidence   int                     // evidence events of TF's own (its device compiler's records)
	logged       map[string]bool         // the stacks whose evidence events the log holds
	lastLogged   logscan.Producer        // the producer of the last evidence event
	retracedBy   map[string]int          // each stack's retraces
	clusterAlone *logscan.Event          // such a line before any compilation, waiting for one
	finished     map[logscan.Signal]bool // units begun by this signal were seen to finish
	cut          *Unit                   // a compilation the log ended inside
	cutBegin     string                  // where the log ended inside a line that begins a compilation
	keyLines     []logscan.Event         // cache-key lines logged before the request they belong to
	rank         string                  // the rank a launcher's prefix gave this process ("" for none)
	pid          int                     // its process id, when a probe told the log's processes apart
	seq          *Sequence               // the process's compile requests in order (its own allocation: a report keeps it, not the Ledger)
	tick         int                     // compilations and executions so far, in order
	execs        map[string]*ran         // executions of each graph hash (PyTorch/XLA's Execution Analysis)
	reads        map[string]*HostRead    // lines that read a tensor on the host mid-step, by site
	readOrder    []*HostRead
	steps        int         // steps ended (PyTorch/XLA's executions caused by torch_xla.sync)
	onCompiled   func(*Unit) // Live's hook: each compilation once it is accounted (nil: none)
	reported     reported    // what the stack's metrics report says it compiled
	notes        []Finding   // what the process's metrics report says beyond its log
	prog         progress    // a front end's progress lines: its loops' windows (Keras)
}

// reported follows a stack's metrics report of its compilations in one process (PyTorch/XLA's
// CompileTime samples): cumulative counts, often one report per step.
type reported struct {
	reports     int // reports of the compile-time metric
	first, last int // its count in the first and the last report
	// warm is the count at the end of warm-up: the first report's, or with a warm-up marker
	// the last report's before it (warmSet).
	warm            int
	warmSet         bool
	firstAt, lastAt logscan.Event // the first report and the last where the count grew
	hits            int           // the cache-hit counter's last value
	hitsAt          logscan.Event
	hitsSeen        bool
	title           string // the stack's name
	executions      int    // the most compiled-graph runs a report counted
}

// evidenceKinds are the events a framework prints for each compilation, cache lookup, load or
// execution when its compile logging is on: without one of them a process's log cannot show
// that nothing compiled. TF's "Compiled cluster using XLA!" (once per process), a retrace or a
// metrics report are not.
var evidenceKinds = map[logscan.Kind]bool{
	logscan.CompileRequest: true, logscan.CompileEnd: true, logscan.CompileBegin: true,
	logscan.CompileFinished: true, logscan.CompileSkipped: true, logscan.CacheHit: true,
	logscan.CacheMiss: true, logscan.CacheWrite: true, logscan.ExecutableLoad: true,
	logscan.RequestDone: true, logscan.Execution: true,
}

// tfStack are the producers whose records can be those of TF's compilations: TF's device
// compiler, and on an IPU the TF-IPU backend, XLA and Poplar that compile TF's clusters (the
// stack of the once-per-process line ClusterLines counts: frameworks.OnceProducers).
var tfStack = frameworks.OnceProducers()

// stageProducers are the producers whose compile stages the probe records with their process
// (JAX's), which tell apart the processes of one log.
var stageProducers = frameworks.StageProducers()

// pendingWhy is a framework's explanation of a trace, waiting for the compilation it caused.
// A first trace explains nothing but says the function is the program's own.
type pendingWhy struct {
	function, reason string
	first, library   bool
	seenBefore       bool
	site             Site // where the program called the function, as the framework says
	// during is the compilation that was open when the explanation came (nil: none): one of
	// another function is for the compilation after it (PyTorch/XLA's graph, still open when
	// dynamo says why it compiles a function again).
	during *Unit
}

// pendingTrace is the time a framework spent tracing a function before it asked for its
// compilation (JAX logs "Finished tracing" before "Compiling").
type pendingTrace struct {
	function string
	d        time.Duration
}

// maxPendingWhys bounds the explanations kept between two compilations.
const maxPendingWhys = 16

// NewLedger returns an empty Ledger.
func NewLedger(opt Options) *Ledger {
	return &Ledger{opt: opt, mods: map[string]*Module{}, programs: map[uint64]int32{}, otherFams: map[uint64]struct{}{},
		retraces: map[string]*retraceNote{}, reused: map[string]bool{}, execs: map[string]*ran{}, reads: map[string]*HostRead{}, finished: map[logscan.Signal]bool{}, seq: &Sequence{}}
}

// BeginInput starts input number i (its index among the logs), read from file. The inputs of
// one Ledger are one process: a warm-up marker seen in one counts for those after it.
func (l *Ledger) BeginInput(i int, file string) {
	l.closeOpen()
	l.input, l.file, l.last, l.whys = i, file, nil, nil
	l.files = append(l.files, file)
	l.inputs++
}

// EndInput closes what is still open at the end of an input. markerWanted says the input was
// scanned with a marker; a process in which the marker never matched is reported.
func (l *Ledger) EndInput(markerWanted bool) {
	if u := l.open; u != nil && !u.Finished && !u.Hit && len(u.signals) > 0 && (l.finished[u.signals[0]] || showsEnd(u)) {
		// The units this message begins were seen to finish (or always show their end), but
		// this one did not: the log ends inside it.
		l.cut = u
	}
	l.closeOpen()
	l.markerWanted = l.markerWanted || markerWanted
}

// showsEnd says whether the framework of a compilation always logs its end (PopTorch's bar
// reaches 100%, XLA's alarm says how long the compilation took): one whose end is not in the
// log had not finished where the log stops.
func showsEnd(u *Unit) bool {
	_, _, ok := frameworks.Unfinished(u.Producer, u.signals[0])
	return ok
}

// Add folds one event into the ledger.
func (l *Ledger) Add(ev logscan.Event) {
	if ev.Kind == logscan.Progress {
		l.progressLine(ev) // no compile evidence: which loop the compilations around it ran in
		return
	}
	if ev.Kind != logscan.Marker {
		l.sum.Events++
		if ev.Producer != "" && (len(l.producers) == 0 || ev.Producer != l.producers[len(l.producers)-1]) && !slices.Contains(l.producers, ev.Producer) {
			l.producers = append(l.producers, ev.Producer)
		}
	}
	if evidenceKinds[ev.Kind] {
		l.evidence++
		if tfStack[ev.Producer] {
			l.tfEvidence++
		}
		if ev.Producer != l.lastLogged { // (the stack of the producer before is noted already)
			l.lastLogged = ev.Producer
			if fw := frameworks.ForProducer(ev.Producer); fw != nil && !l.logged[fw.Name] {
				if l.logged == nil {
					l.logged = map[string]bool{}
				}
				l.logged[fw.Name] = true
			}
		}
	}
	if rule, ok := joinRules[ev.Kind]; ok {
		l.join(rule, ev)
		return
	}
	switch ev.Kind {
	case logscan.ClusterCompiled:
		l.cluster(ev)
	case logscan.CacheWrite:
		l.write(ev)
	case logscan.Retrace, logscan.Trace:
		l.retrace(ev)
	case logscan.Execution:
		l.execution(ev)
	case logscan.FrameworkMetric:
		l.metric(ev)
	case logscan.CompileStage:
		l.stage(ev)
	case logscan.FrameworkWarning:
		l.noteRetrace(ev)
	case logscan.ExecutableLoad:
		l.load(ev)
	case logscan.Marker:
		l.marked = true
	case logscan.CacheKeyPart, logscan.CacheKeyFlag:
		l.cacheKey(ev)
	case logscan.CacheNotWritten, logscan.CacheReadError:
		l.cacheWords(ev)
	}
}

// maxKeyLines bounds the cache-key lines kept for one compilation; maxListedKeyParts the parts
// kept of a key a lookup's record lists whole (torch 2.9's FX-graph key has about 400).
const (
	maxKeyLines       = 64
	maxListedKeyParts = 1024
)

// cacheKey keeps a part of a cache key, or a flag hashed into it, on the compilation being
// requested (the framework logs them while it computes the key, before the lookup); a line
// printed twice (two handlers) is kept once.
func (l *Ledger) cacheKey(ev logscan.Event) {
	u := l.open
	if u == nil {
		if len(l.keyLines) < maxKeyLines {
			l.keyLines = append(l.keyLines, ev) // for the request that follows
		}
		return
	}
	addKeyLine(u, ev)
}

func addKeyLine(u *Unit, ev logscan.Event) {
	if ev.Kind == logscan.CacheKeyFlag {
		if !slices.Contains(u.KeyFlags, ev.Detail) && len(u.KeyFlags) < maxKeyLines {
			u.KeyFlags = append(u.KeyFlags, ev.Detail)
		}
		return
	}
	for _, p := range u.KeyParts {
		if p.Name == ev.Detail {
			return
		}
	}
	if len(u.KeyParts) < maxKeyLines {
		u.KeyParts = append(u.KeyParts, KeyPart{Name: ev.Detail, Hash: ev.Hash})
	}
}

// cacheWords keeps a framework's statement that it did not write an entry, or could not read
// one, on the compilation it is about: the open one, else the last. A framework says it did not
// write an entry only after compiling one (JAX: under the minimum compile time, not process 0,
// an error writing it): where no compilation of that module is in the log, the statement is
// the evidence of one, with the compile time it gives.
func (l *Ledger) cacheWords(ev logscan.Event) {
	u := l.open
	if u == nil {
		u = l.last
	}
	if ev.Kind == logscan.CacheNotWritten && (u == nil || !sameName(u, ev) || u.Hit || u.NotWritten != nil) {
		l.evidence++
		l.closeOpen()
		u = l.start(ev)
		u.Compiled, u.Finished, u.Duration = true, true, ev.Duration
		l.closeOpen()
	}
	if u == nil {
		return
	}
	q := &Quote{Producer: ev.Producer, File: ev.File, Line: ev.Line, Text: ev.Detail}
	if ev.Kind == logscan.CacheReadError {
		if u.ReadError == nil {
			u.ReadError = q
		}
		return
	}
	if u.NotWritten == nil {
		u.NotWritten = q
	}
}

// stage adds the time of a stage before the compiler's own to its compilation: lowering follows
// the request (the open unit, or the last, of its function); tracing precedes it and waits.
func (l *Ledger) stage(ev logscan.Event) {
	if ev.Phase == "lower" {
		for _, u := range []*Unit{l.open, l.last} {
			if u != nil && frameworks.SameFunction(u.Module, ev.Module) {
				u.LowerTime += ev.Duration
				if u != l.open { // already accounted
					l.sum.LowerTime += ev.Duration
					if m := l.mods[u.Family]; m != nil {
						m.LowerTime += ev.Duration
					}
				}
				return
			}
		}
		return
	}
	if len(l.traces) == maxPendingWhys {
		l.traces = l.traces[1:]
	}
	l.traces = append(l.traces, pendingTrace{function: ev.Module, d: ev.Duration})
}

// attachTrace gives a unit the tracing time of its function that came before it; traces of
// other functions (nested ones a framework traced on the way, eager operations) are dropped.
func (l *Ledger) attachTrace(u *Unit) {
	for _, t := range l.traces {
		if frameworks.SameFunction(t.function, u.Module) {
			u.TraceTime += t.d
		}
	}
	l.traces = l.traces[:0]
}

// load counts an executable load. The first load after a compilation or cache hit is that
// executable's; any other is after warm-up when the policy says so.
func (l *Ledger) load(ev logscan.Event) {
	ld := Load{Input: l.input, File: ev.File, Line: ev.Line, Duration: ev.Duration, Begin: ev.Time, DateKnown: ev.DateKnown}
	l.sum.ExecutableLoads++
	l.sum.LoadTime += ld.Duration
	owner := l.open
	if owner == nil {
		owner = l.last
	}
	switch late, maybe := l.loadPolicy(); {
	case owner != nil && !owner.ownsLoad:
		owner.ownsLoad = true
		ld.Owned = true
	case late:
		ld.AfterWarmup = true
		l.lateL.add(ld)
	case maybe:
		l.pending.add(ld)
	}
	if len(l.loads) < MaxListed {
		l.loads = append(l.loads, ld)
	}
}

// retrace counts a framework's retrace. An explained one (and a first trace) waits for the
// compilation it caused; the others become one frequent-retracing note per function.
func (l *Ledger) retrace(ev logscan.Event) {
	first := ev.Kind == logscan.Trace
	if !first {
		l.sum.Retraces++
		if fw := frameworks.ForProducer(ev.Producer); fw != nil {
			if l.retracedBy == nil {
				l.retracedBy = map[string]int{}
			}
			l.retracedBy[fw.Name]++
		}
	}
	if ev.Reason != "" || first {
		if len(l.whys) == maxPendingWhys {
			l.whys = l.whys[1:]
		}
		l.whys = append(l.whys, pendingWhy{function: ev.Module, reason: ev.Reason, first: first, library: ev.Library,
			seenBefore: ev.SeenBefore, site: ParseSite(ev.Path), during: l.open})
		return
	}
	l.noteRetrace(ev)
}

// attachWhy gives a unit the explanation of the trace that caused it: the one that names its
// function, or one that names no function. Explanations of other functions (a nested function
// traced inside this one) are dropped: they explained this trace, not a compilation. A
// function the framework explained at all is the program's own.
func (l *Ledger) attachWhy(u *Unit) {
	if len(l.whys) == 0 {
		return
	}
	later := func(w pendingWhy) bool {
		return w.during == u && w.function != "" && !frameworks.SameFunction(w.function, u.Module)
	}
	for i := len(l.whys) - 1; i >= 0; i-- {
		w := l.whys[i]
		if w.function != "" && !frameworks.SameFunction(w.function, u.Module) {
			continue
		}
		u.User = u.User || (w.function != "" && !w.library)
		u.SeenBefore = u.SeenBefore || (w.seenBefore && !w.library)
		if u.Site.File == "" {
			u.Site = w.site
		}
		now := frameworks.Facts(w.reason)
		if !w.first && w.reason != "" {
			u.explained(w.reason) // the explanation of a retrace says more than a compile record's cause
			u.Facts = frameworks.Against(l.traced[w.function], now)
		}
		if same := frameworks.SameObject(l.traced[w.function], factsOr(u.Facts, now)); same != nil && u.Why == w.reason {
			u.Facts = same // the same object traced again: not a function made anew
		}
		l.noteTraced(w.function, now)
		u.Lambda = frameworks.LambdaSite(u.Producer, w.reason) // a first trace's too
		break
	}
	keep := l.whys[:0]
	for _, w := range l.whys {
		if later(w) {
			w.during = nil
			keep = append(keep, w)
		}
	}
	l.whys = keep
}

// execution counts a framework running a graph it had compiled. TF's "Already Compiled" for
// an auto-clustered graph says the graph is in its steady state.
func (l *Ledger) execution(ev logscan.Event) {
	l.sum.Executions++
	l.tick++
	l.hostRead(ev.Producer, ev.Reason, ev.Path, ev.File, ev.Line, true)
	if r := l.execs[ev.Hash]; r != nil {
		r.n, r.last = r.n+1, l.tick
	} else if ev.Hash != "" && len(l.execs) < maxRanHashes {
		l.execs[ev.Hash] = &ran{n: 1, last: l.tick}
	}
	if g := frameworks.Group(ev.Module); g != "" {
		l.reused[g] = true
	}
}

// metric keeps the last value a framework reported for a metric (the reports are cumulative),
// and follows the counts of its compilations and cache hits from report to report.
func (l *Ledger) metric(ev logscan.Event) {
	if l.sum.Metrics == nil {
		l.sum.Metrics = map[string]Metric{}
	}
	// cumulative: a report without the time (pt-xla-profiler's warning) keeps the last one's
	l.sum.Metrics[ev.Detail] = Metric{Count: ev.Count, Total: max(ev.Duration, l.sum.Metrics[ev.Detail].Total), File: ev.File, Line: ev.Line}
	if ev.Saved > 0 { // what a hit saved (AOTAutograd's record of its hit): the hit's, the open one or the last
		for _, u := range []*Unit{l.open, l.last} {
			if u != nil && u.Hit {
				u.Saved += ev.Saved
				break
			}
		}
	}
	fw := frameworks.ForProducer(ev.Producer)
	if fw == nil {
		return
	}
	r := &l.reported
	r.title = fw.Title
	switch ev.Detail {
	case fw.CompileTimeMetric:
		if r.reports == 0 {
			r.first, r.firstAt, r.lastAt = ev.Count, ev, ev
		}
		if ev.Count > r.last || r.reports == 0 {
			r.lastAt = ev
		}
		r.last = ev.Count
		r.reports++
		if !l.marked {
			r.warm, r.warmSet = ev.Count, true
		}
	case fw.CacheHitMetric:
		r.hits, r.hitsAt, r.hitsSeen = ev.Count, ev, true
	default:
		if slices.Contains(fw.ExecuteMetrics, ev.Detail) {
			r.executions = max(r.executions, ev.Count)
		}
	}
}

// Report closes the books of this process. The Ledger must not be used afterwards.
func (l *Ledger) Report() *Report {
	l.clusterUnit()
	l.closeOpen()
	j := 0 // both lists are in input order: one merge pass marks the listed loads
	for _, ld := range l.pending.list {
		ld.AfterWarmup = true
		l.lateL.list = append(l.lateL.list, ld)
		for j < len(l.loads) && (l.loads[j].Input < ld.Input || l.loads[j].Input == ld.Input && l.loads[j].Line < ld.Line) {
			j++
		}
		if j < len(l.loads) && l.loads[j].Input == ld.Input && l.loads[j].Line == ld.Line {
			l.loads[j].AfterWarmup = true
		}
	}
	l.lateL.list = l.lateL.list[:min(len(l.lateL.list), MaxListed)]
	l.lateL.total.add(l.pending.total)
	epochs := l.settleLoops()
	l.settle()
	l.perMode()
	l.undecided()
	l.reconcile()
	l.metricTimes()
	if o := l.other; o != nil {
		l.sum.FamiliesNotListed = len(l.otherFams)
		l.sum.RequestsNotListed, l.sum.CompilationsNotListed, l.sum.RecompilationsNotListed = o.CompileRequests, o.Compilations, o.Recompilations
	}
	l.sum.LoadsAfterWarmup = l.lateL.total.LoadsAfterWarmup
	l.sum.LateLoadTime = l.lateL.total.LateLoadTime
	r := &Report{Summary: l.sum, Modules: l.order, Late: l.late, Loads: l.loads, LateLoads: l.lateL.list,
		Inputs: l.inputs, retraces: l.rorder, notes: l.notes,
		HostReads: l.hostReads()}
	if l.cut != nil {
		r.Summary.Unfinished = 1
	}
	ev := l.evidence
	if l.reported.reports > 1 {
		ev += l.reported.reports - 1 // cumulative reports show what compiled between them
	}
	p := Process{Name: strings.Join(l.files, ", "), Evidence: ev, ClusterLines: l.clusterLines, TFEvidence: l.tfEvidence,
		Compilations: l.sum.Compilations, Counted: max(l.compiled, l.reported.last), Traces: l.sum.Retraces, Cut: l.cut, CutBegin: l.cutBegin,
		Steps: l.steps, Producers: l.producers, Epochs: epochs}
	for _, m := range l.order {
		for _, u := range m.Units {
			if u.Compiled {
				p.Cost += u.Duration + u.TraceTime + u.LowerTime
			}
		}
	}
	if l.opt.Warmup > 0 && max(l.compiled, l.reported.last) < l.opt.Warmup {
		p.WarmupUnfinished = true
	}
	p.Unlogged = l.unlogged()
	r.Procs = []Process{p}
	l.seq.Process, l.seq.Rank = p.Name, l.rank
	if len(l.files) > 0 {
		l.seq.File = l.files[0]
	}
	r.Sequences = []*Sequence{l.seq}
	if l.markerWanted && !l.marked {
		r.MarkerMissing = l.files
	}
	return r
}

// metricTimes spreads the compile time a framework's metrics report (PyTorch/XLA's CompileTime)
// evenly over the compilations of a log that gave no durations of its own: per compilation it
// is an estimate, in all it is the framework's figure.
func (l *Ledger) metricTimes() {
	var ct Metric
	ok := false
	for _, fw := range frameworks.All() {
		if fw.CompileTimeMetric != "" {
			if ct, ok = l.sum.Metrics[fw.CompileTimeMetric]; ok {
				break
			}
		}
	}
	if !ok || l.sum.CompileTime != 0 || ct.Total <= 0 || l.sum.Compilations == 0 {
		return
	}
	avg := ct.Total / time.Duration(l.sum.Compilations)
	l.sum.CompileTime, l.sum.MetricCompileTime = ct.Total, true
	l.sum.LateCompileTime = avg * time.Duration(l.sum.AfterWarmup)
	for _, m := range l.order {
		m.CompileTime = avg * time.Duration(m.Compilations)
		for _, u := range m.Units {
			if u.Compiled {
				u.Duration = avg
			}
		}
	}
}

// unlogged are the stacks the log shows retracing whose compilations it holds no record of,
// by name.
func (l *Ledger) unlogged() []Unlogged {
	var out []Unlogged
	for _, name := range slices.Sorted(maps.Keys(l.retracedBy)) {
		seen := l.logged[name]
		if fw := frameworks.OncePerProcess(); fw != nil && fw.Name == name {
			seen = l.tfEvidence > 0 // its clusters compiled by the stack below it (TF-IPU's Poplar) count
		}
		if !seen {
			out = append(out, Unlogged{Stack: name, Retraces: l.retracedBy[name]})
		}
	}
	return out
}

// maxTracedFunctions bounds Ledger.traced.
const maxTracedFunctions = 4096

// noteTraced keeps the facts of a function's latest explained trace, for the retrace after it.
// factsOr is facts, else now.
func factsOr(facts, now []cause.Fact) []cause.Fact {
	if facts != nil {
		return facts
	}
	return now
}

func (l *Ledger) noteTraced(function string, facts []cause.Fact) {
	if function == "" || len(facts) == 0 {
		return
	}
	if l.traced == nil {
		l.traced = map[string][]cause.Fact{}
	}
	if _, ok := l.traced[function]; ok || len(l.traced) < maxTracedFunctions {
		l.traced[function] = facts
	}
}
