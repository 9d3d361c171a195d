package logscan

import (
	"bytes"
	"encoding/json"
	"strings"
	"time"

	"github.com/recomp/recomp/internal/lazyre"
)

// Some records span several physical lines: a JAX tracing-cache-miss explanation, a TF
// "Creating new FuncGraph" with its parameters, a PyTorch/XLA metric and its values, and any
// record that rich.logging wrapped. The first line starts a held record (Context.Hold); the
// lines that belong to it are read by continueHeld, whether or not they pass the prefilter, and
// the record is classified as a whole when a line that does not belong to it comes.

type heldRecord struct {
	h      header
	line   int
	lines  []string
	accept func(line []byte) bool           // whether a line continues the record
	done   func(c *Context, lines []string) // the record is complete
	fw     int                              // the framework whose rule holds it
	rich   bool                             // a rich.logging record: its lines are trimmed on both sides
	keep   func(line string) bool           // past maxExplanation, the lines still kept (nil: none)
	kept   int                              // lines kept past maxExplanation
	gap    bool                             // lines were left out since the last one kept
}

// maxExplanation bounds the lines kept from a multi-line record; the rest are read, not kept.
// A record is held in memory until it ends, and its text becomes the reason of its event (a
// unit's Why, kept for every compilation): a framework's explanation that prints a whole data
// structure (flax nnx's GraphDef, one node per module of the model, over a hundred lines for a
// small model) would otherwise cost its size for each compilation.
const maxExplanation = 40

// maxKeptPast bounds the lines kept past maxExplanation, those the rule holding the record
// names as carrying what changed (HoldKeeping): JAX's pytree-metadata explanation names the
// attributes that changed on two lines (now, before) and the end of its sentence on a third,
// after the long GraphDef it prints for each.
const maxKeptPast = 8

// Elided is the line that stands for lines of a held record left out between two kept.
const Elided = "…"

// accepts says whether a line (orchestrator prefixes removed) continues the held record: a
// blank line never does.
func (r *heldRecord) accepts(l []byte) bool {
	if len(bytes.TrimLeft(l, " ")) == 0 {
		return false
	}
	return r.accept(l)
}

// Indented reports whether a line is indented by at least n spaces: how most frameworks
// continue a record on the lines after it.
func Indented(l []byte, n int) bool {
	spaces := len(l) - len(bytes.TrimLeft(l, " "))
	return spaces >= n && spaces < len(l)
}

func (r *heldRecord) add(l string) {
	switch {
	case len(r.lines) < maxExplanation:
		r.lines = append(r.lines, l)
	case r.keep != nil && r.kept < maxKeptPast && r.keep(l):
		if r.gap {
			r.lines = append(r.lines, Elided)
		}
		r.lines = append(r.lines, l)
		r.kept++
		r.gap = false
	default:
		r.gap = true
	}
}

// continueHeld reads one line while some rank holds a multi-line record, and reports whether
// the line was a continuation of its rank's record (added to it). A line of a rank that holds
// a record and does not continue it completes that record; lines of other ranks leave it
// waiting, at most maxHeldIdle lines.
func (s *Scanner) continueHeld(line []byte, candidate bool) bool {
	if len(line) > 0 && line[len(line)-1] == '\r' {
		line = line[:len(line)-1]
	}
	c, rank := s.cleanQuiet(line)
	l, h := stripOrchestrator(c)
	if h.rank != "" {
		rank = h.rank
	}
	if p := s.procs[rank]; p != nil && p.held != nil {
		s.use(rank)
		p.heldIdle = 0
		if p.held.accepts(l) {
			if p.held.rich {
				p.held.add(strings.TrimSpace(string(l)))
			} else {
				p.held.add(strings.TrimRight(string(l), " \t"))
			}
			return true
		}
		s.flushHeld()
		return false
	}
	if len(s.procs) > 1 {
		for _, r := range s.rankOrder() {
			if p := s.procs[r]; p.held != nil && r != rank {
				if p.heldIdle++; p.heldIdle > maxHeldIdle {
					s.use(r)
					s.flushHeld()
				}
			}
		}
	}
	return false
}

// maxHeldIdle bounds the lines of other ranks a rank's multi-line record waits through.
const maxHeldIdle = 256

