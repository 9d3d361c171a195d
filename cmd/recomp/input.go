package main

import (
	"bufio"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"regexp"
	"runtime"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/recomp/recomp/cache"
	"github.com/recomp/recomp/logscan"
	"github.com/recomp/recomp/report"
	"github.com/recomp/recomp/runner"
)

// openInput opens a path for reading: "-" is stdin, gzip data (by its magic bytes) is
// decompressed. The caller closes the result.
func openInput(path string, stdin io.Reader) (io.ReadCloser, error) {
	var rc io.ReadCloser
	if path == "-" {
		rc = io.NopCloser(stdin)
	} else {
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		st, err := f.Stat()
		if err != nil {
			f.Close()
			return nil, err
		}
		if st.IsDir() {
			f.Close()
			return nil, fmt.Errorf("%s: is a directory, not a log file", path)
		}
		rc = f
	}
	br := bufio.NewReaderSize(rc, 64<<10)
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			rc.Close()
			return nil, fmt.Errorf("%s: %v", path, err)
		}
		return readCloser{zr, rc}, nil
	}
	return readCloser{br, rc}, nil
}

type readCloser struct {
	io.Reader
	io.Closer
}

// scanOptions say how logs are read into a scan report.
type scanOptions struct {
	marker      *regexp.Regexp
	ledger      cache.Options
	sameProcess bool // the logs are parts of one process's log
	allEvents   bool // list every event, not the first report.MaxEvents
}

// checkInputs refuses what cannot be read as asked: stdin named twice.
func checkInputs(paths []string) error {
	stdin := 0
	for _, p := range paths {
		if p == "-" {
			stdin++
		}
	}
	if stdin > 1 {
		return usageErr("'-' (standard input) is given %d times: it can be read once", stdin)
	}
	return nil
}

// scanned is one input after scanning: its events went into a Ledger as they were read.
type scanned struct {
	input  report.Input
	events []logscan.Event // the first ones, for the report's list
	count  int
	rep    *cache.Report // the input's own process report (nil when the inputs are one process)
	err    error         // the input could not be opened
}

// scanLogs reads the logs into a scan report. Each log is its own process (its own Ledger),
// read in parallel, unless sameProcess: then they are read in order into one Ledger. Memory
// does not grow with the logs: events go into ledgers as they are read, and only the first
// report.MaxEvents are kept for listing.
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
		l := cache.NewLedger(opt.ledger)
		for i, p := range paths {
			out[i] = scanOne(e.log, i, p, e.stdin, opt, keep, l)
		}
		rep := l.Report()
		for i := range out {
			out[i].rep = nil
		}
		return assemble(e, out, []*cache.Report{rep}, opt, start)
	}
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for i, p := range paths {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			l := cache.NewLedger(opt.ledger)
			out[i] = scanOne(e.log, i, p, e.stdin, opt, keep, l)
			out[i].rep = l.Report()
		}()
	}
	wg.Wait()
	var reps []*cache.Report
	for _, s := range out {
		if s.rep != nil {
			reps = append(reps, s.rep)
		}
	}
	return assemble(e, out, reps, opt, start)
}

func assemble(e *env, out []scanned, reps []*cache.Report, opt scanOptions, start time.Time) (*report.Scan, error) {
	for _, s := range out {
		if s.err != nil {
			return nil, usageErr("%v", s.err)
		}
	}
	rs := &report.Scan{Ledger: cache.Merge(opt.ledger, reps...), SameProcess: opt.sameProcess, Full: opt.allEvents}
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

// scanOne reads one log into l, keeping its first keep events (all when keep < 0).
func scanOne(log hclog.Logger, i int, path string, stdin io.Reader, opt scanOptions, keep int, l *cache.Ledger) scanned {
	start := time.Now()
	name := path
	if path == "-" {
		name = "<stdin>"
	}
	res := scanned{input: report.Input{Path: path}}
	rc, err := openInput(path, stdin)
	if err != nil {
		res.err = err
		return res
	}
	defer rc.Close()
	if f, ok := rc.(readCloser).Closer.(*os.File); ok {
		if st, err := f.Stat(); err == nil {
			log.Trace("reading", "input", path, "bytes", st.Size(), "mode", st.Mode().String())
		}
	}
	s := logscan.NewScanner(rc, name, logscan.Options{Marker: opt.marker})
	l.BeginInput(i, name)
	for s.Scan() {
		ev := s.Event()
		if ev.Kind == logscan.PhaseStart || ev.Kind == logscan.PhaseEnd {
			continue // counted nowhere
		}
		l.Add(ev)
		res.count++
		if keep < 0 || len(res.events) < keep {
			res.events = append(res.events, ev)
		}
		log.Trace("event", "file", ev.File, "line", ev.Line, "kind", ev.Kind, "producer", ev.Producer, "module", ev.Module)
	}
	l.EndInput(opt.marker != nil)
	st := s.Stats()
	res.input.Lines, res.input.Bytes, res.input.Events = st.Lines, st.Bytes, res.count
	res.input.WarningCount, res.input.Warnings = st.WarningCount, st.Warnings
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
	opt := scanOptions{ledger: cache.Options{Warmup: w.Warmup}, sameProcess: w.SameProcess, allEvents: w.AllEvents}
	if w.After == "" {
		return opt, nil
	}
	re, err := cache.CompileMarker(w.After)
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
		out[i] = p
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			if f, ok := runner.OpenFolder(p); ok {
				out[i] = f.Log
			}
		}
	}
	return out
}
