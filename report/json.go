package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/recomp/recomp/cache"
	"github.com/recomp/recomp/diff"
	"github.com/recomp/recomp/explain"
	"github.com/recomp/recomp/gate"
	"github.com/recomp/recomp/ledger"
	"github.com/recomp/recomp/logscan"
	"github.com/recomp/recomp/verdict"
)

// JSONVersion is the version of every JSON document recomp writes. Fields are added without
// changing it; any other change bumps it.
const JSONVersion = 2

// writeJSON writes v as json.Encoder does with SetIndent("", "  ") and no HTML escaping: the
// document is encoded compact and indented by indentJSON (encoding/json's indentation runs its
// validating scanner over every byte again: half the time of a report of 60 000 hashes).
func writeJSON(w io.Writer, v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := w.Write(indentJSON(make([]byte, 0, 2*buf.Len()), buf.Bytes(), "  "))
	return err
}

// indentJSON appends to dst what json.Indent(dst, src, "", indent) appends, for src that
// encoding/json wrote compact (no blank outside its strings; a newline after the value, as
// json.Encoder writes it, is kept as json.Indent keeps it). FuzzIndentJSON holds it to
// json.Indent.
func indentJSON(dst, src []byte, indent string) []byte { return indentJSONAt(dst, src, indent, 0) }

// indentJSONAt is indentJSON for a value that lies depth levels down in its document (its own
// first line is not indented).
func indentJSONAt(dst, src []byte, indent string, depth int) []byte {
	open := false // a '{' or '[' was written, and its first element not yet
	for i := 0; i < len(src); i++ {
		c := src[i]
		if open && c != '}' && c != ']' {
			open = false
			depth++
			dst = newlineIndent(dst, indent, depth)
		}
		switch c {
		case '"':
			j := i + 1
			for j < len(src) && src[j] != '"' {
				if src[j] == '\\' {
					j++
				}
				j++
			}
			j = min(j, len(src)-1)
			dst = append(dst, src[i:j+1]...)
			i = j
		case '{', '[':
			open = true
			dst = append(dst, c)
		case ',':
			dst = newlineIndent(append(dst, c), indent, depth)
		case ':':
			dst = append(dst, c, ' ')
		case '}', ']':
			if open {
				open = false // {} and [] stay as they are
			} else {
				depth--
				dst = newlineIndent(dst, indent, depth)
			}
			dst = append(dst, c)
		default:
			dst = append(dst, c)
		}
	}
	return dst
}

func newlineIndent(dst []byte, indent string, depth int) []byte {
	dst = append(dst, '\n')
	for range depth {
		dst = append(dst, indent...)
	}
	return dst
}

// nonNil makes an empty slice encode as [] rather than null.
func nonNil[T any](xs []T) []T {
	if xs == nil {
		return []T{}
	}
	return xs
}

// ScanJSON is the document of scan and guard (the contract of docs/json.md).
type ScanJSON struct {
	Version    int           `json:"version"`
	Inputs     []InputJSON   `json:"inputs"`
	Processes  int           `json:"processes"`
	Summary    SummaryJSON   `json:"summary"`
	Modules    []ModuleJSON  `json:"modules"`
	Events     []EventJSON   `json:"events"`
	EventCount int           `json:"event_count"`
	Findings   []FindingJSON `json:"findings"`
	Verdict    *VerdictJSON  `json:"verdict,omitempty"`
	Gate       *GateJSON     `json:"gate,omitempty"`
	Coverage   *CoverageJSON `json:"coverage,omitempty"`
	Ranks      *RanksJSON    `json:"ranks,omitempty"`
}

type InputJSON struct {
	Path         string        `json:"path"`
	Lines        int           `json:"lines"`
	Bytes        int64         `json:"bytes"`
	Events       int           `json:"events"`
	WarningCount int           `json:"warning_count"`
	Warnings     []WarningJSON `json:"warnings"`
	ReadError    string        `json:"read_error,omitempty"`
	// Unread counts the lines that look like compile records recomp could not read;
	// UnreadLines are the first few.
	Unread      int              `json:"unread_records"`
	UnreadLines []UnreadLineJSON `json:"unread_lines"`
	// Traces are the trace files read with the log and joined to it.
	Traces []TraceInputJSON `json:"traces"`
}

// TraceInputJSON is a trace file read with a log (ledger.TraceInput).
type TraceInputJSON struct {
	Path   string `json:"path"`
	Lines  int    `json:"lines"`
	Bytes  int64  `json:"bytes"`
	Events int    `json:"events"`
}

