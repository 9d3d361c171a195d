package ledger

import (
	"bytes"
	"cmp"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/recomp/recomp/frameworks"
	"github.com/recomp/recomp/internal/input"
	"github.com/recomp/recomp/internal/lazyre"
	"github.com/recomp/recomp/internal/option"
	"github.com/recomp/recomp/logscan"
)

// MaxEvents is how many events a Scan keeps for listing unless all are asked for.
const MaxEvents = 1000

// Log is one log to read.
type Log struct {
	// Path names the log: a file (gzip is read transparently), "-" for ReadOptions.Stdin, or
	// a run folder of recomp run, whose run.log is read.
	Path string
	// Reader, when set, is read instead of opening Path; Path still names the log.
	Reader io.Reader
	// Supplement are events of the log's process recorded elsewhere (recomp run's probe saw
	// compilations the log has no line of), in time order: each goes into the process's ledger
	// before the first event of the log that is dated later, those after the log's last dated
	// event at its end. Ignored when the log's lines are told apart as several processes.
	Supplement []logscan.Event
	// Until, when above 0, is the last line read: what follows is not evidence (a run recomp
	// stopped: the command's answer to the stop, runfolder.Manifest.StoppedLine).
	Until int64
	// Traces are trace files of the log's process (a run folder's: TraceFiles), read first and
	// joined to the log: a compilation both record is counted once (trace.go). A run folder
	// given as Path brings its own.
	Traces []string
}

// Files are the logs at paths.
func Files(paths []string) []Log {
	out := make([]Log, len(paths))
	for i, p := range paths {
		out[i] = Log{Path: p}
	}
	return out
}

// ReadOptions say how ReadLogs reads logs.
type ReadOptions struct {
	// Ledger is the warm-up policy; its AfterMarker is set when Marker is.
	Ledger Options
	// Marker, when set, is the warm-up boundary (--after): what follows its first match in
	// each process is after warm-up. The caller compiles it once.
	Marker *logscan.LineRegexp
	// SameProcess says the logs are parts of one process's log, read in order.
	SameProcess bool
	// AllEvents keeps every event, not the first MaxEvents (all are counted either way).
	AllEvents bool
	// Stages, when they are of several processes (recomp run's probe saw workers the command
	// started compile), tell apart the processes that wrote each log: each becomes a process
	// of its own, as a launcher's ranks are (see StageRecord).
	Stages []StageRecord
	// Stdin is read for the path "-".
	Stdin io.Reader
	// Log takes diagnostics (nil: none).
	Log hclog.Logger
}

// ReadSettings are ReadOptions' warm-up and listing as a user gives them: plain values that
// Options checks.
type ReadSettings struct {
	Warmup      int    // the first N compilations of each process are warm-up
	After       string // everything after the first line matching this expression is after warm-up
	SameProcess bool
	AllEvents   bool
}

// Options checks the settings and gives the options they make (the marker compiled).
func (s ReadSettings) Options() (ReadOptions, error) {
	if s.Warmup < 0 {
		return ReadOptions{}, option.New([]string{"warmup"}, "%[1]s %[2]d: want a number >= 0", s.Warmup)
	}
	if s.Warmup > 0 && s.After != "" {
		return ReadOptions{}, option.New([]string{"warmup", "after"}, "%[1]s and %[2]s are exclusive: choose one warm-up boundary")
	}
	opt := ReadOptions{Ledger: Options{Warmup: s.Warmup}, SameProcess: s.SameProcess, AllEvents: s.AllEvents}
	if s.After == "" {
		return opt, nil
	}
	re, err := logscan.NewLineRegexp(s.After)
	if err != nil {
		return opt, option.New([]string{"after"}, "%[1]s: %[2]v", err)
	}
	opt.Marker = re
	return opt, nil
}

// Input is one log that was read.
type Input struct {
	Path         string
	Lines        int
	Bytes        int64
	Events       int
	WarningCount int
	Warnings     []logscan.Warning
	// ReadError says why the input could not be read to the end; what was read is counted.
	ReadError string
	// Binary says why the input is not a text log ("" for a text log).
	Binary string
	// CutBegin says the input ends inside a line that begins a compilation ("" when not).
	CutBegin string
	// Incomplete says why the input does not hold the whole run ("" when nothing says so):
	// the caller knows it (a run folder's manifest says the run was cut).
	Incomplete string
	// Unread counts the lines that look like compile records recomp could not read;
	// UnreadLines are the first logscan.MaxUnread.
	Unread      int
	UnreadLines []logscan.UnreadLine
	// Traces are the trace files read with it and joined to it (Log.Traces), each with what was
	// read of it.
	Traces []TraceInput
}

