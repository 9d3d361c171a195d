package logscan

import (
	"regexp"
)

// Message patterns, from the format strings in the producers' sources (see
// ../shared/docs/log-formats.md). They run only on records that passed the anchor prefilter.
var (
	reXLABegin     = regexp.MustCompile(`Begin XLA compilation: (\S+) +\(Hash: (0x[0-9a-fA-F]+)\)`)
	reXLAEnd       = regexp.MustCompile(`End XLA compilation: (\S+) +\(Hash: (0x[0-9a-fA-F]+)\)`)
	reTFLoaded     = regexp.MustCompile(`Loaded (\S+) from (\S+\.(?:poplar_exec|xla_engine))`)
	reTFMiss       = regexp.MustCompile(`Couldn't find (\S+\.(?:poplar_exec|xla_engine)) in executable cache`)
	reTFPrecompile = regexp.MustCompile(`A pre-compiled Poplar program has been saved to (\S+)`)
	reEngineBegin  = regexp.MustCompile(`Begin compiling Poplar engine (\S+)`)
	reNotYet       = regexp.MustCompile(`Module (\S+) has not been compiled yet \(Hash: (0x[0-9a-fA-F]+)\)`)
	reSkip         = regexp.MustCompile(`Skip engine compilation - (.+?)\.?$`)
	reBarHeader    = regexp.MustCompile(`^Compiling module (\S+):$`)
	reTFBar        = regexp.MustCompile(`\[[# ]{50}\] (\d+)% Compilation Finished \[Elapsed: (\d+):(\d{2}):(\d{2})\.(\d)\]`)
	rePhaseStart   = regexp.MustCompile(`^Starting phase: (.+)$`)
	rePhaseEnd     = regexp.MustCompile(`^Ending phase: (.+?) \(duration (\d+) ms; diff RSS: ([-+0-9.eE]+) MB(?:; total RSS: ([-+0-9.eE]+) MB)?\)`)
	rePopARTStart  = regexp.MustCompile(`^Starting (?:Engine )?compilation$`)
	rePopARTHit    = regexp.MustCompile(`Loading serialized PopART executable from (.+)$`)
	rePopARTFail   = regexp.MustCompile(`Failed to load cached PopART executable from (\S+?):? `)
	rePopARTWrite  = regexp.MustCompile(`Saving serialized Executablex to (.+)$`)
	rePTBar        = regexp.MustCompile(`Graph compilation: *(\d+)%\|[^|]*\| *(\d+)/(\d+) \[([\d:]+)<`)
)

func (s *Scanner) emit(h header, lineNo int, ev Event) {
	ev.File, ev.Line, ev.Rank = s.name, lineNo, s.rank
	if h.producer != "" {
		ev.Producer = h.producer
	}
	ev.Time, ev.DateKnown, ev.Stamp = h.t, h.dateKnown, h.stamp
	if s.duplicate(ev) {
		return
	}
	s.last, s.hasLast = ev, true
	s.pending = append(s.pending, ev)
}

// duplicate reports whether ev repeats the event just before it from a line shortly above: a
// Python program whose logging has two handlers (JAX 0.4's own and the program's root
// handler) prints every record twice, in two formats.
func (s *Scanner) duplicate(ev Event) bool {
	p := s.last
	if !s.hasLast || p.Line == ev.Line || ev.Line-p.Line > 2*maxExplanation+2 ||
		!(s.g.dropRepeats[ev.Producer] || ev.Kind == Retrace || ev.Kind == Trace) {
		return false
	}
	return p.Kind == ev.Kind && p.Producer == ev.Producer && p.Module == ev.Module && p.Hash == ev.Hash &&
		p.Path == ev.Path && p.Signature == ev.Signature && p.Reason == ev.Reason && p.Detail == ev.Detail &&
		p.Duration == ev.Duration && p.Count == ev.Count
}

// classify turns one record's message into events and reports whether it recognised it. Each
// framework's rules are tried in turn; within a framework the first rule whose literal test
// passes decides.
func (s *Scanner) classify(msg string, h header, lineNo int) bool {
	s.flushHeld()
	for i, fw := range s.g.frameworks {
		for j := range fw.Rules {
			r := &fw.Rules[j]
			if !r.accepts(msg) {
				continue
			}
			c := &Context{s: s, fw: i, h: h, line: lineNo}
			if !r.ProducerFromLayout {
				c.h.producer = ""
			}
			if r.ByEffect {
				n := len(s.pending)
				r.Handle(c, msg)
				if len(s.pending) > n || s.held != nil {
					return true
				}
			} else if r.Handle(c, msg) {
				return true
			}
			break
		}
	}
	return false
}
