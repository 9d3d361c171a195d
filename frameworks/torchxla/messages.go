package torchxla

import (
	"path"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/recomp/recomp/frameworks/internal/python"
	"github.com/recomp/recomp/logscan"
)

// Messages of PyTorch/XLA, from torch_xla 2.9's torch_xla/csrc/debug_util.cpp,
// metrics_analysis.cc, the metrics report and real runs.
var (
	reProfiler = regexp.MustCompile(`pt-xla-profiler: ((\w+) too (?:frequent|slow): .*)$`)
	reFrame    = regexp.MustCompile(`^(\S+) \((.+):(\d+)\)$`)
	reMetric   = regexp.MustCompile(`^(Metric|Counter): (\w+)$`)
	// torch.compile's front end, dynamo (TORCH_LOGS=recompiles,dynamo): the function it traces
	// for each compilation, and why it compiles one again.
	reDynamoStart     = regexp.MustCompile(`\[(\d+)/(\d+)\] Step 1: torchdynamo start tracing (\S+) (.+):(\d+)\s*$`)
	reDynamoRecompile = regexp.MustCompile(`\[(\d+)/(\d+)\] \[__recompiles\] Recompiling function (\S+) in (.+):(\d+)\s*$`)
	reDynamoFailure   = regexp.MustCompile(`\[__recompiles\]\s+- (?:\d+/\d+: )?(.+?)\s*$`)
)

// metrics are the counters and metrics of torch_xla's metrics report that recomp reads.
var metrics = map[string]bool{"CompileTime": true, "CachedCompile": true, "UncachedCompile": true,
	"PersistentCacheMiss": true, "PersistentCacheHit": true, "PersistentCacheDeserializeFailure": true, "PersistentCacheLoad": true}

// messages is how recomp reads PyTorch/XLA's log.
var messages = &logscan.Framework{
	Name: Name,
	Anchors: []string{
		"ompilation",      // Compilation Analysis, Post Compilation Analysis
		"pt-xla-profiler", // auto-metrics
		"cution Analysis", // Execution Analysis
		"mputation hash:", // Computation hash:
		"CompileTime",     // metrics report: Metric: CompileTime
		"achedCompile",    // metrics report: Counter: CachedCompile, UncachedCompile
		"PersistentCache", // metrics report: the persistent cache's counters
		"[__recompiles]",  // dynamo: Recompiling function F in FILE:LINE and its guard failures
		"start tracing ",  // dynamo: Step 1: torchdynamo start tracing F FILE:LINE
	},
	Begins: []string{"Compilation Analysis: "},
	Heads: []string{"Compilation Analysis: ", "Execution Analysis: ", "Post Compilation Analysis: ", "Computation hash: ",
		"Metric: ", "Counter: "},
	Loggers:  map[string]logscan.Producer{"torch_xla": logscan.ProducerTorchXLA},
	NewState: func() any { return &analysis{} },
	Finish:   func(c *logscan.Context) { flush(c); flushRecompile(c) },
	Rules: []logscan.Rule{
		{Prefix: "Compilation Analysis: ", Handle: func(c *logscan.Context, msg string) bool {
			block(c, compileBlock, strings.TrimPrefix(msg, "Compilation Analysis: "))
			return true
		}},
		{Prefix: "Execution Analysis: ", Handle: func(c *logscan.Context, msg string) bool {
			block(c, executeBlock, strings.TrimPrefix(msg, "Execution Analysis: "))
			return true
		}},
		{Prefix: "Post Compilation Analysis: ", Handle: func(c *logscan.Context, msg string) bool {
			post(c, strings.TrimPrefix(msg, "Post Compilation Analysis: "))
			return true
		}},
		{Prefix: "Computation hash: ", Handle: func(c *logscan.Context, msg string) bool {
			c.State().(*analysis).computation = strings.TrimSpace(strings.TrimPrefix(msg, "Computation hash: "))
			return true
		}},
		{Contains: "pt-xla-profiler: ", Handle: func(c *logscan.Context, msg string) bool {
			m := reProfiler.FindStringSubmatch(msg)
			if m == nil {
				return false
			}
			kind := logscan.FrameworkWarning
			if m[2] == "CompileTime" {
				kind = logscan.Retrace
			}
			c.Emit(logscan.Event{Kind: kind, Producer: logscan.ProducerTorchXLA, Signal: logscan.Signal("ptxla:" + m[2]), Detail: m[1]})
			return true
		}},
		{Contains: "] Step 1: torchdynamo start tracing ", Handle: func(c *logscan.Context, msg string) bool {
			st := dynamoFrame(c, reDynamoStart, msg)
			if st == nil {
				return false
			}
			c.Emit(logscan.Event{Kind: logscan.Trace, Producer: logscan.ProducerTorchXLA, Signal: "dynamo:start_tracing", Module: st.frame,
				Path: st.frame, Detail: "dynamo traces " + st.frame})
			return true
		}},
		{Contains: "[__recompiles] Recompiling function ", Handle: func(c *logscan.Context, msg string) bool {
			st := dynamoFrame(c, reDynamoRecompile, msg)
			if st == nil {
				return false
			}
			st.recompile, st.recompileAt, st.guards = true, c.Mark(), nil
			return true
		}},
		{Contains: "[__recompiles]", Handle: func(c *logscan.Context, msg string) bool {
			st := c.State().(*analysis)
			if m := reDynamoFailure.FindStringSubmatch(msg); m != nil && st.recompile && len(st.guards) < 8 {
				st.guards = append(st.guards, m[1])
			}
			return true
		}},
		{Prefix: "Metric: ", Handle: metric},
		{Prefix: "Counter: ", Handle: metric},
	},
}

