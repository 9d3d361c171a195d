package logscan

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
)

// Framework is what a Scanner needs to read one stack's messages: the literals its lines
// contain (the prefilter's anchors), its message rules, the Python loggers it logs with, and
// the state it follows within one process. Each stack declares one in its unit under
// frameworks/; a Grammar puts them together.
type Framework struct {
	Name string
	// Anchors are literals of which every line a rule of the framework reads contains at least
	// one: lines without any anchor of any framework are never parsed.
	Anchors []string
	// Heads are how the messages its rules recognise only at the start of a message begin: a
	// record whose layout logscan does not know is searched for them.
	Heads []string
	// Begins are literals that the messages beginning a compilation (or a request for one)
	// hold: a log whose unterminated last line holds one, or ends with the first 5 or more bytes
	// of one, was cut inside the record that starts a compilation (Stats.CutBegin).
	Begins []string
	// Loggers map Python logger names (a name and its children: "jax" covers "jax._src.pxla")
	// to the producer whose messages they carry.
	Loggers map[string]Producer
	// DropRepeats says a program may print each record of these producers twice (two logging
	// handlers): an event equal to the one just before it, a few lines above, is dropped.
	DropRepeats []Producer
	// Rules are tried in order on each message: the first whose literal test passes decides
	// for this framework.
	Rules []Rule
	// NewState makes the state the framework follows within one process (nil: none); rules
	// reach it with Context.State.
	NewState func() any
	// Finish is called for each process at the end of the input, to emit what is still open.
	Finish func(c *Context)
	// Whole says each of its records is one whole line (a trace file's JSON records): a
	// Grammar of such frameworks alone reads each line as one record, never searching it for
	// records glued on it.
	Whole bool
	// Vocabulary is how the framework's compile records read, whatever their release: a line
	// that no rule read and that uses it is counted as a compile record recomp could not read
	// (Stats.Unread), never as silence. A unit declares it in its framework.Framework.
	Vocabulary Vocabulary
}

// Vocabulary is the words of a framework's compile records. A message is one of its records
// when it holds one of Subjects (what is compiled: "jit(", "XLA", "HLO", "neff") and one of
// Actions (what is done to it: "ompil", "retrac"): two words, so that a program's own "Compiling
// the model…" is not taken for one. It is tested on lines the prefilter finds (they hold an
// anchor of some framework, or one of Anchors) and no rule of any framework read, and on the
// other lines that hold one of any framework's Sweep words (then the action must be a word of
// prose). All literals are case-sensitive.
type Vocabulary struct {
	// Anchors are more prefilter literals for records that hold none of the rules' anchors
	// (XLA's "Very slow compile?"): each at least as long as the grammar's shortest anchor,
	// which sets how far the prefilter skips.
	Anchors  []string
	Subjects []string
	Actions  []string
	// Sweep are word forms of Actions in prose ("ompiled", "ache hit"; not "ompiler": every TF
	// source path holds "tensorflow/compiler/") that the prefilter also looks for, as a second
	// class of literal in the same pass: a line that holds one and no anchor is tested against
	// every framework's vocabulary (Scanner.sweepRegion), so that a release's new wording with no
	// anchor of any rule is seen. Each at least 2 bytes; words common in the frameworks' logs make
	// the scan slower.
	Sweep []string
	// Known are literals of the framework's messages that use its vocabulary but that recomp
	// reads on purpose as nothing to count (a cache key's intermediate hash, a profiler's running
	// total, a warning about a setting): a message holding one of any framework's is read.
	Known []string
}

// Uses says whether msg holds one of the vocabulary's subjects and one of its actions.
func (v *Vocabulary) Uses(msg string) bool {
	return containsAny(msg, v.Subjects) && containsAny(msg, v.Actions)
}

// usesWords is Uses where an action must be a word of prose, not part of a name: the word
// holding it (its run of letters) is not joined to a name or path by "_", "::", "/" or ".", not camelCase
// ("CompileFunction", "_XlaMustCompile"), not an agent noun ("compiler", "tracer"), and a
// "trac" action is a trace ("traced", "retracing"; not "extract").
func (v *Vocabulary) usesWords(msg string) bool {
	if !containsAny(msg, v.Subjects) {
		return false
	}
	for _, a := range v.Actions {
		for from := 0; ; {
			i := strings.Index(msg[from:], a)
			if i < 0 {
				break
			}
			from += i + len(a)
			if proseWord(msg, from-len(a), a) {
				return true
			}
		}
	}
	return false
}

