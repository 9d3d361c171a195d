package torchxla

import (
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/recomp/recomp/frameworks/internal/python"
	"github.com/recomp/recomp/frameworks/torch"
	"github.com/recomp/recomp/internal/lazyre"
	"github.com/recomp/recomp/logscan"
)

// Messages of PyTorch/XLA, from torch_xla 2.9's torch_xla/csrc/debug_util.cpp,
// metrics_analysis.cc, the metrics report and real runs.
var (
	reProfiler = lazyre.New(`pt-xla-profiler: ((\w+) too (?:frequent|slow): .*)$`)
	// metrics_analysis.cc's CompileTime warning: the CompileTime samples so far (cumulative, as a
	// metrics report's) and the steps so far: "CompileTime too frequent: 21 counts during 11 steps".
	reProfilerCounts = lazyre.New(`: (\d+) counts during (\d+) steps`)
	reFrame          = lazyre.New(`^(\S+) \((.+):(\d+)\)$`)
	reMetric         = lazyre.New(`^(Metric|Counter): (\w+)$`)
	// torch_xla's own compile trace (TF_CPP_VMODULE=tensor=5 before 1.13, xla_graph_executor=5
	// after): "Compiling IR graph hash H on device TPU:3 ..." then "... done!".
	reIRGraph = lazyre.New(`Compiling IR graph hash ([0-9a-f]+) on device (\S+?)(?: (\.\.\.)\.*| done!)?\s*$`)
	// The step PyTorch/XLA's example scripts print before a metrics report.
	reMetricsStep = lazyre.New(`^\[MetricsData; step=(\d+)\]`)
)

// metrics are the counters and metrics of torch_xla's metrics report that recomp reads.
var metrics = map[string]bool{"CompileTime": true, "CachedCompile": true, "UncachedCompile": true, "ExecuteTime": true, "XrtExecute": true,
	"PersistentCacheMiss": true, "PersistentCacheHit": true, "PersistentCacheDeserializeFailure": true, "PersistentCacheLoad": true,
	"TransferFromDeviceTime": true}

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
		"FromDeviceTime",  // metrics report: Metric: TransferFromDeviceTime (host reads)
		// The anchors' first 10 bytes are what the prefilter skips by: each was chosen so that
		// scanning a log where they are rare stays as fast (logscan's BenchmarkScanNoisyLog).
		"MetricsData; step=", // [MetricsData; step=4] before a metrics report
		"g IR graph hash ",   // Compiling IR graph hash H on device TPU:3 ...
		"to deserialize exe", // Failed to deserialize executable: a persistent-cache entry not read (cache.go)
	},
	Begins: []string{"Compilation Analysis: "},
	Heads: []string{"Compilation Analysis: ", "Execution Analysis: ", "Post Compilation Analysis: ", "Computation hash: ",
		"Metric: ", "Counter: ", "[MetricsData; step="},
	Loggers:  map[string]logscan.Producer{"torch_xla": logscan.ProducerTorchXLA},
	NewState: func() any { return &analysis{} },
	Finish:   flush,
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
			if n := reProfilerCounts.FindStringSubmatch(m[1]); n != nil && m[2] == "CompileTime" {
				// the compilations so far, as a metrics report counts them: 23 counts where the
				// last warning said 21 are 2 graphs compiled again
				count, _ := strconv.Atoi(n[1])
				c.Emit(logscan.Event{Kind: logscan.FrameworkMetric, Producer: logscan.ProducerTorchXLA, Signal: "ptxla:metric",
					Detail: "CompileTime", Count: count, Step: n[2]})
			}
			return true
		}},
		{Contains: "Failed to deserialize executable", Handle: deserializeFailure},
		{Contains: "Compiling IR graph hash ", Handle: func(c *logscan.Context, msg string) bool {
			m := reIRGraph.FindStringSubmatch(msg)
			if m == nil {
				return false
			}
			if m[3] == "" {
				return true // "done!": the compilation begun on that device finished
			}
			// Each device's graphs are a program of their own: the processes of xmp.spawn, one
			// per TPU core, compile the same graph at once into one log.
			c.Emit(logscan.Event{Kind: logscan.CompileBegin, Producer: logscan.ProducerTorchXLA, Signal: "ptxla:ir_graph",
				Module: "IR graph on " + m[2], Hash: m[1]})
			return true
		}},
		{Prefix: "[MetricsData; step=", Handle: func(c *logscan.Context, msg string) bool {
			m := reMetricsStep.FindStringSubmatch(msg)
			if m == nil {
				return false
			}
			c.State().(*analysis).step = m[1]
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
	ev := logscan.Event{Kind: logscan.FrameworkMetric, Producer: logscan.ProducerTorchXLA, Signal: "ptxla:metric", Detail: name,
		Step: c.State().(*analysis).step}
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
//
// torch_xla prints each part but the last with std::fixed and precision 0, which rounds, while
// it carries only the part's floor to the next: 1.5629 s prints as 02s563ms900.000us. Read
// from the last part back, a part whose remainder is half its unit or more was rounded up, and
// its floor is one less than printed.
func parseDuration(v string) time.Duration {
	type part struct {
		num  float64
		unit time.Duration
	}
	var parts []part
	units := []struct {
		suffix string
		unit   time.Duration
	}{{"us", time.Microsecond}, {"ns", time.Nanosecond}, {"ms", time.Millisecond}, {"d", 24 * time.Hour}, {"h", time.Hour}, {"m", time.Minute}, {"s", time.Second}}
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
					break
				}
				parts = append(parts, part{f, u.unit})
				v = rest[len(u.suffix):]
				found = true
				break
			}
		}
		if !found {
			break
		}
	}
	var d time.Duration
	for i := len(parts) - 1; i >= 0; i-- {
		p := parts[i]
		n := p.num
		if i < len(parts)-1 && n >= 1 && 2*d >= p.unit {
			n-- // rounded up: its remainder d is at least half of its unit
		}
		d += time.Duration(n * float64(p.unit))
	}
	return d
}

