package logscan

import (
	"regexp"
	"strconv"
	"strings"
	"time"
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
// handler) prints every JAX record twice, in two formats.
func (s *Scanner) duplicate(ev Event) bool {
	p := s.last
	if !s.hasLast || p.Line == ev.Line || ev.Line-p.Line > 2*maxExplanation+2 ||
		!(ev.Producer == ProducerJAX || ev.Kind == Retrace || ev.Kind == Trace) {
		return false
	}
	return p.Kind == ev.Kind && p.Producer == ev.Producer && p.Module == ev.Module && p.Hash == ev.Hash &&
		p.Path == ev.Path && p.Signature == ev.Signature && p.Reason == ev.Reason && p.Detail == ev.Detail &&
		p.Duration == ev.Duration && p.Count == ev.Count
}

// classify turns one record's message into events and reports whether it recognised it.
// Producer defaults name who prints the message when the record has no prefix.
func (s *Scanner) classify(msg string, h header, lineNo int) bool {
	s.flushHeld()
	if s.classifyFramework(msg, h, lineNo) {
		return true
	}
	n := len(s.pending)
	s.classifyGraphcore(msg, h, lineNo)
	return len(s.pending) > n || s.held != nil
}

// classifyGraphcore handles the messages of TF-IPU, Poplar, PopART and PopTorch.
func (s *Scanner) classifyGraphcore(msg string, h header, lineNo int) {
	for i := range graphcoreRules {
		if r := &graphcoreRules[i]; r.accepts(msg) {
			r.handle(s, msg, h, lineNo)
			return
		}
	}
}

// emitter is a rule's handler that emits one event per match of re, built by ev.
func emitter(re *regexp.Regexp, ev func(m []string) Event) func(*Scanner, string, header, int) bool {
	return func(s *Scanner, msg string, h header, line int) bool {
		m := re.FindStringSubmatch(msg)
		if m == nil {
			return false
		}
		s.emit(h, line, ev(m))
		return true
	}
}

// either tries two handlers.
func either(a, b func(*Scanner, string, header, int) bool) func(*Scanner, string, header, int) bool {
	return func(s *Scanner, msg string, h header, line int) bool { return a(s, msg, h, line) || b(s, msg, h, line) }
}

func fixed(ev Event) func(*Scanner, string, header, int) bool {
	return func(s *Scanner, _ string, h header, line int) bool { s.emit(h, line, ev); return true }
}

var reGraphCompiled = regexp.MustCompile(`^Graph compiled$`)
var reEngineLoaded = regexp.MustCompile(`^Engine loaded$`)
var reEngineEnd = regexp.MustCompile(`End compiling Poplar engine`)

// graphcoreRules are the messages of TF-IPU, Poplar, PopART and PopTorch, in the order the
// classifier has always tried them. (Set in init: the rules call back into the scanner.)
var graphcoreRules []messageRule

func init() { graphcoreRules = graphcoreMessages() }

func graphcoreMessages() []messageRule {
	return []messageRule{
		{contains: "XLA compilation: ", handle: either(
			emitter(reXLABegin, func(m []string) Event {
				return Event{Kind: CompileRequest, Producer: ProducerTFIPU, Signal: "tf:begin_xla", Module: m[1], Hash: m[2]}
			}),
			emitter(reXLAEnd, func(m []string) Event {
				return Event{Kind: CompileEnd, Producer: ProducerTFIPU, Signal: "tf:end_xla", Module: m[1], Hash: m[2]}
			}))},
		{contains: ".poplar_exec", handle: tfIPUCacheFile},
		{contains: ".xla_engine", handle: tfIPUCacheFile},
		{contains: "Poplar engine", handle: either(
			emitter(reEngineBegin, func(m []string) Event {
				return Event{Kind: CompileBegin, Producer: ProducerTFIPU, Signal: "tf:engine", Module: m[1]}
			}),
			emitter(reEngineEnd, func([]string) Event {
				return Event{Kind: CompileFinished, Producer: ProducerTFIPU, Signal: "tf:engine"}
			}))},
		{contains: "has not been compiled yet", handle: emitter(reNotYet, func(m []string) Event {
			return Event{Kind: CacheMiss, Producer: ProducerTFIPU, Signal: "tf:in_process_miss", Module: m[1], Hash: m[2],
				Detail: "in-process executable cache", InProcess: true}
		})},
		{contains: "Skip engine compilation", handle: emitter(reSkip, func(m []string) Event {
			return Event{Kind: CompileSkipped, Producer: ProducerTFIPU, Signal: "tf:skip", Detail: m[1]}
		})},
		{prefix: "Compiling module ", handle: emitter(reBarHeader, func(m []string) Event {
			return Event{Kind: CompileBegin, Producer: ProducerTFIPU, Signal: "tf:progress_bar", Module: m[1]}
		})},
		{contains: "% Compilation Finished", handle: emitter(reTFBar, func(m []string) Event {
			d := atoi(m[2])*3600 + atoi(m[3])*60 + atoi(m[4])
			dur := time.Duration(d)*time.Second + time.Duration(atoi(m[5]))*100*time.Millisecond
			return Event{Kind: CompileFinished, Producer: ProducerTFIPU, Signal: "tf:progress_bar", Duration: dur}
		})},
		{contains: "phase: ", handle: func(s *Scanner, msg string, h header, line int) bool { s.poplarPhase(msg, h, line); return true }},
		{contains: "Graph compilation:", handle: func(s *Scanner, msg string, h header, line int) bool {
			m := rePTBar.FindStringSubmatch(msg)
			if m != nil {
				s.poptorchBar(h, line, atoi(m[2]), atoi(m[3]), parseClock(m[4]))
			}
			return m != nil
		}},
		{prefix: "Starting ", handle: emitter(rePopARTStart, func([]string) Event {
			return Event{Kind: CompileBegin, Producer: ProducerPopART, Signal: "popart:start"}
		})},
		{prefix: "Graph compiled", handle: emitter(reGraphCompiled, func([]string) Event {
			return Event{Kind: CompileFinished, Producer: ProducerPopART, Signal: "popart:compiled"}
		})},
		{contains: "PopART executable", handle: either(
			emitter(rePopARTHit, func(m []string) Event {
				return Event{Kind: CacheHit, Producer: ProducerPopART, Signal: "popart:load_serialized", Path: strings.TrimSpace(m[1])}
			}),
			emitter(rePopARTFail, func(m []string) Event {
				return Event{Kind: CacheMiss, Producer: ProducerPopART, Signal: "popart:load_failed", Path: m[1], Detail: "cached executable could not be loaded"}
			}))},
		{contains: "Saving serialized Executablex to ", handle: emitter(rePopARTWrite, func(m []string) Event {
			return Event{Kind: CacheWrite, Producer: ProducerPopART, Signal: "popart:save", Path: strings.TrimSpace(m[1])}
		})},
		{prefix: "Engine loaded", handle: emitter(reEngineLoaded, func([]string) Event {
			return Event{Kind: ExecutableLoad, Producer: ProducerPopART, Signal: "popart:engine_loaded"}
		})},
		{contains: "Compiled cluster using XLA!", handle: fixed(Event{Kind: ClusterCompiled, Producer: ProducerTF, Signal: "tf:cluster_compiled"})},
	}
}

// tfIPUCacheFile reads the TF-IPU lines about executable-cache files: loaded, not found, saved.
func tfIPUCacheFile(s *Scanner, msg string, h header, line int) bool {
	if m := reTFLoaded.FindStringSubmatch(msg); m != nil {
		s.emit(h, line, Event{Kind: CacheHit, Producer: ProducerTFIPU, Signal: "tf:loaded", Module: m[1], Path: m[2]})
	} else if m := reTFMiss.FindStringSubmatch(msg); m != nil {
		s.emit(h, line, Event{Kind: CacheMiss, Producer: ProducerTFIPU, Signal: "tf:not_found", Path: m[1]})
	} else if m := reTFPrecompile.FindStringSubmatch(msg); m != nil {
		s.emit(h, line, Event{Kind: CacheWrite, Producer: ProducerTFIPU, Signal: "tf:precompiled", Path: m[1]})
	}
	return true
}

func (s *Scanner) poplarPhase(msg string, h header, lineNo int) {
	if m := rePhaseStart.FindStringSubmatch(msg); m != nil {
		kind := PhaseStart
		if m[1] == "graphConstruction" {
			kind = CompileBegin
		}
		s.emit(h, lineNo, Event{Kind: kind, Producer: ProducerPoplar, Signal: Signal("poplar:" + m[1]), Phase: m[1]})
	} else if m := rePhaseEnd.FindStringSubmatch(msg); m != nil {
		kind := PhaseEnd
		if m[1] == "Loading executable" {
			kind = ExecutableLoad
		}
		detail := "diff RSS " + m[3] + " MB"
		if m[4] != "" {
			detail += ", total RSS " + m[4] + " MB"
		}
		s.emit(h, lineNo, Event{Kind: kind, Producer: ProducerPoplar, Signal: Signal("poplar:" + m[1]), Phase: m[1],
			Duration: time.Duration(atoi(m[2])) * time.Millisecond, Detail: detail})
	}
}

// barState follows PopTorch's tqdm "Graph compilation" bar, which says whether a graph was
// compiled (the bar climbs) or served from the executable cache (it jumps to 100% in 00:00).
type barState struct {
	active    bool
	beginLine int
	done      bool
	doneAt    time.Duration
}

func (s *Scanner) poptorchBar(h header, lineNo, n, total int, elapsed time.Duration) {
	b := &s.bar
	switch {
	case n < total && b.active:
		// progress
	case n < total:
		if b.done && elapsed > 0 && elapsed >= b.doneAt {
			return // a stale redraw of the bar that just finished
		}
		b.active, b.done, b.beginLine = true, false, lineNo
		s.emit(h, lineNo, Event{Kind: CompileBegin, Producer: ProducerPopTorch, Signal: "poptorch:bar"})
	case b.active:
		b.active, b.done, b.doneAt = false, true, elapsed
		s.emit(h, lineNo, Event{Kind: CompileFinished, Producer: ProducerPopTorch, Signal: "poptorch:bar", Duration: elapsed})
	case b.done && elapsed > 0 && elapsed == b.doneAt:
		// the final redraw of the bar that just finished
	case elapsed == 0:
		b.done, b.doneAt = true, 0
		s.emit(h, lineNo, Event{Kind: CacheHit, Producer: ProducerPopTorch, Signal: "poptorch:bar",
			Detail: "compilation bar jumped to 100% in 00:00"})
	default:
		// only the final state of a bar that climbed: a compilation we did not see start
		b.done, b.doneAt = true, elapsed
		s.emit(h, lineNo, Event{Kind: CompileBegin, Producer: ProducerPopTorch, Signal: "poptorch:bar"})
		s.emit(h, lineNo, Event{Kind: CompileFinished, Producer: ProducerPopTorch, Signal: "poptorch:bar", Duration: elapsed})
	}
}

// parseClock reads tqdm's elapsed time: MM:SS or H:MM:SS.
func parseClock(v string) time.Duration {
	var secs int
	for _, part := range strings.Split(v, ":") {
		secs = secs*60 + atoi(part)
	}
	return time.Duration(secs) * time.Second
}

func atoi(v string) int {
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0
	}
	return n
}
