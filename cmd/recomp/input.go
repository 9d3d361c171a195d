package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"regexp"
	"runtime"
	"sync"

	"github.com/recomp/recomp/cache"
	"github.com/recomp/recomp/logscan"
)

// openInput opens a path for reading: "-" is stdin, gzip data (by name or magic bytes) is
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

// scanned is one input after scanning.
type scanned struct {
	path   string
	stats  logscan.Stats
	events []logscan.Event
	err    error // open error: the input could not be read at all
}

// scanLogs scans every path, several at a time, and returns them in argument order.
func scanLogs(paths []string, marker *regexp.Regexp, stdin io.Reader) []scanned {
	out := make([]scanned, len(paths))
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for i, p := range paths {
		wg.Add(1)
		go func(i int, p string) {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			out[i] = scanOne(p, marker, stdin)
		}(i, p)
	}
	wg.Wait()
	return out
}

func scanOne(path string, marker *regexp.Regexp, stdin io.Reader) scanned {
	res := scanned{path: path}
	rc, err := openInput(path, stdin)
	if err != nil {
		res.err = err
		return res
	}
	defer rc.Close()
	name := path
	if path == "-" {
		name = "<stdin>"
	}
	s := logscan.NewScanner(rc, name, logscan.Options{Marker: marker})
	for s.Scan() {
		ev := s.Event()
		if ev.Kind == logscan.PhaseStart || ev.Kind == logscan.PhaseEnd {
			continue // counted nowhere; keeping them would make memory grow with the log
		}
		res.events = append(res.events, ev)
	}
	res.stats = s.Stats()
	if err := s.Err(); err != nil {
		// A read error part-way (a truncated .gz, an I/O error): keep what was read.
		res.stats.WarningCount++
		res.stats.Warnings = append(res.stats.Warnings, logscan.Warning{File: name, Line: res.stats.Lines,
			Message: fmt.Sprintf("read error, the result covers the input up to here: %v", err)})
	}
	return res
}

// ledgerOf folds scanned inputs into a report.
func ledgerOf(inputs []scanned, opt cache.Options) *cache.Report {
	l := cache.NewLedger(opt)
	for i, in := range inputs {
		for _, ev := range in.events {
			l.Add(i, ev)
		}
		l.EndInput(i, in.path, opt.AfterMarker)
	}
	return l.Report()
}

// warmupFlags are shared by scan and guard.
type warmupFlags struct {
	Warmup int    `help:"The first N compilations are warm-up." placeholder:"N"`
	After  string `help:"Everything after the first line matching REGEX is after warm-up (e.g. 'Epoch 2/')." placeholder:"REGEX"`
}

func (w warmupFlags) options() (cache.Options, *regexp.Regexp, error) {
	if w.Warmup < 0 {
		return cache.Options{}, nil, usageErr("--warmup %d: want a number >= 0", w.Warmup)
	}
	if w.Warmup > 0 && w.After != "" {
		return cache.Options{}, nil, usageErr("--warmup and --after are exclusive: choose one warm-up boundary")
	}
	opt := cache.Options{Warmup: w.Warmup}
	if w.After == "" {
		return opt, nil, nil
	}
	re, err := cache.CompileMarker(w.After)
	if err != nil {
		return opt, nil, usageErr("%v", err)
	}
	opt.AfterMarker = true
	return opt, re, nil
}

// loadLogs scans the logs and fails with a usage error naming the first unreadable one.
func loadLogs(paths []string, marker *regexp.Regexp) ([]scanned, error) {
	inputs := scanLogs(paths, marker, os.Stdin)
	for _, in := range inputs {
		if in.err != nil {
			return nil, usageErr("%v", in.err)
		}
	}
	return inputs, nil
}

// maxHLOBytes bounds what recomp reads of one HLO file into memory.
const maxHLOBytes = 4 << 30

func readAllLimited(r io.Reader, path string) ([]byte, error) {
	var buf bytes.Buffer
	if st, err := os.Stat(path); err == nil && st.Mode().IsRegular() && st.Size() < maxHLOBytes {
		buf.Grow(int(st.Size()) + bytes.MinRead) // one allocation for a plain file (a .gz grows)
	}
	if _, err := buf.ReadFrom(io.LimitReader(r, maxHLOBytes+1)); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	b := buf.Bytes()
	if len(b) > maxHLOBytes {
		return nil, fmt.Errorf("%s: larger than %d bytes", path, int64(maxHLOBytes))
	}
	return b, nil
}
