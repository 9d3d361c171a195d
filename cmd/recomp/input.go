package main

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/recomp/recomp/gate"
	"github.com/recomp/recomp/internal/input"
	"github.com/recomp/recomp/ledger"
	"github.com/recomp/recomp/logscan"
	"github.com/recomp/recomp/report"
)

// openLog opens a log (see input.Open); a folder is not a log.
func openLog(path string, stdin io.Reader) (*input.File, error) {
	f, err := input.Open(path, stdin)
	if errors.Is(err, input.ErrFolder) {
		return nil, fmt.Errorf("%s: is a directory, not a log file", path)
	}
	return f, err
}

// scanOptions say how logs are read into a scan report.
type scanOptions struct {
	marker      *logscan.LineRegexp
	ledger      ledger.Options
	sameProcess bool // the logs are parts of one process's log
	allEvents   bool // list every event, not the first report.MaxEvents
}

// checkInputs refuses what cannot be read as asked: stdin named twice.
func checkInputs(paths []string) error {
	if err := input.CheckStdin(paths); err != nil {
		return usageErr("%v", err)
	}
	return nil
}

// scanned is one input after scanning: its events went into a ledger per process as they
// were read.
type scanned struct {
	input  report.Input
	events []logscan.Event // the first ones, for the report's list
	count  int
	reps   []*ledger.Report // the input's own process reports (nil when the inputs are one process)
	err    error            // the input could not be opened
}

// processes are the ledgers of one process's log, one per rank a launcher's prefix named in
// it ("" for lines without one): each rank is its own process.
type processes struct {
	opt    ledger.Options
	byRank map[string]*ledger.Ledger
	ranks  []string
	began  map[string]int // the input each ledger is reading
	events map[string]int // events each ledger was given
}

func newProcesses(opt ledger.Options) *processes {
	return &processes{opt: opt, byRank: map[string]*ledger.Ledger{}, began: map[string]int{}, events: map[string]int{}}
}

// ledger returns the ledger of a rank, reading input i from name.
func (ps *processes) ledger(rank string, i int, name string) *ledger.Ledger {
	l := ps.byRank[rank]
	if l == nil {
		l = ledger.NewLedger(ps.opt)
		ps.byRank[rank] = l
		ps.ranks = append(ps.ranks, rank)
		ps.began[rank] = -1
	}
	if ps.began[rank] != i {
		ps.began[rank] = i
		label := name
		if rank != "" {
			label = fmt.Sprintf("%s [rank %s]", name, rank)
		}
		l.BeginInput(i, label)
	}
	ps.events[rank]++
	return l
}

// endInput ends input i in every ledger that read it.
func (ps *processes) endInput(i int, marker bool) {
	for _, r := range ps.ranks {
		if ps.began[r] == i {
			ps.byRank[r].EndInput(marker)
		}
	}
}

// reports closes the books of every process, in the order the ranks first appeared (the
// unranked lines first).
func (ps *processes) reports() []*ledger.Report {
	ranks := slices.Clone(ps.ranks)
	slices.SortStableFunc(ranks, func(a, b string) int {
		if a == "" || b == "" || len(a) != len(b) {
			return cmp.Compare(len(a), len(b))
		}
		return strings.Compare(a, b)
	})
	out := make([]*ledger.Report, 0, len(ranks))
	for _, r := range ranks {
		if r == "" && len(ranks) > 1 && ps.events[r] == 0 {
			continue // every line of the log carried a rank: there is no unranked process
		}
		out = append(out, ps.byRank[r].Report())
	}
	return out
}

// scanLogs reads the logs into a scan report. Each log is its own process (ranks interleaved in
// one log by a launcher are processes of their own), read in parallel, unless sameProcess:
// then they are read in order as one process (one per rank). Memory does not grow with the
// logs: events go into ledgers as they are read, and only the first report.MaxEvents are kept
// for listing.
func scanLogs(e *env, paths []string, opt scanOptions) (*report.Scan, error) {
	if err := checkInputs(paths); err != nil {
		return nil, err
	}
	paths = runLogs(paths)
	start := time.Now()
	keep := report.MaxEvents
	if opt.allEvents {
		keep = -1
	}
	out := make([]scanned, len(paths))
	if opt.sameProcess {
		ps := newProcesses(opt.ledger)
		for i, p := range paths {
			out[i] = scanOne(e.log, i, p, e.stdin, opt, keep, ps)
		}
		return assemble(e, out, ps.reports(), opt, start)
	}
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for i, p := range paths {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			ps := newProcesses(opt.ledger)
			out[i] = scanOne(e.log, i, p, e.stdin, opt, keep, ps)
			out[i].reps = ps.reports()
		}()
	}
	wg.Wait()
	var reps []*ledger.Report
	for _, s := range out {
		reps = append(reps, s.reps...)
	}
	return assemble(e, out, reps, opt, start)
}

