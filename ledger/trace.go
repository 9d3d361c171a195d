package ledger

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/recomp/recomp/frameworks"
	"github.com/recomp/recomp/internal/input"
	"github.com/recomp/recomp/logscan"
)

// A run folder whose program wrote a trace (torch's structured trace, which recomp run turns
// on) holds two records of the same compilations in one process: the log's and the trace's. The
// trace's are read first and joined to the log's by the stack's own id of each compilation
// (logscan.Event.Key: dynamo's compile id), or where the log's record names none, by the
// program it compiled: each compilation is counted once, with the trace's events (its seconds,
// and the first compilation, which a log may not show), placed where the log records it; the
// log's own records of the stack's reasons (a recompile record's guard failures) stay.

// grammarOf is the grammar a log at path is read with: a stack's trace file (frameworks.TraceFile,
// by its name) with the trace grammar alone, any other with every stack's.
func grammarOf(path string) *logscan.Grammar {
	if path != input.Stdin && frameworks.TraceFile(filepath.Base(path)) {
		return frameworks.TraceGrammar()
	}
	return frameworks.Grammar()
}

// maxTraceEvents bounds the events a log's traces hold for the join; past it, the trace's
// further events are left out, with a warning (the log's own records of them are read).
const maxTraceEvents = 1 << 16

// traceJoin is the events of a log's trace files, given to the log's process in place of the
// log's records of the same compilations.
type traceJoin struct {
	evs  []logscan.Event
	next int // evs before it were given
	// first and last are, by compile key, the index of the first of its events and one past
	// the last; modules are the programs the trace compiled
	first, last map[string]int
	modules     map[string]bool
	warnings    []logscan.Warning
	files       []TraceInput // the files read
}

// runTraces lists the trace files of the run folder at path (TraceFiles): nil when path is no
// run folder or it has none.
func runTraces(path string) []string {
	return TraceFiles(input.RunTrace(path))
}

// TraceFiles lists the trace files of a run folder's trace folder dir (runfolder.Folder.Trace),
// in name order: those written since since, when it is not zero (the user's own folder, which
// may hold earlier runs' traces). nil when dir is "" or holds none.
func TraceFiles(dir string, since time.Time) []string {
	if dir == "" {
		return nil
	}
	var out []string
	for _, f := range traceFolder(dir) {
		if st, err := os.Stat(f); err == nil && (since.IsZero() || !st.ModTime().Before(since.Add(-time.Second))) {
			out = append(out, f)
		}
	}
	return out
}

// readTraces reads the trace files of one log, with the trace grammar (frameworks.TraceGrammar):
// nil when there are none; none read, with a warning, when there are several (one a process).
func readTraces(files []string, opt ReadOptions) *traceJoin {
	if len(files) == 0 {
		return nil
	}
	j := &traceJoin{first: map[string]int{}, last: map[string]int{}, modules: map[string]bool{}}
	if len(files) > 1 {
		// a trace file a process: dynamo's compile ids repeat from one process to the next and
		// run.log holds them all, so no join could tell whose compilation a log line is
		j.note(files[0], 0, fmt.Sprintf("%d processes wrote the run's trace (%d files) and their compile ids repeat from one to "+
			"the next: the traces are not joined to run.log, whose own records are read (scan each trace file for its seconds)",
			len(files), len(files)))
		return j
	}
	for _, path := range files {
		j.read(path, opt)
	}
	return j
}

func (j *traceJoin) read(path string, opt ReadOptions) {
	f, err := input.OpenLog(path, nil)
	if err != nil {
		j.note(path, 0, "the run's trace could not be read: "+err.Error())
		return
	}
	defer f.Close()
	s := logscan.NewScanner(f, path, logscan.Options{Grammar: frameworks.TraceGrammar()})
	defer s.Close()
	left, before := 0, len(j.evs)
	for s.Scan() {
		ev := s.Event()
		if len(j.evs) >= maxTraceEvents {
			left++
			continue
		}
		if ev.Key != "" {
			if _, ok := j.first[ev.Key]; !ok {
				j.first[ev.Key] = len(j.evs)
			}
			j.last[ev.Key] = len(j.evs) + 1
		}
		if ev.Kind == logscan.CompileBegin {
			j.modules[ev.Module] = true
		}
		j.evs = append(j.evs, ev)
	}
	st := s.Stats()
	j.files = append(j.files, TraceInput{Path: path, Lines: st.Lines, Bytes: st.Bytes, Events: len(j.evs) - before})
	j.warnings = append(j.warnings, st.Warnings...)
	if err := s.Err(); err != nil {
		j.note(path, st.Lines, fmt.Sprintf("the run's trace breaks off after line %d: %v", st.Lines, err))
	}
	if left > 0 {
		j.note(path, st.Lines, fmt.Sprintf("more than %d events in the run's traces: %d were left out, and the log's own records of them are read", maxTraceEvents, left))
	}
	opt.Log.Debug("read the run's trace", "trace", path, "lines", st.Lines, "bytes", st.Bytes, "events", len(j.evs))
}

func (j *traceJoin) note(path string, line int, msg string) {
	j.warnings = append(j.warnings, logscan.Warning{File: path, Line: line, Message: msg})
}

// joined says whether the trace records the compilation a log's event is about, so that the
// log's event is not counted: a compilation, its end, a cache hit or the recompile limit, of a
// key the trace has (of a program the trace compiled, where the log's record names no key).
func (j *traceJoin) joined(ev logscan.Event) bool {
	switch ev.Kind {
	case logscan.CompileBegin, logscan.CompileFinished, logscan.CacheHit, logscan.FrameworkWarning:
	default:
		return false
	}
	if len(j.evs) == 0 || !frameworks.Traced(ev.Producer) {
		return false
	}
	if ev.Key != "" {
		_, ok := j.last[ev.Key]
		return ok
	}
	return ev.Kind != logscan.FrameworkWarning && j.modules[ev.Module]
}

// before gives add the trace's events that come before the log's event ev: those before its
// key's when the log's record is about to say more of that compilation (a recompile record),
// through its key's when the trace recorded it (joined).
func (j *traceJoin) before(ev logscan.Event, joined bool, add func(logscan.Event)) {
	if ev.Key == "" {
		return
	}
	end, ok := j.first[ev.Key]
	if joined {
		end, ok = j.last[ev.Key]
	}
	if !ok || !frameworks.Traced(ev.Producer) {
		return
	}
	for ; j.next < end; j.next++ {
		add(j.evs[j.next])
	}
}

// through is add for the log's events, the trace's joined to them (add itself without traces).
func (j *traceJoin) through(add func(logscan.Event)) func(logscan.Event) {
	if j == nil {
		return add
	}
	return func(ev logscan.Event) {
		joined := j.joined(ev)
		j.before(ev, joined, add)
		if !joined {
			add(ev)
		}
	}
}

// warn adds the warnings reading the traces gave to the log's input.
// inputs are the trace files read (nil for none).
func (j *traceJoin) inputs() []TraceInput {
	if j == nil {
		return nil
	}
	return j.files
}

func (j *traceJoin) warn(in *Input) {
	if j == nil {
		return
	}
	in.WarningCount += len(j.warnings)
	in.Warnings = appendCapped(in.Warnings, j.warnings, logscan.MaxWarnings)
}

// rest gives add the trace's events not given yet.
func (j *traceJoin) rest(add func(logscan.Event)) {
	if j == nil {
		return
	}
	for ; j.next < len(j.evs); j.next++ {
		add(j.evs[j.next])
	}
	j.evs = nil
}
