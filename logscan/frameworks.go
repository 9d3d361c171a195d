package logscan

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// Messages of JAX, TensorFlow (tf.function, the XLA device compiler) and PyTorch/XLA, taken from
// the sources of jax 0.10 (jax/_src/interpreters/pxla.py, compiler.py, compilation_cache.py,
// interpreters/partial_eval.py), tensorflow 2.21 (polymorphic_function.py; device_compiler.h and
// device_compilation_profiler.cc as VLOG(2) lines) and pytorch/xla (torch_xla/csrc/debug_util.cpp,
// torch_xla/debug/metrics auto-analysis).
var (
	// jax 0.4+: "Compiling NAME with global shapes and types T. Argument mapping: M."; 0.3 put the
	// function id after the name, and 0.2 said "Compiling NAME (ID) for args T.".
	reJAXCompiling = regexp.MustCompile(`^Compiling (\S+) (?:\(\d+\) )?(?:with global shapes and types (.*?)\. Argument mapping: |for args (.*)\.$)`)
	reJAXFinished  = regexp.MustCompile(`^Finished XLA compilation of (\S+) in ([0-9.]+) sec`)
	reJAXHit       = regexp.MustCompile(`^Persistent compilation cache hit for '([^']*)' with key '([^']*)'`)
	reJAXMiss      = regexp.MustCompile(`^PERSISTENT COMPILATION CACHE MISS for '([^']*)' with key '([^']*)'`)
	reJAXWrite     = regexp.MustCompile(`^Writing (\S+) to persistent compilation cache with key '([^']*)'`)
	// The 2024 wording ended the first line with "because:".
	reJAXTraceMiss = regexp.MustCompile(`^TRACING CACHE MISS at (.*?)(?: because)?:$`)

	// TF 2.x says "triggered tf.function retracing"; the explanation that follows changed over
	// releases (experimental_relax_shapes, then reduce_retracing) but this part did not.
	reTFRetrace      = regexp.MustCompile(`(\d+) out of the last (\d+) calls to (.+?) triggered tf\.function retracing`)
	reTFFunctionName = regexp.MustCompile(`^<function (\S+) at 0x[0-9a-fA-F]+>$`)
	reTFInstantly    = regexp.MustCompile(`^Instantly compiling for signature: (\S+)`)
	reTFProfiled     = regexp.MustCompile(`^Compiled (\S+) (\d+) times, compile time: (\d+) us`)

	rePTXLAFrequent = regexp.MustCompile(`pt-xla-profiler: (CompileTime too frequent: .*)$`)
)

// maxExplanation bounds the lines kept from a multi-line explanation.
const maxExplanation = 40

// classifyFramework handles the messages of JAX, TF and PyTorch/XLA; it reports whether msg
// was one of them.
func (s *Scanner) classifyFramework(msg string, h header, lineNo int) bool {
	h.producer = "" // each pattern below names its producer
	switch {
	case strings.HasPrefix(msg, "Compiling ") && (strings.Contains(msg, " with global shapes and types ") || strings.Contains(msg, " for args ")):
		if m := reJAXCompiling.FindStringSubmatch(msg); m != nil {
			s.emit(h, lineNo, Event{Kind: CompileRequest, Producer: ProducerJAX, Signal: "jax:compiling", Module: jaxModuleName(m[1]), Signature: m[2] + m[3]})
			return true
		}
	case strings.HasPrefix(msg, "Finished XLA compilation of "):
		if m := reJAXFinished.FindStringSubmatch(msg); m != nil {
			secs, _ := strconv.ParseFloat(m[2], 64)
			s.emit(h, lineNo, Event{Kind: RequestDone, Producer: ProducerJAX, Signal: "jax:finished_xla", Module: jaxModuleName(m[1]),
				Duration: time.Duration(secs * float64(time.Second))})
			return true
		}
	case strings.HasPrefix(msg, "Persistent compilation cache hit "):
		if m := reJAXHit.FindStringSubmatch(msg); m != nil {
			s.emit(h, lineNo, Event{Kind: CacheHit, Producer: ProducerJAX, Signal: "jax:persistent_hit", Module: m[1], Hash: m[2], Path: m[2]})
			return true
		}
	case strings.HasPrefix(msg, "PERSISTENT COMPILATION CACHE MISS "):
		if m := reJAXMiss.FindStringSubmatch(msg); m != nil {
			s.emit(h, lineNo, Event{Kind: CacheMiss, Producer: ProducerJAX, Signal: "jax:persistent_miss", Module: m[1], Hash: m[2], Path: m[2]})
			return true
		}
	case strings.HasPrefix(msg, "Writing ") && strings.Contains(msg, " to persistent compilation cache "):
		if m := reJAXWrite.FindStringSubmatch(msg); m != nil {
			s.emit(h, lineNo, Event{Kind: CacheWrite, Producer: ProducerJAX, Signal: "jax:persistent_write", Module: m[1], Hash: m[2], Path: m[2]})
			return true
		}
	case strings.HasPrefix(msg, "TRACING CACHE MISS at "):
		if m := reJAXTraceMiss.FindStringSubmatch(msg); m != nil {
			// The explanation follows on indented lines; hold the event until they end.
			s.flushHeld()
			ev := Event{Kind: Retrace, Producer: ProducerJAX, Signal: "jax:tracing_cache_miss", Path: m[1]}
			ev.File, ev.Line = s.name, lineNo
			ev.Time, ev.DateKnown, ev.Stamp = h.t, h.dateKnown, h.stamp
			s.held, s.heldLines = &ev, 0
			return true
		}
	case strings.Contains(msg, "triggered tf.function retracing"):
		if m := reTFRetrace.FindStringSubmatch(msg); m != nil {
			fn := m[3]
			if f := reTFFunctionName.FindStringSubmatch(fn); f != nil {
				fn = f[1]
			}
			s.emit(h, lineNo, Event{Kind: Retrace, Producer: ProducerTF, Signal: "tf:retracing", Module: fn,
				Detail: m[1] + " out of the last " + m[2] + " calls to " + fn + " triggered tf.function retracing"})
			return true
		}
	case strings.HasPrefix(msg, "Instantly compiling for signature: "):
		if m := reTFInstantly.FindStringSubmatch(msg); m != nil {
			s.emit(h, lineNo, Event{Kind: CompileBegin, Producer: ProducerTF, Signal: "tf:device_compiler", Module: m[1]})
			return true
		}
	case strings.HasPrefix(msg, "Compiled ") && strings.Contains(msg, " times, compile time: "):
		if m := reTFProfiled.FindStringSubmatch(msg); m != nil {
			us, _ := strconv.Atoi(m[3])
			s.emit(h, lineNo, Event{Kind: CompileFinished, Producer: ProducerTF, Signal: "tf:device_compiler", Module: m[1],
				Duration: time.Duration(us) * time.Microsecond, Detail: "compiled " + m[2] + " times"})
			return true
		}
	case strings.HasPrefix(msg, "Compilation Analysis: "):
		s.ptxlaAnalysis(strings.TrimPrefix(msg, "Compilation Analysis: "), h, lineNo)
		return true
	case strings.Contains(msg, "pt-xla-profiler: CompileTime too frequent"):
		if m := rePTXLAFrequent.FindStringSubmatch(msg); m != nil {
			s.emit(h, lineNo, Event{Kind: Retrace, Producer: ProducerTorchXLA, Signal: "ptxla:compile_too_frequent", Detail: m[1]})
			return true
		}
	}
	return false
}