// analysis follows PyTorch/XLA's analysis blocks (PT_XLA_DEBUG_LEVEL >= 1) in one process. A
// Compilation Analysis is printed when a graph is about to be compiled, an Execution Analysis
// when one is run: the cause, the graph hash and name, the Python frames that triggered it,
// then a closing rule. A Post Compilation Analysis follows a compilation, with the sizes.
type analysis struct {
	// step is the step of the last [MetricsData; step=N] header, "" before one.
	step string
	// deserializeFailures counts the persistent cache's entries not read so far (cache.go).
	deserializeFailures int

	open        blockKind
	wantCause   bool
	inFrames    bool
	firstUser   string // the first frame of the program's own code in the block
	inputs      string // the open compile block's "Number of Graph Inputs", until its outputs
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
		if kind == compileBlock {
			torch.HandedOver(c) // PyTorch/XLA compiles what dynamo recompiled: that is the compilation
		}
		p.open, p.wantCause = kind, true
		t, dateKnown, stamp := c.Time()
		ev := logscan.Event{Kind: logscan.CompileBegin, Producer: logscan.ProducerTorchXLA, Signal: "ptxla:analysis", File: c.File(), Line: c.Line(),
			Time: t, DateKnown: dateKnown, Stamp: stamp}
		if kind == executeBlock {
			ev.Kind, ev.Signal = logscan.Execution, "ptxla:execution"
		}
		p.ev, p.firstUser, p.inputs = ev, "", ""
	case p.open != kind:
	case p.wantCause && strings.HasPrefix(body, "  "):
		p.ev.Reason, p.wantCause = trimmed, false
	case strings.HasPrefix(trimmed, "Graph Hash: "):
		p.ev.Hash = strings.TrimPrefix(trimmed, "Graph Hash: ")
	case kind == compileBlock && strings.HasPrefix(trimmed, "Number of Graph "):
		p.graphInfo(trimmed)
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
	if p.ev.Module == "" && p.ev.Path == "" && p.ev.Kind == logscan.CompileBegin {
		// every frame is library code (torch.compile's): the graph is dynamo's function
		p.ev.Path = torch.Compiling(c)
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
	*p = analysis{computation: p.computation, step: p.step, deserializeFailures: p.deserializeFailures}
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

// inputsOf names the graph that computes the inputs of dynamo's function named frame:
// "dyn.py:5 (forward)" → "dyn.py:5 (inputs of forward)".
func inputsOf(frame string) string {
	if i := strings.LastIndex(frame, " ("); i >= 0 && strings.HasSuffix(frame, ")") {
		return frame[:i] + " (inputs of " + frame[i+2:]
	}
	return frame + " (inputs)"
}

// graphInfo reads a compile block's "Number of Graph Inputs: N" and "… Outputs: M" into the
// event's Graph ("inputs N, outputs M"), with one allocation.
func (p *analysis) graphInfo(line string) {
	if n, ok := strings.CutPrefix(line, "Number of Graph Inputs: "); ok {
		p.inputs = n
	} else if n, ok := strings.CutPrefix(line, "Number of Graph Outputs: "); ok && p.inputs != "" {
		p.ev.Graph = "inputs " + p.inputs + ", outputs " + n
		p.inputs = ""
	}
}