// proseWord says whether the action a found at msg[at:] lies in a word of prose (usesWords).
func proseWord(msg string, at int, a string) bool {
	start, end := at, at+len(a)
	for start > 0 && isLetter(msg[start-1]) {
		start--
	}
	for end < len(msg) && isLetter(msg[end]) {
		end++
	}
	if start > 0 && strings.IndexByte("_:/.", msg[start-1]) >= 0 || end < len(msg) && (msg[end] == '_' || msg[end] == '/') {
		return false // a name or a path's part ("/root/.cache/…")
	}
	word := msg[start:end]
	upper := strings.ToUpper(word) == word
	for k := 1; k < len(word) && !upper; k++ {
		if word[k] >= 'A' && word[k] <= 'Z' {
			return false // camelCase: a name
		}
	}
	lower := strings.ToLower(word)
	if strings.HasSuffix(lower, "er") || strings.HasSuffix(lower, "ers") {
		return false
	}
	if strings.HasSuffix(a, "trac") || strings.HasSuffix(a, "TRAC") {
		if end := at + len(a); end >= len(msg) || msg[end]|0x20 != 'e' && msg[end]|0x20 != 'i' {
			return false
		}
	}
	return true
}

func isLetter(b byte) bool { return b|0x20 >= 'a' && b|0x20 <= 'z' }