type UnreadLineJSON struct {
	Line      int    `json:"line"`
	Framework string `json:"framework"`
	Text      string `json:"text"`
}

type WarningJSON struct {
	Line    int    `json:"line"`
	Message string `json:"message"`
}

type SummaryJSON struct {
	CompileRequests   int     `json:"compile_requests"`
	Compilations      int     `json:"compilations"`
	CacheHits         int     `json:"cache_hits"`
	CacheMisses       int     `json:"cache_misses"`
	CacheWrites       int     `json:"cache_writes"`
	ExecutableLoads   int     `json:"executable_loads"`
	CompileSeconds    float64 `json:"compile_seconds"`
	TraceSeconds      float64 `json:"trace_seconds"`
	LowerSeconds      float64 `json:"lower_seconds"`
	LoadSeconds       float64 `json:"load_seconds"`
	Recompilations    int     `json:"recompilations"`
	AfterWarmup       int     `json:"after_warmup"`
	LoadsAfterWarmup  int     `json:"loads_after_warmup"`
	Retraces          int     `json:"retraces"`
	EagerCompilations int     `json:"eager_compilations"`
	UnreadRecords     int     `json:"unread_records"`
	FamiliesNotListed int     `json:"families_not_listed,omitempty"`
	CompilationsNL    int     `json:"compilations_not_listed,omitempty"`
	RecompilationsNL  int     `json:"recompilations_not_listed,omitempty"`
	Reported          int     `json:"reported_compilations,omitempty"`
	RetracesNL        int     `json:"retraces_not_listed,omitempty"`
}

type ModuleJSON struct {
	Name            string   `json:"name"`
	Names           []string `json:"names"`
	Family          string   `json:"family"`
	CompileRequests int      `json:"compile_requests"`
	Compilations    int      `json:"compilations"`
	CacheHits       int      `json:"cache_hits"`
	CacheMisses     int      `json:"cache_misses"`
	CompileSeconds  float64  `json:"compile_seconds"`
	// CompileSecondsEach is each of its compilations' seconds, in order, the first one included
	// (of the first ledger.MaxUnits).
	CompileSecondsEach []float64 `json:"compile_seconds_each"`
	Hashes             []string  `json:"hashes"`
	HashCount          int       `json:"hash_count"`
	Recompiled         bool      `json:"recompiled"`
	Recompilations     int       `json:"recompilations"`
	// OncePerMode counts its compilations for a mode it had not compiled for (ledger.PerMode),
	// which Recompilations does not.
	OncePerMode int      `json:"once_per_mode"`
	Eager       bool     `json:"eager"`
	Inputs      int      `json:"inputs"`
	Reasons     []string `json:"reasons"`
	Signatures  []string `json:"signatures"`
	// Undecided: why the log cannot tell its recompilation from set-up (omitted when it can).
	Undecided string `json:"undecided,omitempty"`
}