// TraceInput is a trace file read with a log: its path, and the lines, bytes and events read.
type TraceInput struct {
	Path   string
	Lines  int
	Bytes  int64
	Events int
}

// Scan is what ReadLogs made of some logs: each input, the merged report of their processes,
// and their events.
type Scan struct {
	Inputs []Input
	Ledger *Report
	// Events are the first MaxEvents events in input order (all of them when Full);
	// EventCount counts them all.
	Events     []logscan.Event
	EventCount int
	Full       bool
	// SameProcess says the inputs were read as one process's log.
	SameProcess bool
	// Rotated says, for inputs read as processes of their own, which look like one log
	// rotated (train.log and train.log.1): one process's log, each part judged as a process
	// of its own, so that a recompilation across the parts is seen by neither.
	Rotated []string
	// Parts are the inputs each message of Rotated names (in the order given; parts found by
	// their records, oldest first): the paths of one process's log read as several.
	Parts [][]string
}

// ReadErrors lists the inputs that could not be read to the end, each as "path: why".
func (s *Scan) ReadErrors() []string {
	var out []string
	for _, in := range s.Inputs {
		if in.ReadError != "" {
			out = append(out, in.Path+": "+in.ReadError)
		}
	}
	return out
}

// ReadLogs reads logs into one Scan. Each log is its own process (ranks a launcher interleaved
// in one log are processes of their own), and the logs are read in parallel, at most
// GOMAXPROCS at a time; with SameProcess they are read in order as one process (one per rank).
// Memory does not grow with the logs: events go into the ledgers as they are read, and only
// the first MaxEvents are kept for listing. The error names the first log that could not be
// opened; a log that breaks off part-way is read up to there and says so (Input.ReadError).
func ReadLogs(logs []Log, opt ReadOptions) (*Scan, error) {
	var paths []string // the logs to open
	for _, l := range logs {
		if l.Reader == nil {
			paths = append(paths, l.Path)
		}
	}
	if err := input.CheckStdin(paths); err != nil {
		return nil, err
	}
	if opt.Log == nil {
		opt.Log = hclog.NewNullLogger()
	}
	opt.Ledger.AfterMarker = opt.Marker != nil
	var in []Log
	for _, l := range logs {
		if l.Reader == nil {
			if len(l.Traces) == 0 {
				l.Traces = runTraces(l.Path)
			}
			l.Path = input.RunLog(l.Path)
			if files := traceFolder(l.Path); files != nil {
				for _, f := range files {
					in = append(in, Log{Path: f})
				}
				continue
			}
		}
		in = append(in, l)
	}
	logs = in
	start := time.Now()
	out := make([]scanned, len(logs))
	if opt.SameProcess {
		ps := newProcesses(opt.Ledger)
		ps.intern = newInterner()
		for i, l := range logs {
			out[i] = readOne(i, l, opt, ps, nil)
		}
		m := newOrderedMerge(opt.Ledger)
		m.done(0, ps.reports())
		return assemble(out, m, opt, start)
	}
	// GOMAXPROCS workers take the logs in input order, so that they finish nearly in order: a
	// log's reports are merged (and dropped) once the logs before it are, and memory holds the
	// reports of the few logs read ahead, however many logs there are.
	var wg sync.WaitGroup
	kept := newKeptEvents(len(logs), opt.AllEvents)
	merged := newOrderedMerge(opt.Ledger)
	intern := newInterner()
	next := make(chan int)
	for range min(runtime.GOMAXPROCS(0), len(logs)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				ps := newProcesses(opt.Ledger)
				ps.intern = intern
				out[i] = readOne(i, logs[i], opt, ps, kept)
				kept.done(i, out)
				merged.done(i, ps.reports())
			}
		}()
	}
	for i := range logs {
		next <- i
	}
	close(next)
	wg.Wait()
	return assemble(out, merged, opt, start)
}