// ptxlaState follows one PyTorch/XLA "Compilation Analysis:" block, which debug_util.cpp prints
// when a graph is about to be compiled (PT_XLA_DEBUG_LEVEL >= 1): the cause, then the graph
// hash, then a closing rule.
type ptxlaState struct {
	open      bool
	wantCause bool
	ev        Event
}

func (s *Scanner) ptxlaAnalysis(body string, h header, lineNo int) {
	p := &s.ptxla
	trimmed := strings.TrimSpace(body)
	switch {
	case body == "Compilation Cause":
		s.ptxlaFlush()
		p.open, p.wantCause = true, true
		p.ev = Event{Kind: CompileBegin, Producer: ProducerTorchXLA, Signal: "ptxla:analysis", File: s.name, Line: lineNo,
			Time: h.t, DateKnown: h.dateKnown, Stamp: h.stamp}
	case !p.open:
	case p.wantCause && strings.HasPrefix(body, "  "):
		p.ev.Reason, p.wantCause = trimmed, false
	case strings.HasPrefix(trimmed, "Graph Hash: "):
		p.ev.Hash = strings.TrimPrefix(trimmed, "Graph Hash: ")
	case strings.HasPrefix(trimmed, "Graph Name: "):
		p.ev.Module = strings.TrimPrefix(trimmed, "Graph Name: ")
	case strings.HasPrefix(trimmed, "=====") || strings.HasPrefix(trimmed, "-----"):
		s.ptxlaFlush()
	default:
		p.wantCause = false
	}
}

func (s *Scanner) ptxlaFlush() {
	if s.ptxla.open {
		s.pending = append(s.pending, s.ptxla.ev)
		s.ptxla = ptxlaState{}
	}
}

// flushHeld emits the held multi-line event.
func (s *Scanner) flushHeld() {
	if s.held != nil {
		s.held.Reason = strings.TrimRight(s.held.Reason, "\n")
		s.pending = append(s.pending, *s.held)
		s.held = nil
	}
}

// continueHeld adds to the held event the indented lines of region from offset from on, and
// returns the offset after them. The event is emitted at the first line that is not part of
// it; a region that ends first leaves it held for the next one.
func (s *Scanner) continueHeld(region []byte, from int) int {
	for s.held != nil && from < len(region) {
		end := len(region)
		if j := indexByteFrom(region, '\n', from); j >= 0 {
			end = j
		}
		line := region[from:end]
		if len(line) > 0 && line[len(line)-1] == '\r' {
			line = line[:len(line)-1]
		}
		if len(line) < 2 || line[0] != ' ' {
			s.flushHeld()
			return from
		}
		if s.heldLines < maxExplanation {
			s.held.Reason += strings.TrimSpace(string(line)) + "\n"
			s.heldLines++
		}
		from = end + 1
	}
	return from
}

func indexByteFrom(b []byte, c byte, from int) int {
	if j := bytes.IndexByte(b[from:], c); j >= 0 {
		return from + j
	}
	return -1
}

// jaxModuleName turns the name JAX logs ("jit(step)") into the module name it gives XLA and
// its dumps ("jit_step"): mlir.sanitize_name replaces every character other than a letter,
// digit, '_', '.' or '-' with '_', and the trailing '_' are dropped.
func jaxModuleName(name string) string {
	b := []rune(name)
	for i, r := range b {
		if !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || r == '.' || r == '-') {
			b[i] = '_'
		}
	}
	return strings.TrimRight(string(b), "_")
}
