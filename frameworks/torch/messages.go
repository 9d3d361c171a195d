package torch

import (
	"bytes"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/recomp/recomp/internal/lazyre"
	"github.com/recomp/recomp/logscan"
)

// Messages of dynamo, torch.compile's front end (TORCH_LOGS=recompiles,dynamo), in each
// release's wording.
var (
	// The function dynamo traces for each compilation: "[0/0] Step 1: torchdynamo start tracing
	// forward /w/model.py:6".
	reDynamoStart = lazyre.New(`\[(\d+)/(\d+)(?:_\d+)?\] Step 1: torchdynamo start tracing (\S+) (.+):(\d+)\s*$`)
	// The backend's compilation of the graph dynamo traced (TORCH_LOGS=dynamo, torch 2.1+):
	// "[0/0] Step 2: calling compiler function inductor", then "… done compiler function
	// inductor"; a frame with no graph has none. Groups: compile id (frame/compile, a restart's
	// attempt dropped), done, backend.
	reDynamoBackend = lazyre.New(`\[(\d+/\d+)(?:_\d+)?\] Step 2: (calling|done) compiler function (\S+)`)
	// Every release's record of a recompilation: torch 2.3+ glog "[0/1] [__recompiles]
	// Recompiling function F in FILE:LINE" (2.3 without the [frame/compile] id), 2.1/2.2
	// "torch._dynamo.guards.__recompiles: [DEBUG] Recompiling function F in FILE:LINE", 2.0/2.1
	// "('Recompiling function F in FILE:LINE', 'triggered by the following guard failure: G')"
	// (2.0 without the line). Groups: compile id, function, file, line, guard failure.
	reDynamoRecompile = lazyre.New(`(?:\[(\d+/\d+)\] )?(?:\S*__recompiles(?:_verbose)?\S* (?:\[DEBUG\] )?)?\(?'?Recompiling function (\S+) in (.+?)(?::(\d+))?(?:'|\s*$)(?:, ["']triggered by the following guard failures?: (.*?)["']\))?`)
	reDynamoFailure   = lazyre.New(`__recompiles(?:_verbose)?\S*(?: \[DEBUG\])?\s+- ((?:\d+/\d+: )?.+?)\s*$`)
	// dynamo giving up on a function it compiled too often: torch 2.2+ "[4/8] torch._dynamo hit
	// config.cache_size_limit (8)" (2.6+ recompile_limit), then "function: 'F' (FILE:LINE)" and
	// "last reason: R" on lines of their own (2.0: "reasons: R"); with fullgraph=True,
	// "torch._dynamo.exc.FailOnRecompileLimitHit: recompile_limit reached".
	reDynamoLimit    = lazyre.New(`hit (config\.\w+) \((\d+)\)`)
	reDynamoLimitID  = lazyre.New(`\[(\d+/\d+)\] torch\._dynamo hit config\.`)
	reDynamoLimitFn  = lazyre.New(`\s function: '([^']+)' \((.+?)(?::(\d+))?\)\s*$`)
	reDynamoLimitWhy = lazyre.New(`\s (?:last reason|reasons): (?:\d+/\d+: )?(.*?)\s*$`)
)