// cleanQuiet is clean without warnings (the line is not a candidate of its own); it returns the
// rank an mpirun tag named.
func (s *Scanner) cleanQuiet(line []byte) ([]byte, string) {
	if bytes.IndexByte(line, 0x1b) >= 0 {
		line = reANSI.ReplaceAll(line, nil)
	}
	rank := ""
	if bytes.Contains(line, []byte("]<std")) {
		line, rank = stripMPITags(line)
	}
	return line, rank
}

// flushHeld completes the held record.
func (s *Scanner) flushHeld() {
	r := s.held
	if r == nil {
		return
	}
	s.held = nil
	r.done(s.context(r.fw, r.h, r.line), r.lines)
	s.depth--
}

// rich.logging's RichHandler writes "[HH:MM:SS] LEVEL    message    file.py:NNN", with the time
// left out when it repeats, and wraps the message onto lines indented to its column.
var (
	reRichStart  = lazyre.New(`^(?:\[(\d{2}:\d{2}:\d{2})\]| {10}) (?:DEBUG|INFO|WARNING|ERROR|CRITICAL) +`)
	reRichSource = lazyre.New(`\s+[\w.\-]+\.py:\d+\s*$`)
)

// richRecord holds a record written by rich.logging.
func (s *Scanner) richRecord(seg []byte, outer header, lineNo int) bool {
	if len(seg) == 0 || seg[0] != '[' && seg[0] != ' ' {
		return false // what reRichStart needs first, without the regexp engine's set-up
	}
	m := reRichStart.FindSubmatchIndex(seg)
	if m == nil {
		return false
	}
	h := outer
	if m[2] >= 0 {
		clock := string(seg[m[2]:m[3]])
		if t, err := time.Parse("15:04:05", clock); err == nil && h.stamp == "" {
			h.stamp, h.t = clock, t
		}
	}
	msg := reRichSource.ReplaceAllString(string(seg[m[1]:]), "")
	indent := m[1]
	s.flushHeld()
	s.held = &heldRecord{h: h, line: lineNo, lines: []string{strings.TrimSpace(msg)}, rich: true, fw: -1,
		accept: func(l []byte) bool { return Indented(l, indent) },
		done: func(c *Context, lines []string) {
			if msg := strings.Join(lines, " "); !s.classify(msg, c.h, c.line) {
				s.unread(msg, c.line)
			}
			s.flushHeld() // the wrapped record is complete
		}}
	return true
}

// jsonMessageKeys are where JSON log records keep their message, in order of preference
// (Python JSON formatters, structlog, Docker's json-file driver, Fluentd, Bunyan).
var jsonMessageKeys = []string{"message", "msg", "log", "text", "event", "@message", "body"}
var jsonTimeKeys = []string{"ts", "time", "timestamp", "@timestamp", "asctime", "t"}

// jsonRecord reads a line that is one JSON object: its message is scanned as if it had been
// printed on its own (a message of several lines, as its lines).
func (s *Scanner) jsonRecord(seg []byte, outer header, lineNo int) bool {
	t := bytes.TrimSpace(seg)
	if len(t) < 2 || t[0] != '{' || t[len(t)-1] != '}' {
		return false
	}
	var rec map[string]any
	if err := json.Unmarshal(t, &rec); err != nil {
		return false
	}
	var msg string
	for _, k := range jsonMessageKeys {
		if v, ok := rec[k].(string); ok {
			msg = v
			break
		}
	}
	if msg == "" {
		return false
	}
	h := outer
	for _, k := range jsonTimeKeys {
		if v, ok := rec[k].(string); ok {
			if tm, err := time.Parse(time.RFC3339Nano, v); err == nil {
				h.stamp, h.t, h.dateKnown = v, tm.UTC(), true
				break
			}
		}
	}
	lines := strings.Split(strings.TrimRight(msg, "\n"), "\n")
	s.parseRecord([]byte(lines[0]), h, lineNo)
	for _, l := range lines[1:] {
		b, _ := stripOrchestrator([]byte(l))
		if s.held != nil && s.held.accepts(b) {
			s.held.add(strings.TrimRight(l, " \t"))
			continue
		}
		s.parseRecord([]byte(l), h, lineNo)
	}
	s.flushHeld() // the record is complete
	return true
}
