package main

import (
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/recomp/recomp/cache"
	"github.com/recomp/recomp/logscan"
)

type scanCmd struct {
	Format string `enum:"text,json,markdown" default:"text" help:"Output format: text, json or markdown."`
	warmupFlags
	Logs []string `arg:"" name:"LOG" help:"Log files ('-' for stdin, .gz read transparently)."`
}

func (c *scanCmd) Run(e *env) error {
	opt, marker, err := c.options()
	if err != nil {
		return err
	}
	inputs, err := loadLogs(c.Logs, marker)
	if err != nil {
		return err
	}
	rep := ledgerOf(inputs, opt)
	e.log.Debug("scanned", "inputs", len(inputs), "units", len(rep.Units))
	doc := scanDocument(inputs, rep)
	switch c.Format {
	case "json":
		return writeJSON(e.stdout, doc)
	case "markdown":
		writeScanMarkdown(e.stdout, doc)
	default:
		writeScanText(e.stdout, doc, painter{e.color})
	}
	return nil
}

// The JSON document of scan and guard (DESIGN.md's contract, version 1).

type scanJSON struct {
	Version  int           `json:"version"`
	Inputs   []inputJSON   `json:"inputs"`
	Summary  summaryJSON   `json:"summary"`
	Modules  []moduleJSON  `json:"modules"`
	Events   []eventJSON   `json:"events"`
	Findings []findingJSON `json:"findings"`
	Gate     *gateJSON     `json:"gate,omitempty"`
}

type inputJSON struct {
	Path         string        `json:"path"`
	Lines        int           `json:"lines"`
	Bytes        int64         `json:"bytes"`
	WarningCount int           `json:"warning_count"`
	Warnings     []warningJSON `json:"warnings"`
}

type warningJSON struct {
	Line    int    `json:"line"`
	Message string `json:"message"`
}

type summaryJSON struct {
	CompileRequests  int     `json:"compile_requests"`
	Compilations     int     `json:"compilations"`
	CacheHits        int     `json:"cache_hits"`
	CacheMisses      int     `json:"cache_misses"`
	CacheWrites      int     `json:"cache_writes"`
	ExecutableLoads  int     `json:"executable_loads"`
	CompileSeconds   float64 `json:"compile_seconds"`
	LoadSeconds      float64 `json:"load_seconds"`
	Recompilations   int     `json:"recompilations"`
	AfterWarmup      int     `json:"after_warmup"`
	LoadsAfterWarmup int     `json:"loads_after_warmup"`
	Retraces         int     `json:"retraces"`
}

type moduleJSON struct {
	Name            string   `json:"name"`
	Names           []string `json:"names"`
	Family          string   `json:"family"`
	CompileRequests int      `json:"compile_requests"`
	Compilations    int      `json:"compilations"`
	CacheHits       int      `json:"cache_hits"`
	CacheMisses     int      `json:"cache_misses"`
	CompileSeconds  float64  `json:"compile_seconds"`
	Hashes          []string `json:"hashes"`
	Recompiled      bool     `json:"recompiled"`
	Reasons         []string `json:"reasons"`
	Signatures      []string `json:"signatures"`
}

type eventJSON struct {
	Kind       string `json:"kind"`
	Producer   string `json:"producer"`
	File       string `json:"file"`
	Line       int    `json:"line"`
	Time       string `json:"time"`
	Module     string `json:"module"`
	Hash       string `json:"hash"`
	Path       string `json:"path"`
	DurationMS int64  `json:"duration_ms"`
	Detail     string `json:"detail,omitempty"`
	Signature  string `json:"signature,omitempty"`
	Reason     string `json:"reason,omitempty"`
}

type findingJSON struct {
	Severity string `json:"severity"`
	Kind     string `json:"kind"`
	Module   string `json:"module"`
	File     string `json:"file,omitempty"`
	Line     int    `json:"line,omitempty"`
	Message  string `json:"message"`
	Advice   string `json:"advice"`
}

type gateJSON struct {
	Passed   bool              `json:"passed"`
	Reason   string            `json:"reason"`
	Allowed  int               `json:"max_recompiles"`
	Failures []gateFailureJSON `json:"failures"`
}

type gateFailureJSON struct {
	Module  string  `json:"module"`
	Family  string  `json:"family"`
	Hash    string  `json:"hash"`
	File    string  `json:"file"`
	Line    int     `json:"line"`
	Kind    string  `json:"kind"`
	Seconds float64 `json:"seconds"`
	Message string  `json:"message"`
	Reason  string  `json:"reason,omitempty"` // the framework's own explanation, when it gave one
}