// messages is how recomp reads dynamo's log.
var messages = &logscan.Framework{
	Name: Name,
	// The loggers of TORCH_LOGS's "dynamo" (torch/_logging/_registrations.py; each registered
	// logger has its own handler and does not propagate): recomp run's probe writes their
	// records into run.log, in torch's own layout, where the program's output would lose them
	// (pytest's capture).
	Loggers: map[string]logscan.Producer{"torch._dynamo": logscan.ProducerDynamo, "torch.fx.experimental.symbolic_shapes": logscan.ProducerDynamo,
		"torch.fx.experimental.sym_node": logscan.ProducerDynamo, "torch.fx.experimental.recording": logscan.ProducerDynamo},
	Anchors: []string{
		// The anchors' first 10 bytes are what the prefilter skips by: each was chosen so that
		// scanning a log where they are rare stays as fast (logscan's BenchmarkScanNoisyLog).
		"[__recompiles",      // dynamo 2.3+: [0/1] [__recompiles] Recompiling function F in FILE:LINE, its guard failures
		"recompiles: ",       // dynamo 2.0-2.2: torch._dynamo.guards.__recompiles: [DEBUG] …, the tuple form
		"start tracing ",     // dynamo: Step 1: torchdynamo start tracing F FILE:LINE
		"compiler function ", // dynamo: Step 2: calling compiler function inductor, done compiler function
		"it config.",         // dynamo: hit config.cache_size_limit (8), recompile_limit
		"RecompileLimitHit",  // dynamo: torch._dynamo.exc.FailOnRecompileLimitHit
		"create_symbol ",     // symbolic_shapes: [0/1] create_symbol s0 = 6 for L['ids'].size()[1] (a dimension made dynamic)
		// its structured trace (TORCH_TRACE): trace.go
		`{"compilation_metrics": `, `{"dynamo_start": `, `{"str": ["`, `{"create_symbol": `, `"fx_graph_cache_hit"`,
		`_cache_miss", "encoding"`, `_cache_bypass", "encoding"`, `_cache_hit", "encoding"`, // Inductor's caches: cachetrace.go
	},
	NewState: func() any { return &dynamo{} },
	Finish:   func(c *logscan.Context) { flushRecompile(c); standalone(c) },
	Rules: append(traceRules, []logscan.Rule{
		{Contains: "] Step 1: torchdynamo start tracing ", Handle: func(c *logscan.Context, msg string) bool {
			m := reDynamoStart.FindStringSubmatch(msg)
			if m == nil {
				return false
			}
			st := c.State().(*dynamo)
			frame := frameName(m[4], m[5], m[3])
			flushRecompile(c)
			st.frame, st.tracing, st.tracedAt, st.handed = frame, m[1]+"/"+m[2], c.Mark(), false
			c.Emit(logscan.Event{Kind: logscan.Trace, Producer: logscan.ProducerDynamo, Signal: "dynamo:start_tracing", Module: st.frame,
				Path: st.frame, Detail: "dynamo traces " + st.frame})
			return true
		}},
		{Contains: "] Step 2: ", Handle: backendStep},
		{Contains: "Recompiling function ", Handle: recompileRecord},
		{Contains: "__recompiles", Handle: func(c *logscan.Context, msg string) bool {
			st := c.State().(*dynamo)
			m := reDynamoFailure.FindStringSubmatch(msg)
			if m != nil && st.recompile && len(st.guards) < 8 {
				st.guards = append(st.guards, m[1])
			}
			// A guard failure, or the line that introduces them; any other record of the
			// recompiles logger is one recomp does not read (unread when it speaks of compiling).
			return m != nil || strings.Contains(msg, "triggered by the following guard failure")
		}},
		{Contains: "hit config.", Handle: limitHit},
		{Contains: "] create_symbol ", Handle: func(c *logscan.Context, msg string) bool {
			m := reCreateSymbol.FindStringSubmatch(msg)
			if m == nil {
				return false
			}
			c.State().(*dynamo).symbolFor(m[1], m[2])
			return true
		}},
		{Contains: "FailOnRecompileLimitHit", Handle: func(c *logscan.Context, msg string) bool {
			st := c.State().(*dynamo)
			if st.limitHit {
				return true // the function the warning before it named
			}
			flushRecompile(c)
			standalone(c)
			whole(c, c.Mark(), logscan.Event{Producer: logscan.ProducerDynamo, Signal: "dynamo:limit", Module: unnamedLimit,
				SeenBefore: true, Reason: strings.TrimSpace(msg), Detail: "dynamo gave up compiling a function again: " + strings.TrimSpace(msg)})
			return true
		}},
	}...),
}

// dynamo follows dynamo's records in one process.
type dynamo struct {
	// the function being compiled (file:line (function)), and a recompile record that waits for
	// its guard failures
	frame       string
	recompile   bool
	recompileAt logscan.Mark
	recompileID string // the record's [frame/compile] id, "" when it has none
	guards      []string
	// unmatched are the recompile records no backend's compilation followed yet (see
	// HandedOver); recorded are the functions with a recompile record in this process;
	// limitHit says the recompile-limit warning was just read.
	unmatched []dynamoRecompile
	recorded  map[string]bool
	limitHit  bool
	// tracing is the compile id (frame/compile) of the last "start tracing" record, tracedAt its
	// place; handed says a backend took over the compilation since (HandedOver).
	tracing  string
	tracedAt logscan.Mark
	handed   bool
	// trace is what its structured trace's records said (nil before one)
	trace *traceState
	// symbols are, by compile id, the inputs' dimensions the compilation made dynamic
	// (logscan.Event.Dynamic), until its compilation is emitted
	symbols map[string][]string
}