func containsAny(s string, words []string) bool {
	for _, w := range words {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

// A Rule recognises one message. Prefix (the message starts with it) and Contains (the message
// holds it) are the cheap literal test; Handle parses the message and reports whether it was
// one after all. With ByEffect, a message is recognised only when Handle emitted an event or
// holds a record, whatever it returns. With ProducerFromLayout, the producer the record's
// layout names (a Poplar component, a TF source path, a Python logger) replaces the one the
// rule gives its events.
type Rule struct {
	Prefix, Contains   string
	ByEffect           bool
	ProducerFromLayout bool
	Handle             func(c *Context, msg string) bool
}

// Grammar is the frameworks a Scanner reads, put together once: their rules in order, and the
// prefilter built from all their anchors. It is safe for concurrent use by many Scanners.
type Grammar struct {
	frameworks  []*Framework
	filter      *prefilter // the anchors' and (where a framework has a vocabulary) the sweep words'
	anchors     []string
	heads       []string
	begins      []string
	loggers     []loggerName
	dropRepeats map[Producer]bool
	known       []string // every framework's Vocabulary.Known
	whole       bool     // every framework's records are whole lines (Framework.Whole)
	// rulePairs are, per framework and rule, the pairs of its Contains literal (litPairs).
	rulePairs [][][]uint16
}

type loggerName struct {
	name     string
	producer Producer
}

// NewGrammar puts frameworks together, in the order their rules are tried.
func NewGrammar(frameworks ...*Framework) (*Grammar, error) {
	g := &Grammar{frameworks: frameworks, dropRepeats: map[Producer]bool{}, whole: len(frameworks) > 0}
	seen := map[string]bool{}
	for _, f := range frameworks {
		g.whole = g.whole && f.Whole
		for _, a := range slices.Concat(f.Anchors, f.Vocabulary.Anchors) {
			if len(a) < 2 {
				return nil, fmt.Errorf("framework %s: anchor %q is shorter than 2 bytes", f.Name, a)
			}
			if !seen[a] {
				seen[a] = true
				g.anchors = append(g.anchors, a)
			}
		}
		for _, h := range f.Heads {
			if !seen["head:"+h] {
				seen["head:"+h] = true
				g.heads = append(g.heads, h)
			}
		}
		g.begins = append(g.begins, f.Begins...)
		for _, name := range slices.Sorted(maps.Keys(f.Loggers)) {
			g.loggers = append(g.loggers, loggerName{name, f.Loggers[name]})
		}
		for _, p := range f.DropRepeats {
			g.dropRepeats[p] = true
		}
	}
	if len(g.anchors) == 0 {
		return nil, fmt.Errorf("no anchors: a grammar needs at least one framework")
	}
	var sweep []string
	for _, f := range frameworks {
		g.known = append(g.known, f.Vocabulary.Known...)
		for _, w := range f.Vocabulary.Sweep {
			if len(w) < 2 {
				return nil, fmt.Errorf("framework %s: sweep word %q is shorter than 2 bytes", f.Name, w)
			}
			if !seen["sweep:"+w] {
				seen["sweep:"+w] = true
				sweep = append(sweep, w)
			}
		}
		pairs := make([][]uint16, len(f.Rules))
		for j, r := range f.Rules {
			pairs[j] = litPairs(r.Contains)
		}
		g.rulePairs = append(g.rulePairs, pairs)
	}
	g.filter = newPrefilter(g.anchors, sweep)
	return g, nil
}

// beginsCompilation says whether line, the unterminated last line of a log, is a record that
// begins a compilation, cut: it holds a Begins literal, or ends with the start of one.
func (g *Grammar) beginsCompilation(line []byte) bool {
	const least = 5
	for _, b := range g.begins {
		if bytes.Contains(line, []byte(b)) {
			return true
		}
		for n := min(len(b)-1, len(line)); n >= least; n-- {
			if bytes.HasSuffix(line, []byte(b[:n])) {
				return true
			}
		}
	}
	return false
}

// Anchors returns the prefilter's literals (a copy), for tools that compare recomp with grep on
// the same patterns.
func (g *Grammar) Anchors() []string { return append([]string(nil), g.anchors...) }

// loggerProducer is the producer of a Python logger's records, "" when no framework owns it.
func (g *Grammar) loggerProducer(name string) Producer {
	for _, l := range g.loggers {
		if name == l.name || strings.HasPrefix(name, l.name+".") {
			return l.producer
		}
	}
	return ""
}

// Context is what a rule's handler works with: the record being read (its header and line)
// and the framework's state in the process the record belongs to. It is valid only during the
// call it is given to (the Scanner reuses it for the next record): a handler that emits for
// this record later keeps its Mark.
type Context struct {
	s    *Scanner
	fw   int // index of the framework in the grammar
	h    header
	line int
}

// Line is the number of the line the record starts on.
func (c *Context) Line() int { return c.line }

// File is the name of the input.
func (c *Context) File() string { return c.s.name }

// Time is the record's timestamp (zero when it has none); DateKnown says whether its date is
// meaningful.
func (c *Context) Time() (t time.Time, dateKnown bool, stamp string) {
	return c.h.t, c.h.dateKnown, c.h.stamp
}

// State is the framework's state in the current process (from Framework.NewState).
func (c *Context) State() any {
	p := c.s.procState
	if p.fwState == nil {
		p.fwState = make([]any, len(c.s.g.frameworks))
	}
	if p.fwState[c.fw] == nil {
		if nf := c.s.g.frameworks[c.fw].NewState; nf != nil {
			p.fwState[c.fw] = nf()
		}
	}
	return p.fwState[c.fw]
}

// Of is a Context for the same record with the state of the framework named name (a stack
// whose records another explains: torch.compile's dynamo in front of PyTorch/XLA), nil when the
// grammar has no such framework. Like c, it is valid only during the call c was given to.
func (c *Context) Of(name string) *Context {
	for i, f := range c.s.g.frameworks {
		if f.Name == name {
			o := *c
			o.fw = i
			return &o
		}
	}
	return nil
}

// Emit adds an event for the current record: its file, line, rank and time are the record's,
// and the record's layout names its producer when it does.
func (c *Context) Emit(ev Event) { c.s.emit(c.h, c.line, ev) }

// Mark is a record's place (its header and line), kept to emit an event for it later.
type Mark struct {
	h    header
	line int
}

// Mark returns the current record's place.
func (c *Context) Mark() Mark { return Mark{c.h, c.line} }

// EmitAt adds an event for the record at m, as Emit does for the current one.
func (c *Context) EmitAt(m Mark, ev Event) { c.s.emit(m.h, m.line, ev) }

// Append adds an event as it is (file, line and time already set), with the current rank.
func (c *Context) Append(ev Event) {
	ev.Rank = c.s.rank
	c.s.pending = append(c.s.pending, ev)
	c.s.last, c.s.hasLast = ev, true
}

// Hold starts a record that continues on the lines after this one: each later line of the same
// process that accept takes (orchestrator prefixes removed) is added to it, and done is called
// with all its lines (the first is first) at the first line that does not continue it.
func (c *Context) Hold(first string, accept func(line []byte) bool, done func(c *Context, lines []string)) {
	c.HoldKeeping(first, accept, nil, done)
}

// HoldKeeping is Hold for a record that may be longer than the lines a held record keeps: past
// them, the lines keep says carry what the record is about are kept still (a few; Elided stands
// for the lines left out before each).
func (c *Context) HoldKeeping(first string, accept func(line []byte) bool, keep func(line string) bool, done func(c *Context, lines []string)) {
	s := c.s
	s.flushHeld()
	s.held = &heldRecord{h: c.h, line: c.line, lines: []string{first}, accept: accept, keep: keep, done: done, fw: c.fw}
}

// Warn records a warning about a line of the input.
func (c *Context) Warn(line int, format string, args ...any) { c.s.warn(line, format, args...) }