func eventTime(ev logscan.Event) string {
	if ev.Stamp == "" {
		return ""
	}
	if ev.DateKnown {
		return ev.Time.Format(time.RFC3339Nano)
	}
	return ev.Stamp
}

func scanDocument(inputs []scanned, rep *cache.Report) scanJSON {
	doc := scanJSON{Version: jsonVersion}
	for _, in := range inputs {
		ij := inputJSON{Path: in.path, Lines: in.stats.Lines, Bytes: in.stats.Bytes, WarningCount: in.stats.WarningCount, Warnings: []warningJSON{}}
		for _, w := range in.stats.Warnings {
			ij.Warnings = append(ij.Warnings, warningJSON{Line: w.Line, Message: w.Message})
		}
		doc.Inputs = append(doc.Inputs, ij)
		for _, ev := range in.events {
			doc.Events = append(doc.Events, eventJSON{Kind: string(ev.Kind), Producer: ev.Producer, File: ev.File, Line: ev.Line,
				Time: eventTime(ev), Module: ev.Module, Hash: ev.Hash, Path: ev.Path, DurationMS: ev.Duration.Milliseconds(), Detail: ev.Detail,
				Signature: ev.Signature, Reason: ev.Reason})
		}
	}
	s := rep.Summary
	doc.Summary = summaryJSON{CompileRequests: s.CompileRequests, Compilations: s.Compilations, CacheHits: s.CacheHits,
		CacheMisses: s.CacheMisses, CacheWrites: s.CacheWrites, ExecutableLoads: s.ExecutableLoads,
		CompileSeconds: seconds(s.CompileTime), LoadSeconds: seconds(s.LoadTime), Recompilations: s.Recompilations,
		AfterWarmup: s.AfterWarmup, LoadsAfterWarmup: s.LoadsAfterWarmup, Retraces: s.Retraces}
	for _, m := range rep.Modules {
		doc.Modules = append(doc.Modules, moduleJSON{Name: m.Name, Names: nonNil(m.Names), Family: m.Family,
			CompileRequests: m.CompileRequests, Compilations: m.Compilations, CacheHits: m.CacheHits, CacheMisses: m.CacheMisses,
			CompileSeconds: seconds(m.CompileTime), Hashes: nonNil(m.Hashes), Recompiled: m.Recompiled, Reasons: nonNil(m.Reasons),
			Signatures: nonNil(m.Signatures)})
	}
	for _, f := range rep.Findings {
		doc.Findings = append(doc.Findings, findingJSON{Severity: f.Severity, Kind: f.Kind, Module: f.Module, File: f.File,
			Line: f.Line, Message: f.Message, Advice: f.Advice})
	}
	doc.Inputs = nonNil(doc.Inputs)
	doc.Modules = nonNil(doc.Modules)
	doc.Events = nonNil(doc.Events)
	doc.Findings = nonNil(doc.Findings)
	return doc
}