// reCreateSymbol is a dimension dynamo made dynamic in a compilation (symbolic_shapes' INFO
// record, torch 2.1+): "[0/1] create_symbol s27 = 6 for L['ids'].size()[1] [2, int_oo] …", or
// for a Python number, "create_symbol zf86 = 0.25 for L['warm'] …". Groups: compile id, the
// symbol's source (reSymbolSource reads an input's size).
var reCreateSymbol = lazyre.New(`\[(\d+/\d+)\] create_symbol \S+ = \S+ for (\S+)`)

// symbolFor keeps what the compilation id made dynamic, by the symbol's source: an input's size
// (L['ids'].size()[1] as ids.size()[1]) or a Python number (L['lr'] as lr); a stride or another
// expression is not kept.
func (st *dynamo) symbolFor(id, src string) {
	d := ""
	if m := reSymbolSource.FindStringSubmatch(src); m != nil {
		d = source(m[1]) + ".size()[" + m[2] + "]"
	} else if name := source(src); name != src && !strings.ContainsAny(name, "[]().") {
		d = name
	}
	if d == "" {
		return
	}
	if st.symbols == nil {
		st.symbols = map[string][]string{}
	}
	if _, ok := st.symbols[id]; !ok && len(st.symbols) >= 1024 {
		return
	}
	if len(st.symbols[id]) < 8 && !slices.Contains(st.symbols[id], d) {
		st.symbols[id] = append(st.symbols[id], d)
	}
}

// dynamicOf takes the dimensions the compilation id made dynamic, one a line.
func (st *dynamo) dynamicOf(id string) string {
	d := strings.Join(st.symbols[id], "\n")
	delete(st.symbols, id)
	return d
}

// Compiling is the function dynamo is compiling in the process of c's record, as recomp names
// it (file:line (function)); "" when the grammar has no dynamo or it named none. A backend
// whose own records show only library frames (PyTorch/XLA's analysis under torch.compile) names
// its graph by it.
func Compiling(c *logscan.Context) string {
	d := c.Of(Name)
	if d == nil {
		return ""
	}
	return d.State().(*dynamo).frame
}

// HandedOver says that a backend behind dynamo (PyTorch/XLA) begins, at c's record, to compile
// what dynamo handed it: dynamo's recompile records before it are that compilation's cause, not
// compilations of their own.
func HandedOver(c *logscan.Context) {
	d := c.Of(Name)
	if d == nil {
		return
	}
	flushRecompile(d)
	st := d.State().(*dynamo)
	st.unmatched, st.handed = nil, true
}

// dynamoRecompile is a recompile record waiting to be known as a backend's compilation or a
// compilation of its own.
type dynamoRecompile struct {
	at     logscan.Mark
	frame  string
	reason string
	// id is the record's compile id ("0/1", "" when it gave none); end the place of the
	// backend's "done compiler function" when the log shows it (ended). first says it is the
	// frame's first compilation (compile 0), which no recompile record names.
	id    string
	end   logscan.Mark
	ended bool
	first bool
}

// backendStep reads dynamo's "Step 2: calling/done compiler function B": a compilation of the
// graph dynamo traced, finished at "done". Compile 0 of a frame is its first compilation, which
// no recompile record names; a later one ends the recompile record of the same id. Where a
// backend that logs its own compilations took over (HandedOver), those are the compilation.
func backendStep(c *logscan.Context, msg string) bool {
	m := reDynamoBackend.FindStringSubmatch(msg)
	if m == nil {
		return false
	}
	st := c.State().(*dynamo)
	if m[2] == "calling" {
		flushRecompile(c)
		return true
	}
	flushRecompile(c)
	if st.handed {
		return true
	}
	for i := range st.unmatched {
		if r := &st.unmatched[i]; r.id == m[1] && !r.ended {
			r.end, r.ended = c.Mark(), true
			return true
		}
	}
	r := dynamoRecompile{at: c.Mark(), frame: st.frame, id: m[1], end: c.Mark(), ended: true, first: strings.HasSuffix(m[1], "/0")}
	if st.tracing == m[1] {
		r.at = st.tracedAt
	}
	if st.frame == "" {
		r.frame = unnamedLimit
	}
	st.unmatched = append(st.unmatched, r)
	return true
}

