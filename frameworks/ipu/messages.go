package ipu

import (
	"strconv"
	"strings"
	"time"

	"github.com/recomp/recomp/internal/lazyre"
	"github.com/recomp/recomp/logscan"
)

// Message patterns of TF-IPU, Poplar, PopART and PopTorch, from the format strings in their
// sources (see ../shared/docs/log-formats.md).
var (
	reTFLoaded     = lazyre.New(`Loaded (\S+) from (\S+\.(?:poplar_exec|xla_engine))`)
	reTFMiss       = lazyre.New(`Couldn't find (\S+\.(?:poplar_exec|xla_engine)) in executable cache`)
	reTFPrecompile = lazyre.New(`A pre-compiled Poplar program has been saved to (\S+)`)
	reEngineBegin  = lazyre.New(`Begin compiling Poplar engine (\S+)`)
	reNotYet       = lazyre.New(`Module (\S+) has not been compiled yet \(Hash: (0x[0-9a-fA-F]+)\)`)
	reSkip         = lazyre.New(`Skip engine compilation - (.+?)\.?$`)
	reBarHeader    = lazyre.New(`^Compiling module (\S+):$`)
	reTFBar        = lazyre.New(`\[[# ]{50}\] (\d+)% Compilation Finished \[Elapsed: (\d+):(\d{2}):(\d{2})\.(\d)\]`)
	rePhaseStart   = lazyre.New(`^Starting phase: (.+)$`)
	rePhaseEnd     = lazyre.New(`^Ending phase: (.+?) \(duration (\d+) ms; diff RSS: ([-+0-9.eE]+) MB(?:; total RSS: ([-+0-9.eE]+) MB)?\)`)
	rePopARTStart  = lazyre.New(`^Starting (?:Engine )?compilation$`)
	rePopARTHit    = lazyre.New(`Loading serialized PopART executable from (.+)$`)
	rePopARTFail   = lazyre.New(`Failed to load cached PopART executable from (\S+?):? `)
	rePopARTWrite  = lazyre.New(`Saving serialized Executablex to (.+)$`)
	rePTBar        = lazyre.New(`Graph compilation: *(\d+)%\|[^|]*\| *(\d+)/(\d+) \[([\d:]+)<`)
)

// TF-IPU's compile requests, "Begin XLA compilation: MODULE  (Hash: 0x...)", and their ends.
const (
	xlaBegin = "Begin XLA compilation: "
	xlaEnd   = "End XLA compilation: "
)

// xlaCompilation finds head followed by a module name and its hash in msg, as the regexp
// head(\S+) +\(Hash: (0x[0-9a-fA-F]+)\) finds them, without the regexp engine, which took a
// seventh of the scan of a log dense in compile requests. FuzzXLACompilation holds it to the
// regexp.
func xlaCompilation(msg, head string) (module, hash string, ok bool) {
	for from := 0; ; {
		i := strings.Index(msg[from:], head)
		if i < 0 {
			return "", "", false
		}
		at := from + i + len(head)
		if module, hash, ok := xlaNameHash(msg[at:]); ok {
			return module, hash, true
		}
		from += i + 1
	}
}

// xlaNameHash reads `(\S+) +\(Hash: (0x[0-9a-fA-F]+)\)` at the start of s.
func xlaNameHash(s string) (module, hash string, ok bool) {
	n := 0
	for n < len(s) && !isSpace(s[n]) {
		n++
	}
	j := n
	for j < len(s) && s[j] == ' ' {
		j++
	}
	const open = "(Hash: 0x"
	if n == 0 || j == n || !strings.HasPrefix(s[j:], open) {
		return "", "", false
	}
	h := j + len(open)
	e := h
	for e < len(s) && isHex(s[e]) {
		e++
	}
	if e == h || e == len(s) || s[e] != ')' {
		return "", "", false
	}
	return s[:n], s[h-2 : e], true
}

// isSpace is the regexp's \s: [\t\n\f\r ].
func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r' }

func isHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

// emitter is a rule's handler that emits one event per match of re, built by ev.
func emitter(re *lazyre.Regexp, ev func(m []string) logscan.Event) func(*logscan.Context, string) bool {
	return func(c *logscan.Context, msg string) bool {
		m := re.FindStringSubmatch(msg)
		if m == nil {
			return false
		}
		c.Emit(ev(m))
		return true
	}
}

// either tries two handlers.
func either(a, b func(*logscan.Context, string) bool) func(*logscan.Context, string) bool {
	return func(c *logscan.Context, msg string) bool { return a(c, msg) || b(c, msg) }
}

var reGraphCompiled = lazyre.New(`^Graph compiled$`)
var reEngineLoaded = lazyre.New(`^Engine loaded$`)
var reEngineEnd = lazyre.New(`End compiling Poplar engine`)