func writeScanText(w io.Writer, d scanJSON, p painter) {
	var lines int
	var bytes int64
	warnings := 0
	for _, in := range d.Inputs {
		lines += in.Lines
		bytes += in.Bytes
		warnings += in.WarningCount
	}
	s := d.Summary
	fmt.Fprintf(w, "%s: %s, %s, %s\n", p.bold("recomp scan"), plural(len(d.Inputs), "input", "inputs"),
		plural(lines, "line", "lines"), humanBytes(bytes))
	fmt.Fprintf(w, "  compile requests %d, compilations %d (%s), cache hits %d, misses %d, writes %d\n",
		s.CompileRequests, s.Compilations, fmtSec(s.CompileSeconds), s.CacheHits, s.CacheMisses, s.CacheWrites)
	fmt.Fprintf(w, "  executable loads %d (%s), recompilations %d", s.ExecutableLoads, fmtSec(s.LoadSeconds), s.Recompilations)
	if s.Retraces > 0 {
		fmt.Fprintf(w, ", retraces %d", s.Retraces)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "  after warm-up: %s, %s\n", plural(s.AfterWarmup, "compilation", "compilations"),
		plural(s.LoadsAfterWarmup, "executable load", "executable loads"))
	if len(d.Inputs) > 1 {
		fmt.Fprintln(w)
		t := &table{right: []bool{false, true, true, true, true, true}}
		t.add("INPUT", "LINES", "EVENTS", "WARNINGS")
		perFile := map[string]int{}
		for _, ev := range d.Events {
			perFile[ev.File]++
		}
		for _, in := range d.Inputs {
			n := perFile[in.Path]
			if in.Path == "-" {
				n = perFile["<stdin>"]
			}
			t.add(in.Path, strconv.Itoa(in.Lines), strconv.Itoa(n), strconv.Itoa(in.WarningCount))
		}
		t.write(w, "")
	}
	if len(d.Modules) > 0 {
		fmt.Fprintln(w)
		t := &table{right: []bool{false, true, true, true, true, true, true}}
		t.add("MODULE FAMILY", "REQUESTS", "COMPILED", "HITS", "MISSES", "TIME", "HASHES")
		for _, m := range d.Modules {
			hashes := "-"
			if len(m.Hashes) > 0 {
				hashes = strconv.Itoa(len(m.Hashes))
			}
			t.add(shorten(m.Family, 56), strconv.Itoa(m.CompileRequests), strconv.Itoa(m.Compilations),
				strconv.Itoa(m.CacheHits), strconv.Itoa(m.CacheMisses), fmtSec(m.CompileSeconds), hashes)
		}
		t.write(w, "")
	}
	writeFindingsText(w, d.Findings, p)
	if warnings > 0 {
		fmt.Fprintf(w, "\n%s\n", plural(warnings, "warning", "warnings"))
		for _, in := range d.Inputs {
			for _, wn := range in.Warnings {
				fmt.Fprintf(w, "  %s:%d: %s\n", in.Path, wn.Line, wn.Message)
			}
			if in.WarningCount > len(in.Warnings) {
				fmt.Fprintf(w, "  %s: %d more not shown\n", in.Path, in.WarningCount-len(in.Warnings))
			}
		}
	}
}

func writeFindingsText(w io.Writer, fs []findingJSON, p painter) {
	if len(fs) == 0 {
		return
	}
	fmt.Fprintln(w)
	for _, f := range fs {
		loc := ""
		if f.File != "" {
			loc = fmt.Sprintf(" (%s:%d)", f.File, f.Line)
		}
		fmt.Fprintf(w, "%s %s: %s%s\n", p.sev(f.Severity), f.Kind, f.Message, loc)
		if f.Advice != "" {
			fmt.Fprintf(w, "  advice: %s\n", f.Advice)
		}
	}
}

func fmtSec(s float64) string { return fmtDur(time.Duration(s * float64(time.Second))) }

func writeScanMarkdown(w io.Writer, d scanJSON) {
	s := d.Summary
	fmt.Fprintf(w, "## recomp scan\n\n")
	fmt.Fprintf(w, "| compile requests | compilations | compile time | cache hits | cache misses | executable loads | load time | recompilations | after warm-up |\n")
	fmt.Fprintf(w, "|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	fmt.Fprintf(w, "| %d | %d | %s | %d | %d | %d | %s | %d | %d |\n\n", s.CompileRequests, s.Compilations, fmtSec(s.CompileSeconds),
		s.CacheHits, s.CacheMisses, s.ExecutableLoads, fmtSec(s.LoadSeconds), s.Recompilations, s.AfterWarmup)
	if len(d.Modules) > 0 {
		fmt.Fprintf(w, "| module family | requests | compiled | hits | misses | time | hashes |\n|---|---:|---:|---:|---:|---:|---|\n")
		for _, m := range d.Modules {
			fmt.Fprintf(w, "| `%s` | %d | %d | %d | %d | %s | %s |\n", mdEscape(m.Family), m.CompileRequests, m.Compilations,
				m.CacheHits, m.CacheMisses, fmtSec(m.CompileSeconds), mdEscape(joinOr(m.Hashes, "-")))
		}
		fmt.Fprintln(w)
	}
	if len(d.Findings) > 0 {
		fmt.Fprintf(w, "### Findings\n\n")
		for _, f := range d.Findings {
			loc := ""
			if f.File != "" {
				loc = fmt.Sprintf(" (`%s:%d`)", mdEscape(f.File), f.Line)
			}
			fmt.Fprintf(w, "- **%s** `%s`: %s%s  \n  %s\n", f.Severity, f.Kind, mdEscape(f.Message), loc, mdEscape(f.Advice))
		}
	}
}

func joinOr(xs []string, def string) string {
	if len(xs) == 0 {
		return def
	}
	out := xs[0]
	for _, x := range xs[1:] {
		out += ", " + x
	}
	return out
}