func metric(c *logscan.Context, msg string) bool {
	m := reMetric.FindStringSubmatch(msg)
	if m == nil || !metrics[m[2]] {
		return false
	}
	name := m[2]
	c.Hold(msg, func(l []byte) bool { return logscan.Indented(l, 2) },
		func(c *logscan.Context, lines []string) { emitMetric(c, name, lines) })
	return true
}

// emitMetric reads a metric (TotalSamples, Accumulator) or a counter (Value).
func emitMetric(c *logscan.Context, name string, lines []string) {
	ev := logscan.Event{Kind: logscan.FrameworkMetric, Producer: logscan.ProducerTorchXLA, Signal: "ptxla:metric", Detail: name}
	for _, l := range lines[1:] {
		k, v, ok := strings.Cut(strings.TrimSpace(l), ": ")
		if !ok {
			continue
		}
		switch k {
		case "TotalSamples", "Value":
			ev.Count, _ = strconv.Atoi(v)
		case "Accumulator":
			ev.Duration = parseDuration(v)
		}
	}
	c.Emit(ev)
}

// parseDuration reads torch_xla's durations: 06s927ms200.612us, 01m12s, 205ms156.851us.
func parseDuration(v string) time.Duration {
	var d time.Duration
	units := []struct {
		suffix string
		unit   time.Duration
	}{{"us", time.Microsecond}, {"ns", time.Nanosecond}, {"ms", time.Millisecond}, {"h", time.Hour}, {"m", time.Minute}, {"s", time.Second}}
	for v != "" {
		i := 0
		for i < len(v) && (v[i] >= '0' && v[i] <= '9' || v[i] == '.') {
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

// analysis follows PyTorch/XLA's analysis blocks (PT_XLA_DEBUG_LEVEL >= 1) in one process. A
// Compilation Analysis is printed when a graph is about to be compiled, an Execution Analysis
// when one is run: the cause, the graph hash and name, the Python frames that triggered it,
// then a closing rule. A Post Compilation Analysis follows a compilation, with the sizes.
type analysis struct {
	// dynamo's function being compiled (file:line (function)), and a recompile record that
	// waits for its guard failures
	frame       string
	recompile   bool
	recompileAt logscan.Mark
	guards      []string

	open        blockKind
	wantCause   bool
	inFrames    bool
	firstUser   string // the first frame of the program's own code in the block
	ev          logscan.Event
	computation string   // the last "Computation hash:"
	post        []string // Post Compilation Analysis values
	postAt      logscan.Mark
	postOpen    bool
}

type blockKind uint8

const (
	noBlock blockKind = iota
	compileBlock
	executeBlock
)

func block(c *logscan.Context, kind blockKind, body string) {
	p := c.State().(*analysis)
	trimmed := strings.TrimSpace(body)
	switch {
	case body == "Compilation Cause" || body == "Execution Cause":
		flush(c)
		flushRecompile(c)
		p.open, p.wantCause = kind, true
		t, dateKnown, stamp := c.Time()
		ev := logscan.Event{Kind: logscan.CompileBegin, Producer: logscan.ProducerTorchXLA, Signal: "ptxla:analysis", File: c.File(), Line: c.Line(),
			Time: t, DateKnown: dateKnown, Stamp: stamp}
		if kind == executeBlock {
			ev.Kind, ev.Signal = logscan.Execution, "ptxla:execution"
		}
		p.ev, p.firstUser = ev, ""
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
		flush(c)
	case p.inFrames && strings.HasPrefix(body, "  "):
		if f := reFrame.FindStringSubmatch(trimmed); f != nil && python.IsUserFrame(f[2]) {
			frame := path.Base(f[2]) + ":" + f[3] + " (" + f[1] + ")"
			switch {
			case p.firstUser == "":
				p.firstUser = frame
				if p.ev.Module == "" && p.ev.Path == "" {
					p.ev.Path = frame
				}
			case p.ev.Caller == "" && frame != p.firstUser:
				p.ev.Caller = frame // the program's own line that called it
			}
		}
	default:
		p.wantCause = false
	}
}

// flush emits the open analysis block. A graph torch_xla leaves unnamed (run by torch_xla.sync
// or mark_step) is named after the Python frame that triggered it: that is the identity a user
// thinks in.
func flush(c *logscan.Context) {
	p := c.State().(*analysis)
	if p.open == noBlock {
		return
	}
	if p.ev.Module == "" && p.ev.Path == "" && p.frame != "" && p.ev.Kind == logscan.CompileBegin {
		// every frame is library code (torch.compile's): the graph is dynamo's function
		p.ev.Path = p.frame
	}
	if p.ev.Module == "" {
		p.ev.Module = p.ev.Path
		if p.ev.Module != "" && strings.HasPrefix(p.ev.Reason, "torch_xla.sync when dynamo processing input graphs") {
			// the inputs dynamo's function is given, still to be computed on the device (a
			// tensor made there: torch.ones(n, 8, device=...)): a program of their own
			p.ev.Module = inputsOf(p.ev.Module)
		}
	}
	if !strings.HasPrefix(p.ev.Reason, "dynamo is compiling") {
		// the first frame of the program's own is where it compiled (a torch_xla.sync, a
		// tensor read); only a function dynamo compiles has a caller of its own
		p.ev.Caller = ""
	}
	c.Append(p.ev)
	*p = analysis{computation: p.computation, frame: p.frame, recompile: p.recompile, recompileAt: p.recompileAt, guards: p.guards}
}

// post reads a Post Compilation Analysis block: the compilation it follows has finished.
func post(c *logscan.Context, body string) {
	p := c.State().(*analysis)
	flush(c)
	trimmed := strings.TrimSpace(body)
	switch {
	case strings.HasPrefix(trimmed, "====="):
		if !p.postOpen {
			p.postAt, p.postOpen = c.Mark(), true
			return
		}
		detail := strings.Join(p.post, "; ")
		if p.computation != "" {
			detail = "computation hash " + p.computation + "; " + detail
		}
		c.EmitAt(p.postAt, logscan.Event{Kind: logscan.CompileFinished, Producer: logscan.ProducerTorchXLA, Signal: "ptxla:post_compilation",
			Detail: strings.TrimSuffix(detail, "; ")})
		p.post, p.postOpen, p.computation = nil, false, ""
	case strings.HasPrefix(trimmed, "-----"):
	default:
		if len(p.post) < 8 {
			p.post = append(p.post, trimmed)
		}
	}
}

// dynamoFrame reads a dynamo message that names the frame it is about (re: its function, file
// and line as groups 3, 4, 5): the recompilation noted before it is flushed and the frame becomes
// the current one. It returns nil when msg is not that message.
func dynamoFrame(c *logscan.Context, re *regexp.Regexp, msg string) *analysis {
	m := re.FindStringSubmatch(msg)
	if m == nil {
		return nil
	}
	st := c.State().(*analysis)
	flushRecompile(c)
	st.frame = frameName(m[4], m[5], m[3])
	return st
}

// frameName names dynamo's function as recomp names PyTorch/XLA's graphs: file:line (function),
// the file's base name.
func frameName(file, line, fn string) string {
	return path.Base(file) + ":" + line + " (" + fn + ")"
}

// inputsOf names the graph that computes the inputs of dynamo's function named frame:
// "dyn.py:5 (forward)" → "dyn.py:5 (inputs of forward)".
func inputsOf(frame string) string {
	if i := strings.LastIndex(frame, " ("); i >= 0 && strings.HasSuffix(frame, ")") {
		return frame[:i] + " (inputs of " + frame[i+2:]
	}
	return frame + " (inputs)"
}

// flushRecompile emits dynamo's record that it compiles a function again, with the guard
// failures it gave: a recompilation of the function, whose first compilation may be unnamed
// in the log (dynamo names a function only when it compiles it again).
func flushRecompile(c *logscan.Context) {
	st := c.State().(*analysis)
	if !st.recompile {
		return
	}
	st.recompile = false
	reason := strings.Join(st.guards, "\n")
	c.EmitAt(st.recompileAt, logscan.Event{Kind: logscan.Retrace, Producer: logscan.ProducerTorchXLA, Signal: "dynamo:recompile",
		Module: st.frame, Path: st.frame, Reason: reason, SeenBefore: true,
		Detail: "dynamo compiles " + st.frame + " again"})
	st.guards = nil
}