// rules are the messages of TF-IPU, Poplar, PopART and PopTorch, in the order the classifier
// has always tried them. Each is recognised when it emitted an event, and the producer is the
// one its record's layout names (a Poplar component, a TF source path) when it names one.
func rules() []logscan.Rule {
	return []logscan.Rule{
		{ByEffect: true, ProducerFromLayout: true, Contains: "XLA compilation: ", Handle: func(c *logscan.Context, msg string) bool {
			if module, hash, ok := xlaCompilation(msg, xlaBegin); ok {
				c.Emit(logscan.Event{Kind: logscan.CompileRequest, Producer: logscan.ProducerTFIPU, Signal: "tf:begin_xla", Module: module, Hash: hash})
				return true
			}
			if module, hash, ok := xlaCompilation(msg, xlaEnd); ok {
				c.Emit(logscan.Event{Kind: logscan.CompileEnd, Producer: logscan.ProducerTFIPU, Signal: "tf:end_xla", Module: module, Hash: hash})
				return true
			}
			return false
		}},
		{ByEffect: true, ProducerFromLayout: true, Contains: ".poplar_exec", Handle: tfIPUCacheFile},
		{ByEffect: true, ProducerFromLayout: true, Contains: ".xla_engine", Handle: tfIPUCacheFile},
		{ByEffect: true, ProducerFromLayout: true, Contains: "Poplar engine", Handle: either(
			emitter(reEngineBegin, func(m []string) logscan.Event {
				return logscan.Event{Kind: logscan.CompileBegin, Producer: logscan.ProducerTFIPU, Signal: "tf:engine", Module: m[1]}
			}),
			emitter(reEngineEnd, func([]string) logscan.Event {
				return logscan.Event{Kind: logscan.CompileFinished, Producer: logscan.ProducerTFIPU, Signal: "tf:engine"}
			}))},
		{ByEffect: true, ProducerFromLayout: true, Contains: "has not been compiled yet", Handle: emitter(reNotYet, func(m []string) logscan.Event {
			return logscan.Event{Kind: logscan.CacheMiss, Producer: logscan.ProducerTFIPU, Signal: "tf:in_process_miss", Module: m[1], Hash: m[2],
				Detail: "in-process executable cache", InProcess: true}
		})},
		{ByEffect: true, ProducerFromLayout: true, Contains: "Skip engine compilation", Handle: emitter(reSkip, func(m []string) logscan.Event {
			return logscan.Event{Kind: logscan.CompileSkipped, Producer: logscan.ProducerTFIPU, Signal: "tf:skip", Detail: m[1]}
		})},
		{ByEffect: true, ProducerFromLayout: true, Prefix: "Compiling module ", Handle: emitter(reBarHeader, func(m []string) logscan.Event {
			return logscan.Event{Kind: logscan.CompileBegin, Producer: logscan.ProducerTFIPU, Signal: "tf:progress_bar", Module: m[1]}
		})},
		{ByEffect: true, ProducerFromLayout: true, Contains: "% Compilation Finished", Handle: emitter(reTFBar, func(m []string) logscan.Event {
			d := atoi(m[2])*3600 + atoi(m[3])*60 + atoi(m[4])
			dur := time.Duration(d)*time.Second + time.Duration(atoi(m[5]))*100*time.Millisecond
			return logscan.Event{Kind: logscan.CompileFinished, Producer: logscan.ProducerTFIPU, Signal: "tf:progress_bar", Duration: dur}
		})},
		{ByEffect: true, ProducerFromLayout: true, Contains: "phase: ", Handle: func(c *logscan.Context, msg string) bool { poplarPhase(c, msg); return true }},
		// Read whenever it is a frame of the bar (a stale redraw emits nothing).
		{ProducerFromLayout: true, Contains: "Graph compilation:", Handle: func(c *logscan.Context, msg string) bool {
			m := rePTBar.FindStringSubmatch(msg)
			if m != nil {
				poptorchBar(c, atoi(m[2]), atoi(m[3]), parseClock(m[4]))
			}
			return m != nil
		}},
		{ByEffect: true, ProducerFromLayout: true, Prefix: "Starting ", Handle: emitter(rePopARTStart, func([]string) logscan.Event {
			return logscan.Event{Kind: logscan.CompileBegin, Producer: logscan.ProducerPopART, Signal: "popart:start"}
		})},
		{ByEffect: true, ProducerFromLayout: true, Prefix: "Graph compiled", Handle: emitter(reGraphCompiled, func([]string) logscan.Event {
			return logscan.Event{Kind: logscan.CompileFinished, Producer: logscan.ProducerPopART, Signal: "popart:compiled"}
		})},
		{ByEffect: true, ProducerFromLayout: true, Contains: "PopART executable", Handle: either(
			emitter(rePopARTHit, func(m []string) logscan.Event {
				return logscan.Event{Kind: logscan.CacheHit, Producer: logscan.ProducerPopART, Signal: "popart:load_serialized", Path: strings.TrimSpace(m[1])}
			}),
			emitter(rePopARTFail, func(m []string) logscan.Event {
				return logscan.Event{Kind: logscan.CacheMiss, Producer: logscan.ProducerPopART, Signal: "popart:load_failed", Path: m[1], Detail: "cached executable could not be loaded"}
			}))},
		{ByEffect: true, ProducerFromLayout: true, Contains: "Saving serialized Executablex to ", Handle: emitter(rePopARTWrite, func(m []string) logscan.Event {
			return logscan.Event{Kind: logscan.CacheWrite, Producer: logscan.ProducerPopART, Signal: "popart:save", Path: strings.TrimSpace(m[1])}
		})},
		{ByEffect: true, ProducerFromLayout: true, Prefix: "Engine loaded", Handle: emitter(reEngineLoaded, func([]string) logscan.Event {
			return logscan.Event{Kind: logscan.ExecutableLoad, Producer: logscan.ProducerPopART, Signal: "popart:engine_loaded"}
		})},
	}
}