// orderedMerge merges the reports of logs read in parallel in input order, each as soon as the
// logs before it are merged, and drops it: memory holds the reports of the logs read ahead, not
// of all logs.
type orderedMerge struct {
	mu      sync.Mutex
	m       *merger
	pending map[int][]*Report
	next    int
}

func newOrderedMerge(opt Options) *orderedMerge {
	return &orderedMerge{m: newMerger(opt), pending: map[int][]*Report{}}
}

func (o *orderedMerge) done(i int, reps []*Report) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.pending[i] = reps
	for {
		rs, ok := o.pending[o.next]
		if !ok {
			return
		}
		delete(o.pending, o.next)
		o.m.mergeLog(rs)
		o.next++
	}
}

// scanned is one log after reading: its events went into a ledger per process as they were
// read.
type scanned struct {
	input  Input
	stats  logscan.Stats   // the scanner's, for the threads and times of its records
	events []logscan.Event // the first ones, for listing
	count  int
	err    error // the log could not be opened
}

func assemble(out []scanned, merged *orderedMerge, opt ReadOptions, start time.Time) (*Scan, error) {
	for _, s := range out {
		if s.err != nil {
			return nil, s.err
		}
	}
	rs := &Scan{Ledger: merged.m.finish(), SameProcess: opt.SameProcess, Full: opt.AllEvents}
	for _, s := range out {
		rs.Inputs = append(rs.Inputs, s.input)
		rs.EventCount += s.count
		if opt.AllEvents || len(rs.Events) < MaxEvents {
			rs.Events = append(rs.Events, s.events...)
		}
	}
	if !opt.AllEvents && len(rs.Events) > MaxEvents {
		rs.Events = rs.Events[:MaxEvents]
	}
	if !opt.SameProcess {
		rs.Rotated, rs.Parts = rotated(rs.Inputs, "read as processes of their own, a compilation in one part is not held against the others; give them with --same-process, oldest first")
		for _, c := range continued(out) {
			if !slices.ContainsFunc(rs.Parts, func(g []string) bool { return slices.Contains(g, c.a) && slices.Contains(g, c.b) }) {
				rs.Rotated = append(rs.Rotated, c.msg) // not already named as rotated
				rs.Parts = append(rs.Parts, []string{c.a, c.b})
			}
		}
		for _, msg := range rs.Rotated {
			for i := range rs.Inputs {
				if in := &rs.Inputs[i]; strings.HasPrefix(msg, in.Path+", ") {
					in.WarningCount++
					in.Warnings = append(in.Warnings, logscan.Warning{File: in.Path, Message: msg})
					break
				}
			}
		}
	}
	opt.Log.Debug("scanned", "inputs", len(out), "processes", rs.Ledger.Processes, "events", rs.EventCount,
		"compilations", rs.Ledger.Summary.Compilations, "elapsed", time.Since(start))
	return rs, nil
}

// keptEvents bounds the events logs read in parallel keep for listing: only the first
// MaxEvents in input order are listed, so once the logs before log k are read and hold that
// many, the logs after k keep none (and those already read drop theirs). Memory then does not
// grow with the number of logs.
type keptEvents struct {
	mu     sync.Mutex
	all    bool
	read   []bool
	counts []int
	cut    atomic.Int64 // logs after this index keep no events
}

func newKeptEvents(n int, all bool) *keptEvents {
	k := &keptEvents{all: all, read: make([]bool, n), counts: make([]int, n)}
	k.cut.Store(math.MaxInt64)
	return k
}

// wants says whether log i still keeps events.
func (k *keptEvents) wants(i int) bool { return k == nil || k.all || int64(i) <= k.cut.Load() }