// unnamedLimit is the module of a recompile-limit error that names no function.
const unnamedLimit = "torch.compile function (not named)"

// recompileRecord reads dynamo's "Recompiling function F in FILE:LINE" in each release's
// layout. The guard failures follow on lines of their own (2.1 and later) or in the same
// record (2.0's tuple).
func recompileRecord(c *logscan.Context, msg string) bool {
	m := reDynamoRecompile.FindStringSubmatch(msg)
	if m == nil {
		return false
	}
	st := c.State().(*dynamo)
	frame := frameName(m[3], m[4], m[2])
	if st.recompile && st.frame == frame && m[1] != "" && m[1] == st.recompileID {
		return true // the verbose record of the same recompilation
	}
	flushRecompile(c)
	standalone(c)
	st.frame = frame
	st.recompile, st.recompileAt, st.recompileID, st.guards = true, c.Mark(), m[1], nil
	if g := strings.TrimSpace(m[5]); g != "" {
		st.guards = append(st.guards, strings.NewReplacer(`\'`, "'", `\"`, `"`).Replace(g))
	}
	return true
}

// reProbeName is the probe's name of a compiled frame: FILE:LINE (FUNCTION).
var reProbeName = lazyre.New(`^(.+):(\d+) \((.+)\)$`)

// probeName turns the probe's name of a compiled frame (its code's full path) into the log's
// (frameName).
func probeName(name string) string {
	if m := reProbeName.FindStringSubmatch(name); m != nil {
		return frameName(m[1], m[2], m[3])
	}
	return name
}

// frameName names dynamo's function as recomp names PyTorch/XLA's graphs: file:line (function),
// the file's base name (file alone when dynamo gave no line).
func frameName(file, line, fn string) string {
	if line == "" {
		return path.Base(file) + " (" + fn + ")"
	}
	return path.Base(file) + ":" + line + " (" + fn + ")"
}

// limitHit reads dynamo's warning that a function reached its recompile limit: the function was
// compiled as many times as the limit, so at least once again. When the log holds no recompile
// record of the function, the warning stands for one recompilation (the fewest it implies);
// "function:" and "last reason:" follow on lines of their own.
func limitHit(c *logscan.Context, msg string) bool {
	m := reDynamoLimit.FindStringSubmatch(msg)
	if m == nil {
		return false
	}
	st := c.State().(*dynamo)
	key := ""
	if id := reDynamoLimitID.FindStringSubmatch(msg); id != nil {
		key = id[1]
	}
	if st.recompile && key != "" && st.recompileID == key {
		// the record of this compile id was dynamo about to compile the function again; at the
		// limit it did not: no compilation (the limit stands for one where no record of the
		// function came before)
		st.recompile, st.guards = false, nil
	}
	flushRecompile(c)
	standalone(c)
	head := strings.TrimSpace(m[0])
	limit := m[1] + " = " + m[2]
	at := c.Mark()
	c.Hold(msg, func(l []byte) bool {
		return bytes.Contains(l, []byte(" function: '")) || bytes.Contains(l, []byte(" reason")) || bytes.Contains(l, []byte(" recompilation "))
	}, func(c *logscan.Context, lines []string) {
		frame, why := unnamedLimit, ""
		for _, l := range lines[1:] {
			if f := reDynamoLimitFn.FindStringSubmatch(l); f != nil {
				frame = frameName(f[2], f[3], f[1])
			} else if w := reDynamoLimitWhy.FindStringSubmatch(l); w != nil && why == "" {
				why = w[1]
			}
		}
		limitRecord(c, at, head, frame, why, key)
		c.EmitAt(at, logscan.Event{Kind: logscan.FrameworkWarning, Producer: logscan.ProducerDynamo, Signal: "dynamo:recompile_limit",
			Module: frame, Key: key, Detail: limitDetail(frame, limit, 0)})
	})
	return true
}