// tfIPUCacheFile reads the TF-IPU lines about executable-cache files: loaded, not found, saved.
func tfIPUCacheFile(c *logscan.Context, msg string) bool {
	if m := reTFLoaded.FindStringSubmatch(msg); m != nil {
		c.Emit(logscan.Event{Kind: logscan.CacheHit, Producer: logscan.ProducerTFIPU, Signal: "tf:loaded", Module: m[1], Path: m[2]})
	} else if m := reTFMiss.FindStringSubmatch(msg); m != nil {
		c.Emit(logscan.Event{Kind: logscan.CacheMiss, Producer: logscan.ProducerTFIPU, Signal: "tf:not_found", Path: m[1]})
	} else if m := reTFPrecompile.FindStringSubmatch(msg); m != nil {
		c.Emit(logscan.Event{Kind: logscan.CacheWrite, Producer: logscan.ProducerTFIPU, Signal: "tf:precompiled", Path: m[1]})
	}
	return true
}

func poplarPhase(c *logscan.Context, msg string) {
	if m := rePhaseStart.FindStringSubmatch(msg); m != nil {
		kind := logscan.PhaseStart
		if m[1] == "graphConstruction" {
			kind = logscan.CompileBegin
		}
		c.Emit(logscan.Event{Kind: kind, Producer: logscan.ProducerPoplar, Signal: logscan.Signal("poplar:" + m[1]), Phase: m[1]})
	} else if m := rePhaseEnd.FindStringSubmatch(msg); m != nil {
		kind := logscan.PhaseEnd
		if m[1] == "Loading executable" {
			kind = logscan.ExecutableLoad
		}
		detail := "diff RSS " + m[3] + " MB"
		if m[4] != "" {
			detail += ", total RSS " + m[4] + " MB"
		}
		c.Emit(logscan.Event{Kind: kind, Producer: logscan.ProducerPoplar, Signal: logscan.Signal("poplar:" + m[1]), Phase: m[1],
			Duration: time.Duration(atoi(m[2])) * time.Millisecond, Detail: detail})
	}
}

// finish warns about a PopTorch compilation bar still climbing at the end of the log.
func finish(c *logscan.Context) {
	if b := c.State().(*barState); b.active {
		c.Warn(b.beginLine, "PopTorch graph compilation still in progress at the end of the log")
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

func poptorchBar(c *logscan.Context, n, total int, elapsed time.Duration) {
	b := c.State().(*barState)
	lineNo := c.Line()
	switch {
	case n < total && b.active:
		// progress
	case n < total:
		if b.done && elapsed > 0 && elapsed >= b.doneAt {
			return // a stale redraw of the bar that just finished
		}
		b.active, b.done, b.beginLine = true, false, lineNo
		c.Emit(logscan.Event{Kind: logscan.CompileBegin, Producer: logscan.ProducerPopTorch, Signal: "poptorch:bar"})
	case b.active:
		b.active, b.done, b.doneAt = false, true, elapsed
		c.Emit(logscan.Event{Kind: logscan.CompileFinished, Producer: logscan.ProducerPopTorch, Signal: "poptorch:bar", Duration: elapsed})
	case b.done && elapsed > 0 && elapsed == b.doneAt:
		// the final redraw of the bar that just finished
	case elapsed == 0:
		b.done, b.doneAt = true, 0
		c.Emit(logscan.Event{Kind: logscan.CacheHit, Producer: logscan.ProducerPopTorch, Signal: "poptorch:bar",
			Detail: "compilation bar jumped to 100% in 00:00"})
	default:
		// only the final state of a bar that climbed: a compilation we did not see start
		b.done, b.doneAt = true, elapsed
		c.Emit(logscan.Event{Kind: logscan.CompileBegin, Producer: logscan.ProducerPopTorch, Signal: "poptorch:bar"})
		c.Emit(logscan.Event{Kind: logscan.CompileFinished, Producer: logscan.ProducerPopTorch, Signal: "poptorch:bar", Duration: elapsed})
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