// done records that log i was read, moves the cut when a prefix of read logs holds MaxEvents
// events, and drops the events of the logs after it.
func (k *keptEvents) done(i int, out []scanned) {
	if k.all {
		return
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if int64(i) > k.cut.Load() {
		out[i].events = nil // read while the cut moved before it
	}
	k.read[i], k.counts[i] = true, len(out[i].events)
	sum := 0
	for j := range k.read {
		if !k.read[j] {
			return
		}
		if sum += k.counts[j]; sum >= MaxEvents {
			if int64(j) < k.cut.Load() {
				k.cut.Store(int64(j))
				for m := j + 1; m < len(out); m++ {
					if k.read[m] {
						out[m].events = nil
					}
				}
			}
			return
		}
	}
}

// openLog opens a log to read (its Reader when it has one), cut at its Until line.
func openLog(l Log, opt ReadOptions) (r io.Reader, closeLog func(), err error) {
	r, closeLog = l.Reader, func() {}
	if r == nil {
		f, err := input.OpenLog(l.Path, opt.Stdin)
		if err != nil {
			return nil, nil, err
		}
		if st := f.Info; st != nil {
			opt.Log.Trace("reading", "input", l.Path, "bytes", st.Size(), "mode", st.Mode().String())
		}
		r, closeLog = f, func() { f.Close() }
	}
	if l.Until > 0 {
		r = &untilLine{r: r, left: l.Until}
	}
	return r, closeLog, nil
}

// readOne reads log i into the ledgers of its processes, keeping its first MaxEvents events
// (all with AllEvents; none once the logs before it hold MaxEvents).
func readOne(i int, l Log, opt ReadOptions, ps *processes, kept *keptEvents) scanned {
	start := time.Now()
	path, name := l.Path, l.Path
	if path == input.Stdin && l.Reader == nil {
		name = "<stdin>"
	}
	res := scanned{input: Input{Path: path}}
	r, closeLog, err := openLog(l, opt)
	if err != nil {
		res.err = err
		return res
	}
	defer closeLog()
	// With more than one CPU, the scanner reads and prefilters ahead of its parsing, and the
	// ledgers take its events in a goroutine of their own (eachEvent).
	router := newPIDRouter(opt.Stages) // nil unless they are of several processes
	tagged := processesOf(opt.Stages)  // the probe's pid tags name processes (several)
	keys := &keying{router: router, tagged: tagged}
	ps.names = namesOf(opt.Stages)
	s := logscan.NewScanner(r, name, logscan.Options{Marker: opt.Marker, Grammar: grammarOf(path), ReadAhead: runtime.GOMAXPROCS(0) > 1,
		KeepRepeats: router != nil})
	defer s.Close()
	ps.ledger("", i, name) // the log's own process, even when every line carries a rank
	ps.events[""]--
	tracing := opt.Log.IsTrace() // (its arguments cost an allocation per event, logged or not)
	sup := supplement{evs: l.Supplement, add: func(ev logscan.Event) {
		ps.ledger("", i, name).Add(ev)
		res.count++
		if opt.AllEvents || len(res.events) < MaxEvents && kept.wants(i) {
			res.events = append(res.events, ev)
		}
	}}
	if router != nil {
		sup.evs = nil // whose process each is cannot be told
	}
	put := func(key string, ev logscan.Event) {
		if router != nil && key != "" && ev.Rank == "" {
			ps.routed = true
		}
		ps.ledger(key, i, name).Add(ev)
		res.count++
		if opt.AllEvents || len(res.events) < MaxEvents && kept.wants(i) {
			res.events = append(res.events, ev)
		}
		if tracing {
			opt.Log.Trace("event", "file", ev.File, "line", ev.Line, "kind", ev.Kind, "producer", ev.Producer, "module", ev.Module, "rank", key)
		}
	}
	add := func(ev logscan.Event) {
		if ev.Kind == logscan.PhaseStart || ev.Kind == logscan.PhaseEnd {
			return // counted nowhere
		}
		if !tagged && strings.HasPrefix(ev.Rank, "pid ") {
			ev.Rank = "" // one process's log: its tags name no other
		}
		if router.printedTwice(ev) {
			return // a record printed twice
		}
		sup.before(ev)
		keys.give(ev, put)
	}
	join := readTraces(l.Traces, opt)
	eachEvent(s, join.through(add))
	join.rest(add)
	if router != nil {
		router.flush(put)
	}
	sup.rest()
	st := s.Stats()
	res.stats = st
	if st.CutBegin != "" {
		ps.byRank[""].cutBegin = st.CutBegin // the log's own process (every line's rank or none)
	}
	ps.endInput(i, opt.Marker != nil)
	res.input.Lines, res.input.Bytes, res.input.Events = st.Lines, st.Bytes, res.count
	res.input.WarningCount, res.input.Warnings, res.input.Binary = st.WarningCount, st.Warnings, st.Binary
	join.warn(&res.input)
	res.input.Traces = join.inputs()
	res.input.CutBegin = st.CutBegin
	res.input.Unread, res.input.UnreadLines = st.Unread, st.UnreadLines
	ps.addUnread(name, st)
	if err := s.Err(); err != nil {
		// A read error part-way (a truncated .gz, an I/O error): what was read is counted, and
		// the input says it is incomplete.
		res.input.ReadError = fmt.Sprintf("read error after line %d, the result covers the input up to there: %v", st.Lines, err)
		res.input.WarningCount++
		res.input.Warnings = append(res.input.Warnings, logscan.Warning{File: name, Line: st.Lines, Message: res.input.ReadError})
	}
	opt.Log.Debug("scanned input", "input", path, "lines", st.Lines, "bytes", st.Bytes, "events", res.count,
		"warnings", st.WarningCount, "elapsed", time.Since(start))
	return res
}

// supplement adds a log's Supplement to the log's own process, in time order with its events.
type supplement struct {
	evs []logscan.Event
	add func(logscan.Event)
}

// before adds the events dated before ev, a dated event of the log's own process.
func (s *supplement) before(ev logscan.Event) {
	for len(s.evs) > 0 && ev.DateKnown && ev.Rank == "" && s.evs[0].Time.Before(ev.Time) {
		s.add(s.evs[0])
		s.evs = s.evs[1:]
	}
}

// rest adds the events left at the log's end.
func (s *supplement) rest() {
	for _, ev := range s.evs {
		s.add(ev)
	}
	s.evs = nil
}

// eventBatch is how many events the scanner hands the ledgers at a time.
const eventBatch = 256

// eachEvent calls f with each event s reads, in order. With more than one CPU the scanner reads
// ahead in a goroutine of its own and hands its events over in batches, so that the ledgers'
// work on one batch overlaps the scanning of the next; f sees the same events in the same
// order either way. A panic in either goroutine is raised in the caller's.
func eachEvent(s *logscan.Scanner, f func(logscan.Event)) {
	if runtime.GOMAXPROCS(0) < 2 {
		for s.Scan() {
			f(s.Event())
		}
		return
	}
	// The batches are made as the log needs them, and grow as append grows them: a log of a
	// dozen events (a pytest session's) never allocates three batches of 256 events (600 KB,
	// each page of it a page fault of a command that lives a few milliseconds).
	const batches = 3
	full := make(chan []logscan.Event, batches)
	free := make(chan []logscan.Event, batches)
	stop := make(chan struct{})
	var failed any
	go func() {
		defer close(full)
		defer func() { failed = recover() }()
		var b []logscan.Event
		made := 1
		for s.Scan() {
			if b = append(b, s.Event()); len(b) < eventBatch {
				continue
			}
			full <- b // never blocks: full holds every batch there is
			if made < batches {
				b, made = nil, made+1
				continue
			}
			select {
			case b = <-free:
			case <-stop:
				return
			}
		}
		if len(b) > 0 {
			full <- b
		}
	}()
	defer func() {
		close(stop)
		for range full { // the scanner has stopped once full is closed
		}
		if failed != nil {
			panic(failed)
		}
	}()
	for b := range full {
		for _, ev := range b {
			f(ev)
		}
		clear(b) // the strings of events already counted are not kept alive
		free <- b[:0]
	}
}

// processes are the ledgers of one process's log, one per rank a launcher's prefix named in
// it ("" for lines without one): each rank is its own process.
type processes struct {
	opt    Options
	hook   func(*Unit) // given to each ledger (Live's)
	intern *interner
	byRank map[string]*Ledger
	ranks  []string
	began  map[string]int // the log each ledger is reading
	events map[string]int // events each ledger was given
	routed bool           // Stages named a process
	names  map[int]string // what names a process besides its id (pytest -n's worker: gw1)
	// unread counts the lines of the logs that look like compile records recomp could not
	// read; they go with the first process's report.
	unread      int
	unreadLines []logscan.UnreadLine
	leftOut     []string // Report.LeftOut
}

// addUnread counts the lines of log name that look like compile records recomp could not read,
// and says what a cap left out of it.
func (ps *processes) addUnread(name string, st logscan.Stats) {
	ps.unread += st.Unread
	ps.unreadLines = appendCapped(ps.unreadLines, st.UnreadLines, logscan.MaxUnread)
	if n := st.RankLinesLeftOut; n > 0 {
		ps.leftOut = append(ps.leftOut, fmt.Sprintf("%s: more than %d ranks in one log (recomp reads at most %d a log): %d line(s) of the others were not read",
			name, logscan.MaxRanks, logscan.MaxRanks, n))
	}
}

func newProcesses(opt Options) *processes {
	return &processes{opt: opt, byRank: map[string]*Ledger{}, began: map[string]int{}, events: map[string]int{}}
}

// ledger returns the ledger of a rank, reading log i from name.
func (ps *processes) ledger(rank string, i int, name string) *Ledger {
	l := ps.byRank[rank]
	if l == nil {
		l = NewLedger(ps.opt)
		l.rank, l.seq.intern, l.onCompiled = rank, ps.intern, ps.hook
		if id, ok := strings.CutPrefix(rank, "pid "); ok {
			l.pid, _ = strconv.Atoi(id)
		}
		ps.byRank[rank] = l
		ps.ranks = append(ps.ranks, rank)
		ps.began[rank] = -1
	}
	if ps.began[rank] != i {
		ps.began[rank] = i
		label := name
		switch {
		case strings.HasPrefix(rank, "pid ") && ps.names[l.pid] != "":
			label = fmt.Sprintf("%s [%s, %s]", name, ps.names[l.pid], rank) // run.log [gw1, pid 4242]
		case strings.HasPrefix(rank, "pid "):
			label = fmt.Sprintf("%s [%s]", name, rank)
		case strings.HasPrefix(rank, "process "):
			label = fmt.Sprintf("%s [%s]", name, rank) // run.log [process 2]: told apart by counts
		case rank != "":
			label = fmt.Sprintf("%s [rank %s]", name, rank)
		}
		l.BeginInput(i, label)
	}
	ps.events[rank]++
	return l
}

// endInput ends log i in every ledger that read it.
func (ps *processes) endInput(i int, marker bool) {
	for _, r := range ps.ranks {
		if ps.began[r] == i {
			ps.byRank[r].EndInput(marker)
		}
	}
}

// reports closes the books of every process, in the order the ranks first appeared (the
// unranked lines first).
func (ps *processes) reports() []*Report {
	ranks := slices.Clone(ps.ranks)
	slices.SortStableFunc(ranks, func(a, b string) int {
		if a == "" || b == "" || len(a) != len(b) {
			return cmp.Compare(len(a), len(b))
		}
		return strings.Compare(a, b)
	})
	out := make([]*Report, 0, len(ranks))
	for _, r := range ranks {
		if r == "" && len(ranks) > 1 && ps.events[r] == 0 {
			continue // every line of the log carried a rank: there is no unranked process
		}
		if r == "" && ps.routed && ps.byRank[r].evidence == 0 {
			continue // the processes' lines that name none, with no compilation of their own
		}
		out = append(out, ps.byRank[r].Report())
	}
	if len(out) > 0 {
		out[0].Summary.UnreadRecords += ps.unread
		out[0].Unread = appendCapped(out[0].Unread, ps.unreadLines, logscan.MaxUnread)
		out[0].LeftOut = appendCapped(out[0].LeftOut, ps.leftOut, MaxListed)
	}
	return out
}

// keying says which process of a log each of its events is: its rank, or where it names none
// and the probe's records show several processes, the one the router or its count names.
type keying struct {
	router *pidRouter // nil for one process
	tagged bool       // the probe's records show several processes
	counts countRouter
}

// give gives put ev with its process.
func (k *keying) give(ev logscan.Event, put func(string, logscan.Event)) {
	switch {
	case ev.Rank != "":
		put(ev.Rank, ev)
	case k.tagged && counted(ev):
		put(k.counts.process(ev), ev) // the process its count continues
	case k.router != nil:
		k.router.route(ev, put)
	default:
		put("", ev)
	}
}

// rotation is a suffix a log rotator adds to a log's name: logrotate's .1, .2.gz, its
// dateext -20261126, Python's RotatingFileHandler .1 and TimedRotatingFileHandler
// .2026-11-26_23-55.
var rotation = lazyre.New(`[.-](?:\d{1,3}|\d{4}-?\d\d-?\d\d(?:[_T-]?\d\d(?:-?\d\d){0,2})?)$`)

// logName says a base name is a log's (what a rotator's suffix follows): another input, or a
// name ending as logs do. worker-1 and worker-2 are two logs, train.log.1 and train.log.2 one.
var logName = lazyre.New(`\.(?:log|txt|out|err|stdout|stderr)$`)

// rotated finds inputs that are parts of one rotated log: a log and the same name with a
// rotation suffix (train.log, train.log.1, train.log-20261126.gz). Each such group is one
// process's log read as several processes, and says so.
func rotated(ins []Input, tail string) (msgs []string, parts [][]string) {
	paths := map[string]bool{}
	for _, in := range ins {
		paths[strings.TrimSuffix(in.Path, ".gz")] = true
	}
	groups := map[string][]string{}
	var bases []string
	for _, in := range ins {
		if in.Path == input.Stdin || in.Path == "" {
			continue
		}
		base := strings.TrimSuffix(in.Path, ".gz")
		if loc := rotation.FindStringIndex(base); loc != nil {
			if b := base[:loc[0]]; paths[b] || logName.MatchString(b) {
				base = b
			}
		}
		if _, ok := groups[base]; !ok {
			bases = append(bases, base)
		}
		if !slices.Contains(groups[base], in.Path) { // one log given twice is not two parts
			groups[base] = append(groups[base], in.Path)
		}
	}
	for _, b := range bases {
		if g := groups[b]; len(g) > 1 {
			parts = append(parts, g)
			msgs = append(msgs, fmt.Sprintf("%s look like one log rotated while it was written (one process's log in %d parts): %s",
				strings.Join(g, ", "), len(g), tail))
		}
	}
	return msgs, parts
}

// RotatedNames is rotated for logs named by paths (their names alone: recomp watch's logs, whose
// records are not kept), each message ending with tail (what was done with the parts, what to
// do): the messages, and the paths of each group.
func RotatedNames(paths []string, tail string) (msgs []string, parts [][]string) {
	ins := make([]Input, len(paths))
	for i, p := range paths {
		ins[i].Path = p
	}
	return rotated(ins, tail)
}

// continued finds logs read as processes of their own that are one process's log in parts
// (rotated, or split, under names that do not say so): their records' glog/absl prefixes name
// the same thread id (the main thread's is the process id), and their records do not overlap
// in time, one following the other. Small ids (below 100: a container's first processes, the
// same in every container of a job) are no evidence.
func continued(out []scanned) []continuation {
	var msgs []continuation
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			a, b := out[i].stats, out[j].stats
			id := sharedThread(a.Threads, b.Threads)
			if id == "" || a.First.IsZero() || b.First.IsZero() || !(!a.Last.After(b.First) || !b.Last.After(a.First)) {
				continue
			}
			first, second := out[i].input.Path, out[j].input.Path
			if b.Last.Before(a.First) {
				first, second = second, first
			}
			msgs = append(msgs, continuation{first, second, fmt.Sprintf("%s, %s look like one process's log in two parts: both name thread %s (a process id) and the second's "+
				"records follow the first's in time: read as processes of their own, a compilation in one part is not held against the other; "+
				"give them with --same-process, oldest first", first, second, id)})
		}
	}
	return msgs
}

