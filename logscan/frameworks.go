package logscan

import (
	"bytes"
	"path"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// Messages of JAX, TensorFlow (tf.function, the XLA device compiler) and PyTorch/XLA, taken from
// the sources and real runs of jax 0.4.38 to 0.12 (jax/_src/interpreters/pxla.py, dispatch.py,
// compiler.py, compilation_cache.py, interpreters/partial_eval.py, pjit.py), tensorflow 2.21
// (polymorphic_function.py, device_compiler.h, device_compilation_profiler.cc) and torch_xla
// 2.9 (torch_xla/csrc/debug_util.cpp, metrics_analysis.cc, the metrics report).
var (
	// jax 0.4.30+: "Compiling jit(NAME) with global shapes and types T. Argument mapping: M.";
	// 0.4.x before printed the bare function name, 0.3 put the function id after it, and 0.2
	// said "Compiling NAME (ID) for args T.".
	reJAXCompiling = regexp.MustCompile(`^Compiling (\S+) (?:\(\d+\) )?(?:with global shapes and types (.*?)\. Argument mapping: |for args (.*)\.$)`)
	reJAXFinished  = regexp.MustCompile(`^Finished XLA compilation of (\S+) in ([0-9.]+) sec`)
	reJAXHit       = regexp.MustCompile(`^Persistent compilation cache hit for '([^']*)' with key '([^']*)'`)
	reJAXMiss      = regexp.MustCompile(`^PERSISTENT COMPILATION CACHE MISS for '([^']*)' with key '([^']*)'`)
	reJAXWrite     = regexp.MustCompile(`^Writing (\S+) to persistent compilation cache with key '([^']*)'`)
	// 0.4 ended the first line with "because:". In a record that was wrapped or flattened (rich,
	// JSON) the explanation follows on the same line, after the call site's "(function):".
	reJAXTraceMiss     = regexp.MustCompile(`^TRACING CACHE MISS at (.*?)(?: because)?:$`)
	reJAXTraceMissFlat = regexp.MustCompile(`^TRACING CACHE MISS at (.*?\))(?: because)?:\s*(.*)$`)
	// The function a tracing-cache miss is about: "never seen function: NAME id=…" (a first
	// trace, or a function re-defined on the same line), "for NAME defined at …" (a retrace),
	// and 0.4's "because: QUALNAME id=… defined at …".
	reJAXNeverSeen = regexp.MustCompile(`never seen function:\s+(\S+) id=`)
	reJAXFor       = regexp.MustCompile(`(?:^|\s)for (\S+) defined at `)
	reJAXBecause   = regexp.MustCompile(`because:\s+(\S+) id=\d+ defined at `)
	// Where the lines of an explanation began, to split one that a log handler flattened.
	reJAXExplanationBreak = regexp.MustCompile(`\s+(all previously seen cache keys|different input types:|different input pytree:|\* at |never seen |but seen another function|closest seen input|Tracing context doesn't match|explanation unavailable|cache miss explanation unavailable)`)

	// TF 2.x says "triggered tf.function retracing"; the explanation that follows changed over
	// releases (experimental_relax_shapes, then reduce_retracing) but this part did not.
	reTFRetrace      = regexp.MustCompile(`(\d+) out of the last (\d+) calls to (.+?) triggered tf\.function retracing`)
	reTFFunctionName = regexp.MustCompile(`^<function (\S+) at 0x[0-9a-fA-F]+>$`)
	reTFInstantly    = regexp.MustCompile(`^Instantly compiling for signature: (\S+)`)
	reTFAlready      = regexp.MustCompile(`^Already Compiled for signature: (\S+)`)
	reTFProfiled     = regexp.MustCompile(`^Compiled (\S+) (\d+) times, compile time: (\d+) us`)
	reTFFuncGraph    = regexp.MustCompile(`^Creating new FuncGraph for Python function <function (\S+) at 0x[0-9a-fA-F]+>`)

	rePTXLAProfiler = regexp.MustCompile(`pt-xla-profiler: ((\w+) too (?:frequent|slow): .*)$`)
	rePTXLAFrame    = regexp.MustCompile(`^(\S+) \((.+):(\d+)\)$`)
	rePTXLAMetric   = regexp.MustCompile(`^(Metric|Counter): (\w+)$`)
)

// A messageRule recognises one message: prefix (the message starts with it) or, when prefix
// is "", contains (the message holds it) is the cheap literal test; handle parses the message
// and reports whether it was one after all. The first rule whose literal test passes decides.
type messageRule struct {
	prefix, contains string
	handle           func(s *Scanner, msg string, h header, line int) bool
}

func (r *messageRule) accepts(msg string) bool {
	if r.prefix != "" && !strings.HasPrefix(msg, r.prefix) {
		return false
	}
	return r.contains == "" || strings.Contains(msg, r.contains)
}

// frameworkRules are the messages of JAX, TF and PyTorch/XLA; each names its producer. (Set
// in init: the rules call back into the scanner, which reads them.)
var frameworkRules []messageRule

func init() { frameworkRules = frameworkMessages() }

func frameworkMessages() []messageRule {
	return []messageRule{
		{prefix: "Compiling ", contains: " with global shapes and types ", handle: jaxCompiling},
		{prefix: "Compiling ", contains: " for args ", handle: jaxCompiling},
		{prefix: "Finished XLA compilation of ", handle: func(s *Scanner, msg string, h header, line int) bool {
			m := reJAXFinished.FindStringSubmatch(msg)
			if m == nil {
				return false
			}
			secs, _ := strconv.ParseFloat(m[2], 64)
			s.emit(h, line, Event{Kind: RequestDone, Producer: ProducerJAX, Signal: "jax:finished_xla", Module: jaxModuleName(m[1]),
				Duration: time.Duration(secs * float64(time.Second))})
			return true
		}},
		{prefix: "Persistent compilation cache hit ", handle: jaxCacheLine(reJAXHit, CacheHit, "jax:persistent_hit")},
		{prefix: "PERSISTENT COMPILATION CACHE MISS ", handle: jaxCacheLine(reJAXMiss, CacheMiss, "jax:persistent_miss")},
		{prefix: "Writing ", contains: " to persistent compilation cache ", handle: jaxCacheLine(reJAXWrite, CacheWrite, "jax:persistent_write")},
		{prefix: "TRACING CACHE MISS at ", handle: func(s *Scanner, msg string, h header, line int) bool {
			// The explanation follows on indented lines (or, in a wrapped record, on this one).
			s.hold(heldTracing, h, line, msg)
			return true
		}},
		{contains: "triggered tf.function retracing", handle: func(s *Scanner, msg string, h header, line int) bool {
			m := reTFRetrace.FindStringSubmatch(msg)
			if m == nil {
				return false
			}
			fn := m[3]
			if f := reTFFunctionName.FindStringSubmatch(fn); f != nil {
				fn = f[1]
			}
			s.emit(h, line, Event{Kind: Retrace, Producer: ProducerTF, Signal: "tf:retracing", Module: fn,
				Detail: m[1] + " out of the last " + m[2] + " calls to " + fn + " triggered tf.function retracing"})
			return true
		}},
		{prefix: "Creating new FuncGraph ", handle: func(s *Scanner, msg string, h header, line int) bool {
			m := reTFFuncGraph.FindStringSubmatch(msg)
			if m == nil {
				return false
			}
			s.hold(heldFuncGraph, h, line, msg).name = m[1]
			return true
		}},
		{prefix: "num_inputs=", handle: func(s *Scanner, msg string, _ header, _ int) bool {
			s.tfInputs = strings.TrimSpace(msg) // the device compiler's next compilation has this many inputs
			return true
		}},
		{prefix: "Instantly compiling for signature: ", handle: func(s *Scanner, msg string, h header, line int) bool {
			m := reTFInstantly.FindStringSubmatch(msg)
			if m == nil {
				return false
			}
			s.emit(h, line, Event{Kind: CompileBegin, Producer: ProducerTF, Signal: "tf:device_compiler", Module: m[1], Signature: s.tfInputs})
			s.tfInputs = ""
			return true
		}},
		{prefix: "Already Compiled for signature: ", handle: func(s *Scanner, msg string, h header, line int) bool {
			m := reTFAlready.FindStringSubmatch(msg)
			if m == nil {
				return false
			}
			s.emit(h, line, Event{Kind: Execution, Producer: ProducerTF, Signal: "tf:already_compiled", Module: m[1]})
			return true
		}},
		{prefix: "Compiled ", contains: " times, compile time: ", handle: func(s *Scanner, msg string, h header, line int) bool {
			m := reTFProfiled.FindStringSubmatch(msg)
			if m == nil {
				return false
			}
			us, _ := strconv.Atoi(m[3])
			s.emit(h, line, Event{Kind: CompileFinished, Producer: ProducerTF, Signal: "tf:device_compiler", Module: m[1],
				Duration: time.Duration(us) * time.Microsecond, Detail: "compiled " + m[2] + " times", Count: atoi(m[2])})
			return true
		}},
		{prefix: "Compilation Analysis: ", handle: func(s *Scanner, msg string, h header, line int) bool {
			s.ptxlaBlock(ptxlaCompile, strings.TrimPrefix(msg, "Compilation Analysis: "), h, line)
			return true
		}},
		{prefix: "Execution Analysis: ", handle: func(s *Scanner, msg string, h header, line int) bool {
			s.ptxlaBlock(ptxlaExecute, strings.TrimPrefix(msg, "Execution Analysis: "), h, line)
			return true
		}},
		{prefix: "Post Compilation Analysis: ", handle: func(s *Scanner, msg string, h header, line int) bool {
			s.ptxlaPost(strings.TrimPrefix(msg, "Post Compilation Analysis: "), h, line)
			return true
		}},
		{prefix: "Computation hash: ", handle: func(s *Scanner, msg string, _ header, _ int) bool {
			s.ptxla.computation = strings.TrimSpace(strings.TrimPrefix(msg, "Computation hash: "))
			return true
		}},
		{contains: "pt-xla-profiler: ", handle: func(s *Scanner, msg string, h header, line int) bool {
			m := rePTXLAProfiler.FindStringSubmatch(msg)
			if m == nil {
				return false
			}
			kind := FrameworkWarning
			if m[2] == "CompileTime" {
				kind = Retrace
			}
			s.emit(h, line, Event{Kind: kind, Producer: ProducerTorchXLA, Signal: Signal("ptxla:" + m[2]), Detail: m[1]})
			return true
		}},
		{prefix: "Metric: ", handle: ptxlaMetric},
		{prefix: "Counter: ", handle: ptxlaMetric},
	}
}

func jaxCompiling(s *Scanner, msg string, h header, line int) bool {
	m := reJAXCompiling.FindStringSubmatch(msg)
	if m == nil {
		return false
	}
	s.emit(h, line, Event{Kind: CompileRequest, Producer: ProducerJAX, Signal: "jax:compiling", Module: jaxModuleName(m[1]), Signature: m[2] + m[3]})
	return true
}

// jaxCacheLine reads a persistent-cache line: the module, and the key (its hash and file).
func jaxCacheLine(re *regexp.Regexp, kind Kind, sig Signal) func(*Scanner, string, header, int) bool {
	return func(s *Scanner, msg string, h header, line int) bool {
		m := re.FindStringSubmatch(msg)
		if m == nil {
			return false
		}
		s.emit(h, line, Event{Kind: kind, Producer: ProducerJAX, Signal: sig, Module: m[1], Hash: m[2], Path: m[2]})
		return true
	}
}

func ptxlaMetric(s *Scanner, msg string, h header, line int) bool {
	m := rePTXLAMetric.FindStringSubmatch(msg)
	if m == nil || !ptxlaMetrics[m[2]] {
		return false
	}
	s.hold(heldMetric, h, line, msg).name = m[2]
	return true
}

// classifyFramework handles the messages of JAX, TF and PyTorch/XLA; it reports whether msg
// was one of them.
func (s *Scanner) classifyFramework(msg string, h header, lineNo int) bool {
	h.producer = "" // each rule names its producer
	for i := range frameworkRules {
		if r := &frameworkRules[i]; r.accepts(msg) {
			return r.handle(s, msg, h, lineNo)
		}
	}
	return false
}

// emitTracing classifies a JAX tracing-cache-miss explanation: a retrace of the function it
// names, or its first trace ("never seen function" without the hint that it is being
// re-defined). A function JAX explains is the user's own: JAX 0.5+ explains no function of
// its own, and a 0.4 explanation of one says where it is defined.
func (s *Scanner) emitTracing(r *heldRecord) {
	first := strings.TrimSpace(r.lines[0])
	m := reJAXTraceMiss.FindStringSubmatch(first)
	if m == nil {
		if m = reJAXTraceMissFlat.FindStringSubmatch(first); m == nil {
			return
		}
	} else {
		m = append(m, "")
	}
	var body []string
	if rest := strings.TrimSpace(m[2]); rest != "" {
		body = append(body, rest) // a wrapped or JSON record: the explanation on one line
	}
	for _, l := range r.lines[1:] {
		if l = strings.TrimSpace(l); l != "" {
			body = append(body, l)
		}
	}
	reason := strings.Join(body, "\n")
	flat := strings.Join(body, " ")
	if len(r.lines) == 1 && len(body) == 1 {
		reason = reJAXExplanationBreak.ReplaceAllString(reason, "\n$1") // a flattened record: its lines again
	}
	fn := ""
	for _, re := range []*regexp.Regexp{reJAXFor, reJAXNeverSeen, reJAXBecause} {
		if f := re.FindStringSubmatch(flat); f != nil {
			fn = f[1]
			break
		}
	}
	kind := Retrace
	if strings.Contains(flat, "never seen function") && !strings.Contains(flat, "re-defined") {
		kind = Trace
	}
	ev := Event{Kind: kind, Producer: ProducerJAX, Signal: "jax:tracing_cache_miss", Path: m[1], Module: pythonName(fn), Reason: reason,
		Library: strings.Contains(flat, "/jax/_src/") || strings.Contains(flat, "/site-packages/jax/")}
	// A retrace of a function object JAX had traced before ("all previously seen cache keys
	// differ", 0.4's "closest seen input type signature"). Not "never seen function … but seen
	// another function defined on the same line": that line is the call site, which a library's
	// wrapper (flax nnx.jit) shares between different functions.
	ev.SeenBefore = kind == Retrace && !strings.Contains(flat, "never seen function")
	if kind == Trace {
		ev.Detail = "first trace of " + ev.Module
	}
	s.emit(r.h, r.line, ev)
}

// pythonName is the last part of a Python qualified name: train_step for
// p_partial_batch.<locals>.train_step.
func pythonName(q string) string {
	q = strings.TrimSuffix(q, ":")
	if i := strings.LastIndex(q, ".<locals>."); i >= 0 {
		q = q[i+len(".<locals>."):]
	}
	if i := strings.LastIndexByte(q, '.'); i >= 0 && !strings.HasSuffix(q, ">") {
		q = q[i+1:]
	}
	return q
}

// emitFuncGraph classifies TF's "Creating new FuncGraph" (logged at level 1): the first for a
// function is its first trace, a later one a retrace, explained by the parameters TF lists.
func (s *Scanner) emitFuncGraph(r *heldRecord) {
	fn := pythonName(r.name)
	var params []string
	for _, l := range r.lines[1:] {
		if l = strings.TrimSpace(l); l != "" {
			params = append(params, l)
		}
	}
	if s.tfTraced == nil {
		s.tfTraced = map[string]bool{}
	}
	kind := Retrace
	if !s.tfTraced[fn] {
		kind = Trace
		if len(s.tfTraced) < 4096 {
			s.tfTraced[fn] = true
		}
	}
	reason := ""
	if len(params) > 0 {
		reason = "new trace for input parameters:\n" + strings.Join(params, "\n")
	}
	s.emit(r.h, r.line, Event{Kind: kind, Producer: ProducerTF, Signal: "tf:funcgraph", Module: fn, Reason: reason})
}

// ptxlaMetrics are the counters and metrics of torch_xla's metrics report that recomp reads.
var ptxlaMetrics = map[string]bool{"CompileTime": true, "CachedCompile": true, "UncachedCompile": true,
	"PersistentCacheMiss": true, "PersistentCacheHit": true, "PersistentCacheDeserializeFailure": true, "PersistentCacheLoad": true}

// emitMetric reads a metric (TotalSamples, Accumulator) or a counter (Value).
func (s *Scanner) emitMetric(r *heldRecord) {
	ev := Event{Kind: FrameworkMetric, Producer: ProducerTorchXLA, Signal: "ptxla:metric", Detail: r.name}
	for _, l := range r.lines[1:] {
		k, v, ok := strings.Cut(strings.TrimSpace(l), ": ")
		if !ok {
			continue
		}
		switch k {
		case "TotalSamples", "Value":
			ev.Count = atoi(v)
		case "Accumulator":
			ev.Duration = parseTorchDuration(v)
		}
	}
	s.emit(r.h, r.line, ev)
}

// parseTorchDuration reads torch_xla's durations: 06s927ms200.612us, 01m12s, 205ms156.851us.
func parseTorchDuration(v string) time.Duration {
	var d time.Duration
	units := []struct {
		suffix string
		unit   time.Duration
	}{{"us", time.Microsecond}, {"ns", time.Nanosecond}, {"ms", time.Millisecond}, {"h", time.Hour}, {"m", time.Minute}, {"s", time.Second}}
	for v != "" {
		i := 0
		for i < len(v) && (isDigit(v[i]) || v[i] == '.') {
			i++
		}
		num, rest := v[:i], v[i:]
		found := false
		for _, u := range units {
			if strings.HasPrefix(rest, u.suffix) {
				f, err := strconv.ParseFloat(num, 64)
				if err != nil {
					return d
				}
				d += time.Duration(f * float64(u.unit))
				v = rest[len(u.suffix):]
				found = true
				break
			}
		}
		if !found {
			return d
		}
	}
	return d
}

// ptxlaState follows PyTorch/XLA's analysis blocks (PT_XLA_DEBUG_LEVEL >= 1). A Compilation
// Analysis is printed when a graph is about to be compiled, an Execution Analysis when one is
// run: the cause, the graph hash and name, the Python frames that triggered it, then a
// closing rule. A Post Compilation Analysis follows a compilation, with the sizes.
type ptxlaState struct {
	open        ptxlaKind
	wantCause   bool
	inFrames    bool
	ev          Event
	computation string   // the last "Computation hash:"
	post        []string // Post Compilation Analysis values
	postLine    int
	postHeader  header
}

type ptxlaKind uint8

const (
	ptxlaNone ptxlaKind = iota
	ptxlaCompile
	ptxlaExecute
)

func (s *Scanner) ptxlaBlock(kind ptxlaKind, body string, h header, lineNo int) {
	p := &s.ptxla
	trimmed := strings.TrimSpace(body)
	switch {
	case body == "Compilation Cause" || body == "Execution Cause":
		s.ptxlaFlush()
		p.open, p.wantCause = kind, true
		ev := Event{Kind: CompileBegin, Producer: ProducerTorchXLA, Signal: "ptxla:analysis", File: s.name, Line: lineNo,
			Time: h.t, DateKnown: h.dateKnown, Stamp: h.stamp}
		if kind == ptxlaExecute {
			ev.Kind, ev.Signal = Execution, "ptxla:execution"
		}
		p.ev = ev
	case p.open != kind:
	case p.wantCause && strings.HasPrefix(body, "  "):
		p.ev.Reason, p.wantCause = trimmed, false
	case strings.HasPrefix(trimmed, "Graph Hash: "):
		p.ev.Hash = strings.TrimPrefix(trimmed, "Graph Hash: ")
	case strings.HasPrefix(trimmed, "Graph Name: "):
		p.ev.Module = strings.TrimPrefix(trimmed, "Graph Name: ")
	case strings.HasPrefix(trimmed, "Python Frame Triggered Execution"):
		p.inFrames = true
	case strings.HasPrefix(trimmed, "=====") || strings.HasPrefix(trimmed, "-----"):
		s.ptxlaFlush()
	case p.inFrames && strings.HasPrefix(body, "  "):
		if p.ev.Module == "" && p.ev.Path == "" {
			if f := rePTXLAFrame.FindStringSubmatch(trimmed); f != nil && isUserFrame(f[2]) {
				p.ev.Path = path.Base(f[2]) + ":" + f[3] + " (" + f[1] + ")"
			}
		}
	default:
		p.wantCause = false
	}
}

// isUserFrame says whether a Python frame's file is the program's own, not a library's or
// the standard library's.
func isUserFrame(file string) bool {
	for _, lib := range []string{"/site-packages/", "/dist-packages/", "/lib/python3", "<frozen "} {
		if strings.Contains(file, lib) {
			return false
		}
	}
	return true
}

// ptxlaFlush emits the open analysis block. A graph torch_xla leaves unnamed (run by
// torch_xla.sync or mark_step) is named after the Python frame that triggered it: that is the
// identity a user thinks in.
func (s *Scanner) ptxlaFlush() {
	p := &s.ptxla
	if p.open == ptxlaNone {
		return
	}
	if p.ev.Module == "" {
		p.ev.Module = p.ev.Path
	}
	p.ev.Rank = s.rank
	s.pending = append(s.pending, p.ev)
	s.last, s.hasLast = p.ev, true
	*p = ptxlaState{computation: p.computation}
}

// ptxlaPost reads a Post Compilation Analysis block: the compilation it follows has finished.
func (s *Scanner) ptxlaPost(body string, h header, lineNo int) {
	p := &s.ptxla
	s.ptxlaFlush()
	trimmed := strings.TrimSpace(body)
	switch {
	case strings.HasPrefix(trimmed, "====="):
		if p.postLine == 0 {
			p.postLine, p.postHeader = lineNo, h
			return
		}
		detail := strings.Join(p.post, "; ")
		if p.computation != "" {
			detail = "computation hash " + p.computation + "; " + detail
		}
		s.emit(p.postHeader, p.postLine, Event{Kind: CompileFinished, Producer: ProducerTorchXLA, Signal: "ptxla:post_compilation",
			Detail: strings.TrimSuffix(detail, "; ")})
		p.post, p.postLine, p.computation = nil, 0, ""
	case strings.HasPrefix(trimmed, "-----"):
	default:
		if len(p.post) < 8 {
			p.post = append(p.post, trimmed)
		}
	}
}

func indexByteFrom(b []byte, c byte, from int) int {
	if j := bytes.IndexByte(b[from:], c); j >= 0 {
		return from + j
	}
	return -1
}

// jaxModuleName turns the name JAX logs ("jit(step)", or a bare "step" before 0.4.30) into
// the module name it gives XLA and its dumps ("jit_step"): mlir.sanitize_name replaces every
// character other than a letter, digit, '_', '.' or '-' with '_', and the trailing '_' are
// dropped (JAX 0.4 kept them: its dumps say jit__lambda_, which hlo.FunctionKey matches).
func jaxModuleName(name string) string {
	bare := !strings.Contains(name, "(")
	b := []rune(name)
	for i, r := range b {
		if !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || r == '.' || r == '-') {
			b[i] = '_'
		}
	}
	if bare {
		return "jit_" + string(b) // JAX 0.4 logged the bare name and kept a trailing '_'
	}
	return strings.TrimRight(string(b), "_")
}