func assemble(e *env, out []scanned, reps []*ledger.Report, opt scanOptions, start time.Time) (*report.Scan, error) {
	for _, s := range out {
		if s.err != nil {
			return nil, usageErr("%v", s.err)
		}
	}
	rs := &report.Scan{Ledger: ledger.Merge(opt.ledger, reps...), SameProcess: opt.sameProcess, Full: opt.allEvents}
	for _, s := range out {
		rs.Inputs = append(rs.Inputs, s.input)
		rs.EventCount += s.count
		if opt.allEvents || len(rs.Events) < report.MaxEvents {
			rs.Events = append(rs.Events, s.events...)
		}
	}
	if !opt.allEvents && len(rs.Events) > report.MaxEvents {
		rs.Events = rs.Events[:report.MaxEvents]
	}
	e.log.Debug("scanned", "inputs", len(out), "processes", rs.Ledger.Processes, "events", rs.EventCount,
		"compilations", rs.Ledger.Summary.Compilations, "elapsed", time.Since(start))
	return rs, nil
}

// scanOne reads one log into the ledgers of its processes, keeping its first keep events (all
// when keep < 0).
func scanOne(log hclog.Logger, i int, path string, stdin io.Reader, opt scanOptions, keep int, ps *processes) scanned {
	start := time.Now()
	name := path
	if path == "-" {
		name = "<stdin>"
	}
	res := scanned{input: report.Input{Path: path}}
	rc, err := openLog(path, stdin)
	if err != nil {
		res.err = err
		return res
	}
	defer rc.Close()
	if st := rc.Info; st != nil {
		log.Trace("reading", "input", path, "bytes", st.Size(), "mode", st.Mode().String())
	}
	s := logscan.NewScanner(rc, name, logscan.Options{Marker: opt.marker})
	ps.ledger("", i, name) // the input's own process, even when every line carries a rank
	ps.events[""]--
	for s.Scan() {
		ev := s.Event()
		if ev.Kind == logscan.PhaseStart || ev.Kind == logscan.PhaseEnd {
			continue // counted nowhere
		}
		ps.ledger(ev.Rank, i, name).Add(ev)
		res.count++
		if keep < 0 || len(res.events) < keep {
			res.events = append(res.events, ev)
		}
		log.Trace("event", "file", ev.File, "line", ev.Line, "kind", ev.Kind, "producer", ev.Producer, "module", ev.Module, "rank", ev.Rank)
	}
	ps.endInput(i, opt.marker != nil)
	st := s.Stats()
	res.input.Lines, res.input.Bytes, res.input.Events = st.Lines, st.Bytes, res.count
	res.input.WarningCount, res.input.Warnings, res.input.Binary = st.WarningCount, st.Warnings, st.Binary
	if err := s.Err(); err != nil {
		// A read error part-way (a truncated .gz, an I/O error): what was read is counted, and
		// the input says it is incomplete.
		res.input.ReadError = fmt.Sprintf("read error after line %d, the result covers the input up to there: %v", st.Lines, err)
		res.input.WarningCount++
		res.input.Warnings = append(res.input.Warnings, logscan.Warning{File: name, Line: st.Lines, Message: res.input.ReadError})
	}
	log.Debug("scanned input", "input", path, "lines", st.Lines, "bytes", st.Bytes, "events", res.count,
		"warnings", st.WarningCount, "elapsed", time.Since(start))
	return res
}

// gateInputs are what the gate must know of the inputs that the ledger does not.
func gateInputs(s *report.Scan) []gate.Input {
	var out []gate.Input
	for _, in := range s.Inputs {
		if in.ReadError != "" || in.Binary != "" {
			out = append(out, gate.Input{Path: in.Path, ReadError: in.ReadError, Binary: in.Binary})
		}
	}
	return out
}

// readErrors lists the inputs that could not be read to the end.
func readErrors(s *report.Scan) []string {
	var out []string
	for _, in := range s.Inputs {
		if in.ReadError != "" {
			out = append(out, in.Path+": "+in.ReadError)
		}
	}
	return out
}

// warmupFlags are shared by scan and guard.
type warmupFlags struct {
	Warmup      int    `help:"The first N compilations of each process are warm-up." placeholder:"N"`
	After       string `help:"Everything after the first line matching REGEX is after warm-up (e.g. 'Epoch 2/')." placeholder:"REGEX"`
	SameProcess bool   `name:"same-process" help:"The logs are parts of one process's log (by default each log is its own process, e.g. one per rank)."`
	AllEvents   bool   `name:"all-events" help:"List every event in JSON (by default the first 1000; all are counted)."`
}

func (w warmupFlags) options() (scanOptions, error) {
	if w.Warmup < 0 {
		return scanOptions{}, usageErr("--warmup %d: want a number >= 0", w.Warmup)
	}
	if w.Warmup > 0 && w.After != "" {
		return scanOptions{}, usageErr("--warmup and --after are exclusive: choose one warm-up boundary")
	}
	opt := scanOptions{ledger: ledger.Options{Warmup: w.Warmup}, sameProcess: w.SameProcess, allEvents: w.AllEvents}
	if w.After == "" {
		return opt, nil
	}
	re, err := logscan.NewLineRegexp(w.After)
	if err != nil {
		return opt, usageErr("--after: %v", err)
	}
	opt.marker, opt.ledger.AfterMarker = re, true
	return opt, nil
}

// runLogs replaces each run folder of recomp run among paths with its run.log.
func runLogs(paths []string) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = input.RunLog(p)
	}
	return out
}