type continuation struct{ a, b, msg string }

// sharedThread is a thread id of 100 or more that both lists hold ("" when none).
func sharedThread(a, b []string) string {
	for _, id := range a {
		if n, err := strconv.Atoi(id); err == nil && n >= 100 && slices.Contains(b, id) {
			return id
		}
	}
	return ""
}

// untilLine reads r up to the end of its left-th line, then ends.
type untilLine struct {
	r    io.Reader
	left int64
}

func (u *untilLine) Read(p []byte) (int, error) {
	if u.left <= 0 {
		return 0, io.EOF
	}
	n, err := u.r.Read(p)
	for i := 0; i < n; {
		j := bytes.IndexByte(p[i:n], '\n')
		if j < 0 {
			break
		}
		i += j + 1
		if u.left--; u.left == 0 {
			return i, nil
		}
	}
	return n, err
}

// traceFolder lists the trace files (frameworks.TraceFile) of a folder that is no run folder,
// in name order, each a process's log: a stack's trace folder given as a log (torch's
// TORCH_TRACE). nil when path is no folder or holds none.
func traceFolder(path string) []string {
	if st, err := os.Stat(path); err != nil || !st.IsDir() {
		return nil
	}
	entries, err := os.ReadDir(path)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		if e.Type().IsRegular() && frameworks.TraceFile(e.Name()) {
			out = append(out, filepath.Join(path, e.Name()))
		}
	}
	return out
}