// limitDetail is what dynamo's recompile limit for frame means: the function runs eagerly
// from then on; eager is how many calls the evidence shows reached the limit (each ran
// eagerly), 0 or 1 when it shows the first alone (dynamo records the limit once: the calls it
// then runs eagerly leave no record).
func limitDetail(frame, limit string, eager int) string {
	d := "dynamo reached its recompile limit for " + frame + " (" + limit + "): from then on, each call whose inputs pass none of its " +
		"compiled entries' guards runs eagerly (uncompiled), and is slow; "
	if eager > 1 {
		return d + fmt.Sprintf("%d calls that reached the limit are recorded, each run eagerly", eager)
	}
	return d + "the call that reached it ran eagerly, and how many more did is not recorded (dynamo records the limit once, " +
		"not each call it then runs eagerly)"
}

func limitRecord(c *logscan.Context, at logscan.Mark, head, frame, why, key string) {
	st := c.State().(*dynamo)
	st.limitHit = true
	if st.recorded[frame] {
		return // its recompilations are counted from its records
	}
	reason := "dynamo " + head
	if why != "" {
		reason += "; last reason: " + why
	}
	whole(c, at, logscan.Event{Producer: logscan.ProducerDynamo, Signal: "dynamo:limit", Module: frame, Path: frame,
		SeenBefore: true, Reason: reason, Key: key, Detail: "dynamo compiled " + frame + " until it " + head})
}

// flushRecompile emits dynamo's record that it compiles a function again, with the guard
// failures it gave: a recompilation of the function, whose first compilation may be unnamed
// in the log (dynamo names a function only when it compiles it again). The record waits for
// the backend's compilation that follows it, if any (see standalone).
func flushRecompile(c *logscan.Context) {
	st := c.State().(*dynamo)
	if !st.recompile {
		return
	}
	st.recompile, st.limitHit = false, false
	// each failure after its entry's id, as the trace's recompile_reason: the first without it
	reason := reReasonID.ReplaceAllString(strings.Join(st.guards, "\n"), "")
	c.EmitAt(st.recompileAt, logscan.Event{Kind: logscan.Retrace, Producer: logscan.ProducerDynamo, Signal: "dynamo:recompile",
		Module: st.frame, Path: st.frame, Reason: reason, SeenBefore: true, Key: st.recompileID,
		Detail: "dynamo compiles " + st.frame + " again"})
	st.unmatched = append(st.unmatched, dynamoRecompile{at: st.recompileAt, frame: st.frame, reason: reason, id: st.recompileID})
	if st.recorded == nil {
		st.recorded = map[string]bool{}
	}
	if len(st.recorded) < 1024 {
		st.recorded[st.frame] = true
	}
	st.guards = nil
}

// standalone emits the recompile records no backend's compilation followed before the next
// record or the end of the log: dynamo compiled the function again with another backend
// (inductor, or PyTorch/XLA without its analysis), each a compilation of its own.
func standalone(c *logscan.Context) {
	st := c.State().(*dynamo)
	for _, r := range st.unmatched {
		ev := logscan.Event{Kind: logscan.CompileBegin, Producer: logscan.ProducerDynamo, Signal: "dynamo:recompile",
			Module: r.frame, Path: r.frame, Reason: r.reason, SeenBefore: true, Detail: "dynamo compiled " + r.frame + " again", Key: r.id,
			Dynamic: st.dynamicOf(r.id)}
		if r.first {
			ev.Signal, ev.SeenBefore, ev.Detail = "dynamo:compile", false, "dynamo compiled "+r.frame
		}
		end := r.at
		if r.ended {
			end = r.end
		}
		c.EmitAt(r.at, ev)
		c.EmitAt(end, logscan.Event{Kind: logscan.CompileFinished, Producer: ev.Producer, Signal: ev.Signal, Module: ev.Module, Key: ev.Key})
	}
	st.unmatched = st.unmatched[:0]
}

// whole emits a compilation dynamo's record stands for, begun and finished at its line, so that
// no later record joins it.
func whole(c *logscan.Context, at logscan.Mark, ev logscan.Event) {
	ev.Kind = logscan.CompileBegin
	c.EmitAt(at, ev)
	c.EmitAt(at, logscan.Event{Kind: logscan.CompileFinished, Producer: ev.Producer, Signal: ev.Signal, Module: ev.Module, Key: ev.Key})
}