type EventJSON struct {
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

type FindingJSON struct {
	Severity string `json:"severity"`
	Kind     string `json:"kind"`
	Module   string `json:"module"`
	File     string `json:"file,omitempty"`
	Line     int    `json:"line,omitempty"`
	Message  string `json:"message"`
	Advice   string `json:"advice"`
}

type GateJSON struct {
	Passed       bool              `json:"passed"`
	Inconclusive bool              `json:"inconclusive"`
	Reason       string            `json:"reason"`
	Allowed      int               `json:"max_recompiles"`
	Failures     []GateFailureJSON `json:"failures"`
	FailureCount int               `json:"failure_count"`
	Problems     []string          `json:"problems"`
}

type GateFailureJSON struct {
	Module  string  `json:"module"`
	Family  string  `json:"family"`
	Hash    string  `json:"hash"`
	File    string  `json:"file"`
	Line    int     `json:"line"`
	Kind    string  `json:"kind"`
	Seconds float64 `json:"seconds"`
	Message string  `json:"message"`
	Reason  string  `json:"reason,omitempty"` // the framework's own explanation, when it gave one
	Site    string  `json:"site,omitempty"`   // the line of the program's own code, when known
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

// ScanDocument is the JSON document of a scan.
func ScanDocument(s *explain.Scan) ScanJSON {
	rep := s.Ledger
	doc := ScanJSON{Version: JSONVersion, Processes: rep.Processes, EventCount: s.EventCount,
		Inputs: inputsDocument(s), Modules: []ModuleJSON{}, Events: []EventJSON{}, Findings: []FindingJSON{}}
	for _, ev := range s.Events {
		doc.Events = append(doc.Events, EventJSON{Kind: string(ev.Kind), Producer: string(ev.Producer), File: ev.File, Line: ev.Line,
			Time: eventTime(ev), Module: ev.Module, Hash: ev.Hash, Path: ev.Path, DurationMS: ev.Duration.Milliseconds(),
			Detail: ev.Detail, Signature: ev.Signature, Reason: ev.Reason})
	}
	sm := rep.Summary
	doc.Summary = SummaryJSON{CompileRequests: sm.CompileRequests, Compilations: sm.Compilations, CacheHits: sm.CacheHits,
		CacheMisses: sm.CacheMisses, CacheWrites: sm.CacheWrites, ExecutableLoads: sm.ExecutableLoads,
		CompileSeconds: seconds(sm.CompileTime), TraceSeconds: seconds(sm.TraceTime), LowerSeconds: seconds(sm.LowerTime), LoadSeconds: seconds(sm.LoadTime), Recompilations: sm.Recompilations,
		AfterWarmup: sm.AfterWarmup, LoadsAfterWarmup: sm.LoadsAfterWarmup, Retraces: sm.Retraces,
		EagerCompilations: sm.EagerCompilations, UnreadRecords: sm.UnreadRecords, FamiliesNotListed: sm.FamiliesNotListed, CompilationsNL: sm.CompilationsNotListed,
		RecompilationsNL: sm.RecompilationsNotListed, Reported: sm.ReportedCompilations, RetracesNL: sm.RetracesNotListed}
	for _, m := range rep.Modules {
		doc.Modules = append(doc.Modules, ModuleJSON{Name: m.Name, Names: nonNil(m.Names), Family: m.Family,
			CompileRequests: m.CompileRequests, Compilations: m.Compilations, CacheHits: m.CacheHits, CacheMisses: m.CacheMisses,
			CompileSeconds: seconds(m.CompileTime), CompileSecondsEach: eachSeconds(m), Hashes: nonNil(m.Hashes), HashCount: m.HashCount, Recompiled: m.Recompiled,
			Recompilations: m.Recompilations, OncePerMode: oncePerMode(m), Eager: m.Eager && m.Compilations > 0, Inputs: m.Inputs,
			Reasons: nonNil(m.Reasons), Signatures: nonNil(m.Signatures), Undecided: undecidedOf(m)})
	}
	for _, f := range rep.Findings {
		doc.Findings = append(doc.Findings, FindingJSON{Severity: string(f.Severity), Kind: string(f.Kind), Module: f.Module,
			File: f.File, Line: f.Line, Message: f.Message, Advice: f.Advice})
	}
	doc.Verdict = VerdictDocument(s.Verdict)
	if s.Job != nil {
		r := RanksDocument(s.Job)
		doc.Ranks = &r
	}
	return doc
}

// inputsDocument is the inputs of a scan: each log with its size and warnings.
func inputsDocument(s *explain.Scan) []InputJSON {
	out := []InputJSON{}
	for _, in := range s.Inputs {
		ij := InputJSON{Path: in.Path, Lines: in.Lines, Bytes: in.Bytes, Events: in.Events, WarningCount: in.WarningCount,
			Warnings: []WarningJSON{}, ReadError: in.ReadError, Unread: in.Unread, UnreadLines: []UnreadLineJSON{}, Traces: []TraceInputJSON{}}
		for _, t := range in.Traces {
			ij.Traces = append(ij.Traces, TraceInputJSON{Path: t.Path, Lines: t.Lines, Bytes: t.Bytes, Events: t.Events})
		}
		for _, w := range in.Warnings {
			ij.Warnings = append(ij.Warnings, WarningJSON{Line: w.Line, Message: w.Message})
		}
		for _, u := range in.UnreadLines {
			ij.UnreadLines = append(ij.UnreadLines, UnreadLineJSON{Line: u.Line, Framework: u.Framework, Text: u.Text})
		}
		out = append(out, ij)
	}
	return out
}

// GateDocument is the gate object of guard's JSON document.
func GateDocument(g *gate.Result) *GateJSON {
	gj := &GateJSON{Passed: g.Passed, Inconclusive: g.Inconclusive, Reason: g.Reason, Allowed: g.Allowed,
		Failures: []GateFailureJSON{}, FailureCount: g.Compilations + g.LoadFailures + g.Divergences, Problems: nonNil(g.Problems)}
	for _, f := range g.Failures {
		gj.Failures = append(gj.Failures, GateFailureJSON{Module: f.Module, Family: f.Family, Hash: f.Hash, File: f.File,
			Line: f.Line, Kind: string(f.Kind), Seconds: seconds(f.Duration), Message: f.Message, Reason: f.Reason, Site: f.Site.String()})
	}
	return gj
}

// DiffJSON is the document of diff and explain.
type DiffJSON struct {
	Version  int           `json:"version"`
	Pairs    []PairJSON    `json:"pairs"`
	Unpaired UnpairedJSON  `json:"unpaired"`
	Families []FamilyJSON  `json:"families,omitempty"`
	Problems []ProblemJSON `json:"problems"`
	Warnings []string      `json:"warnings"`
	Verdict  *VerdictJSON  `json:"verdict,omitempty"`
}

type UnpairedJSON struct {
	A []string `json:"a"`
	B []string `json:"b"`
}

type PairJSON struct {
	A             string       `json:"a"`
	B             string       `json:"b"`
	Module        string       `json:"module"`
	Family        string       `json:"family"`
	PairedBy      string       `json:"paired_by"`
	Identical     bool         `json:"identical"`
	HashA         string       `json:"hash_a,omitempty"`
	HashB         string       `json:"hash_b,omitempty"`
	Matched       int          `json:"matched_instructions"`
	Added         int          `json:"added_instructions"`
	Removed       int          `json:"removed_instructions"`
	ChangeCount   int          `json:"change_count"`
	Changes       []ChangeJSON `json:"changes"`
	Causes        []CauseJSON  `json:"causes"`
	Notes         []string     `json:"notes"`
	TextDiff      string       `json:"text_diff,omitempty"`
	TextDiffNotes []string     `json:"text_diff_notes,omitempty"`
}

type ChangeJSON struct {
	Kind        string `json:"kind"`
	Computation string `json:"computation"`
	Instruction string `json:"instruction"`
	OpName      string `json:"op_name"`
	Source      string `json:"source,omitempty"`
	Attribute   string `json:"attribute,omitempty"`
	Parameter   *int   `json:"parameter,omitempty"`
	Old         string `json:"old"`
	New         string `json:"new"`
	LineA       int    `json:"line_a,omitempty"`
	LineB       int    `json:"line_b,omitempty"`
}

type CauseJSON struct {
	Kind         string   `json:"kind"`
	Summary      string   `json:"summary"`
	Evidence     []string `json:"evidence"`
	Advice       string   `json:"advice"`
	ExpectedOnce bool     `json:"expected_once,omitempty"`
	Merged       bool     `json:"merged,omitempty"`
}

func causeJSON(c diff.Cause) CauseJSON {
	return CauseJSON{Kind: string(c.Kind), Summary: c.Summary, Evidence: nonNil(c.Evidence), Advice: c.Advice, ExpectedOnce: c.Once, Merged: c.Merged}
}

// causeRef is the JSON of a cause a model may lack (nil for none).
func causeRef(c *diff.Cause) *CauseJSON {
	if c == nil {
		return nil
	}
	cj := causeJSON(*c)
	return &cj
}

// pairRef is the JSON of a compared pair a model may lack (nil for none).
func pairRef(p *explain.DiffPair) *PairJSON {
	if p == nil {
		return nil
	}
	pj := pairDocument(p, nil)
	return &pj
}

// stepRef is a training step in JSON: null when no line names one (-1).
func stepRef(step int) *int {
	if step < 0 {
		return nil
	}
	return &step
}

type FamilyJSON struct {
	Family          string   `json:"family"`
	Files           []string `json:"files"`
	LogCompilations int      `json:"log_compilations"`
	LogHashes       []string `json:"log_hashes"`
}

type ProblemJSON struct {
	Path    string `json:"path"`
	Line    int    `json:"line,omitempty"`
	Col     int    `json:"col,omitempty"`
	Message string `json:"message"`
}

// DiffDocument is the JSON document of a diff or explain.
func DiffDocument(d *explain.Diff) DiffJSON { return diffDocument(d, d.Verdict) }

// diffDocument is DiffDocument with the verdict whose advice the pairs' causes say (a run's is its
// scan's: the run's dump comparisons carry none of their own).
func diffDocument(d *explain.Diff, v *verdict.Result) DiffJSON {
	doc := DiffJSON{Version: JSONVersion, Pairs: []PairJSON{}, Unpaired: UnpairedJSON{A: nonNil(d.UnpairedA), B: nonNil(d.UnpairedB)},
		Problems: []ProblemJSON{}, Warnings: nonNil(d.Warnings)}
	for _, p := range d.Pairs {
		doc.Pairs = append(doc.Pairs, pairDocument(p, v))
	}
	for _, f := range d.Families {
		doc.Families = append(doc.Families, FamilyJSON{Family: f.Family, Files: nonNil(f.Files), LogCompilations: f.LogCompilations,
			LogHashes: nonNil(f.LogHashes)})
	}
	for _, p := range d.Problems {
		doc.Problems = append(doc.Problems, ProblemJSON{Path: p.Path, Line: p.Line, Col: p.Col, Message: p.Message})
	}
	doc.Verdict = VerdictDocument(d.Verdict)
	return doc
}

func pairDocument(p *explain.DiffPair, v *verdict.Result) PairJSON {
	r := p.Result
	pj := PairJSON{A: p.A.Path, B: p.B.Path, Module: p.B.ModuleName, Family: p.Label(), PairedBy: string(p.PairedBy),
		Identical: r.Identical, HashA: p.HashA, HashB: p.HashB, Matched: r.Matched, Added: r.Added, Removed: r.Removed,
		ChangeCount: r.ChangeCount, Changes: []ChangeJSON{}, Causes: []CauseJSON{}, Notes: nonNil(r.Notes)}
	for _, ch := range r.Changes {
		cj := ChangeJSON{Kind: string(ch.Kind), Computation: ch.Computation, Instruction: ch.Instruction, OpName: ch.OpName,
			Source: ch.Source, Attribute: ch.Attr, Old: ch.Old, New: ch.New, LineA: ch.LineA, LineB: ch.LineB}
		if ch.EntryParam() {
			n := ch.Param
			cj.Parameter = &n
		}
		pj.Changes = append(pj.Changes, cj)
	}
	for _, c := range r.Causes {
		cj := causeJSON(c)
		if adv := v.CauseAdvice(p.Label(), c.Kind); adv != "" {
			cj.Advice = adv
		}
		pj.Causes = append(pj.Causes, cj)
	}
	if p.Text != nil {
		pj.TextDiff, pj.TextDiffNotes = p.Text.Text, p.Text.Notes
	}
	return pj
}

// diff writes the document of a diff or explain pair by pair: 100 000 pairs are never one
// document in memory. The bytes are those writeJSON(DiffDocument(d)) would write.
func writeDiffJSON(w io.Writer, d *explain.Diff) error {
	doc := DiffDocument(&explain.Diff{Command: d.Command, UnpairedA: d.UnpairedA, UnpairedB: d.UnpairedB, Families: d.Families,
		Problems: d.Problems, Warnings: d.Warnings, Verdict: d.Verdict})
	if len(d.Pairs) == 0 {
		return writeJSON(w, doc)
	}
	rest, err := marshalIndent(doc, "")
	if err != nil {
		return err
	}
	// rest is {"version": 1, "pairs": [], ...}: the pairs go between its brackets
	head, tail, ok := bytes.Cut(rest, []byte(`"pairs": []`))
	if !ok {
		return fmt.Errorf("json: no pairs in the diff document")
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	bw.Write(head)
	bw.WriteString("\"pairs\": [\n")
	var buf bytes.Buffer // one buffer and encoder for every pair
	enc := json.NewEncoder(&buf)
	enc.SetIndent("    ", "  ")
	enc.SetEscapeHTML(false)
	for i, p := range d.Pairs {
		buf.Reset()
		if err := enc.Encode(pairDocument(p, d.Verdict)); err != nil {
			return err
		}
		bw.WriteString("    ")
		bw.Write(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
		if i < len(d.Pairs)-1 {
			bw.WriteByte(',')
		}
		bw.WriteByte('\n')
	}
	bw.WriteString("  ]")
	bw.Write(tail)
	bw.WriteByte('\n')
	return bw.Flush()
}

// marshalIndent is v as writeJSON writes it, at a depth whose lines start with prefix, without
// the final newline.
func marshalIndent(v any, prefix string) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent(prefix, "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// CacheJSON is the document of recomp cache.
type CacheJSON struct {
	Version       int                     `json:"version"`
	Dirs          []string                `json:"dirs"`
	Entries       int                     `json:"entries"`
	Bytes         int64                   `json:"bytes"`
	ByKind        map[cache.EntryKind]int `json:"by_kind"`
	UnusedEntries int                     `json:"unused_entries"`
	UnusedBytes   int64                   `json:"unused_bytes"`
	Foreign       int                     `json:"foreign_files"`
	Listed        []CacheEntryJSON        `json:"listed"`
	MissingMisses []string                `json:"missed_and_absent"`
	Warnings      []string                `json:"warnings"`
	Prune         string                  `json:"prune_command"`
	LogsGiven     bool                    `json:"logs_given"`
	Damaged       int                     `json:"damaged_entries"`
	// Missed are the keys the logs missed, each held against the cache's nearest entry.
	Missed  []CacheComparisonJSON `json:"missed"`
	Against *CacheAgainstJSON     `json:"against,omitempty"`
}

type CacheEntryJSON struct {
	Path    string          `json:"path"`
	Kind    string          `json:"kind"`
	Bytes   int64           `json:"bytes"`
	ModTime string          `json:"mtime"`
	Status  string          `json:"status"`
	Program string          `json:"program"`
	State   string          `json:"state"`
	Key     string          `json:"key"`
	Parts   []CachePartJSON `json:"parts"`
}

// CachePartJSON is one part of a cache key: in an entry (value), or side by side (a, b).
type CachePartJSON struct {
	Part  string `json:"part"`
	Name  string `json:"name"`
	Value string `json:"value,omitempty"`
	A     string `json:"a,omitempty"`
	B     string `json:"b,omitempty"`
}

// CacheAgainstJSON is the cache held against the one inventoried (--against).
type CacheAgainstJSON struct {
	Dirs    []string              `json:"dirs"`
	Held    int                   `json:"held"`
	Entries []CacheComparisonJSON `json:"entries"`
}

// CacheComparisonJSON is one entry held against the other cache.
type CacheComparisonJSON struct {
	Entry   string          `json:"entry"`
	Kind    string          `json:"kind"`
	Against string          `json:"against,omitempty"`
	InA     bool            `json:"in_a"`
	Differs []string        `json:"differs"`
	Parts   []CachePartJSON `json:"parts"`
	Summary string          `json:"summary"`
	Remedy  string          `json:"remedy"`
}

// entryStatus says what the logs did with an entry ("" without logs).
func entryStatus(e *cache.CacheEntry, logs bool) string {
	switch {
	case !logs:
		return ""
	case e.Hit:
		return "hit"
	case e.Unreadable != "":
		return "found, not readable (" + e.Unreadable + "): compiled and written again"
	case e.Written:
		return "written"
	case e.Missed:
		return "missed, then written"
	case e.Kind == cache.EntryOther:
		return "not a cache entry"
	}
	return "untouched"
}

// PruneCommand is the rm command that would remove the recognised entries no log touched
// (empty without logs or when there are none). recomp never runs it.
func PruneCommand(c *Cache) string {
	if !c.LogsGiven {
		return ""
	}
	cmd := ""
	for _, e := range c.Inventory.Entries {
		if e.Prunable() {
			cmd += " " + ShellQuote(filepath.Join(e.Dir, e.Name))
		}
	}
	if cmd == "" {
		return ""
	}
	return "rm --" + cmd
}

// CacheDocument is the JSON document of a cache inventory.
func CacheDocument(c *Cache) CacheJSON {
	doc := cacheDocument(c)
	for _, e := range c.Inventory.Entries {
		doc.Listed = append(doc.Listed, cacheEntryDocument(e, c.LogsGiven))
	}
	return doc
}

// writeCacheJSON writes the document of a cache inventory entry by entry: the listed entries'
// key parts (some 400 each for Inductor's) are never one document in memory. The bytes are
// those writeJSON(CacheDocument(c)) would write.
func writeCacheJSON(w io.Writer, c *Cache) error {
	doc := cacheDocument(c)
	if len(c.Inventory.Entries) == 0 {
		return writeJSON(w, doc)
	}
	rest, err := marshalIndent(doc, "")
	if err != nil {
		return err
	}
	// rest is {"version": 2, ..., "listed": [], ...}: the entries go between its brackets
	head, tail, ok := bytes.Cut(rest, []byte(`"listed": []`))
	if !ok {
		return fmt.Errorf("json: no listed entries in the cache document")
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	bw.Write(head)
	bw.WriteString("\"listed\": [\n")
	var buf bytes.Buffer // one buffer and encoder for every entry
	var out []byte
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	for i, e := range c.Inventory.Entries {
		buf.Reset()
		if err := enc.Encode(cacheEntryDocument(e, c.LogsGiven)); err != nil {
			return err
		}
		bw.WriteString("    ")
		out = indentJSONAt(out[:0], bytes.TrimSuffix(buf.Bytes(), []byte("\n")), "  ", 2)
		bw.Write(out)
		if i < len(c.Inventory.Entries)-1 {
			bw.WriteByte(',')
		}
		bw.WriteByte('\n')
	}
	bw.WriteString("  ]")
	bw.Write(tail)
	bw.WriteByte('\n')
	return bw.Flush()
}

// cacheDocument is the document of a cache inventory without its listed entries.
func cacheDocument(c *Cache) CacheJSON {
	inv := c.Inventory
	doc := CacheJSON{Version: JSONVersion, Dirs: nonNil(c.Dirs), Entries: inv.Count, Bytes: inv.Bytes, ByKind: inv.ByKind,
		UnusedEntries: inv.Unused, UnusedBytes: inv.UnusedBytes, Foreign: inv.Foreign, Listed: []CacheEntryJSON{},
		MissingMisses: nonNil(inv.MissingMisses), Warnings: nonNil(inv.Warnings), Prune: PruneCommand(c), LogsGiven: c.LogsGiven}
	doc.Damaged = inv.Damaged
	doc.Missed = []CacheComparisonJSON{}
	for _, k := range inv.Missed {
		doc.Missed = append(doc.Missed, comparisonDocument(k))
	}
	if cmp := c.Against; cmp != nil {
		doc.Against = &CacheAgainstJSON{Dirs: nonNil(c.AgainstDirs), Held: cmp.Held, Entries: []CacheComparisonJSON{}}
		for _, k := range cmp.Entries {
			doc.Against.Entries = append(doc.Against.Entries, comparisonDocument(k))
		}
	}
	return doc
}

// comparisonDocument is one key held against another's entry.
func comparisonDocument(k *cache.KeyComparison) CacheComparisonJSON {
	j := CacheComparisonJSON{Entry: k.B, Kind: string(k.Kind), Against: k.A, InA: k.InA, Differs: []string{}, Parts: []CachePartJSON{},
		Summary: k.Summary, Remedy: k.Remedy}
	for _, d := range k.Differs {
		j.Differs = append(j.Differs, d.String())
	}
	for _, pp := range k.Parts {
		j.Parts = append(j.Parts, CachePartJSON{Part: pp.Part.String(), Name: pp.Name, A: pp.A, B: pp.B})
	}
	return j
}

// cacheEntryDocument is one listed entry of a cache inventory.
func cacheEntryDocument(e *cache.CacheEntry, logs bool) CacheEntryJSON {
	j := CacheEntryJSON{Path: filepath.Join(e.Dir, e.Name), Kind: string(e.Kind), Bytes: e.Size,
		ModTime: e.ModTime.UTC().Format(time.RFC3339), Status: entryStatus(e, logs), Program: e.Graph, State: e.State, Key: e.Key,
		Parts: make([]CachePartJSON, 0, len(e.Parts))}
	for _, f := range e.Parts {
		j.Parts = append(j.Parts, CachePartJSON{Part: f.Part.String(), Name: f.Name, Value: f.Value})
	}
	return j
}

// undecidedOf is why the log cannot tell a module's recompilation from set-up ("" when it can).
func undecidedOf(m *ledger.Module) string {
	for _, u := range m.Units {
		if u.Undecided != "" {
			return u.Undecided
		}
	}
	return ""
}

// eachSeconds is each compilation's seconds of a family, in order ([] for none).
func eachSeconds(m *ledger.Module) []float64 {
	out := []float64{}
	for _, u := range m.Units {
		if u.Compiled {
			out = append(out, seconds(u.Duration))
		}
	}
	return out
}

// oncePerMode counts a program's compilations for a mode it had not compiled for.
func oncePerMode(m *ledger.Module) int {
	n := 0
	for _, u := range m.Units {
		if u.Settled == ledger.PerMode {
			n++
		}
	}
	return n
}
