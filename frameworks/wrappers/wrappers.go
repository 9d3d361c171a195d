// Package wrappers is recomp's unit for libraries that drive a stack and print their own
// notices of its compilations: serving engines that compile their model for each input shape
// before they serve (vLLM on TPU over PyTorch/XLA, tpu-inference over JAX), and training
// wrappers that watch the stack's compile counter (fairseq on PyTorch/XLA). Like package xla it
// is no stack a user picks: package frameworks reads its messages in every log.
package wrappers

import (
	"strconv"
	"strings"
	"time"

	"github.com/recomp/recomp/frameworks/framework"
	"github.com/recomp/recomp/internal/lazyre"
	"github.com/recomp/recomp/logscan"
)

// Name is the unit's name.
const Name = "wrappers"

// The producers of the wrappers' notices.
const (
	ProducerVLLM      logscan.Producer = "vllm"
	ProducerFairseq   logscan.Producer = "fairseq"
	ProducerJetStream logscan.Producer = "jetstream"
)

// Framework is the wrappers' notices.
var Framework = &framework.Framework{
	Name:      Name,
	Title:     "serving engines and training wrappers",
	Producers: []logscan.Producer{ProducerVLLM, ProducerFairseq, ProducerJetStream},
	Log:       messages,
	Vocabulary: logscan.Vocabulary{
		Subjects: []string{"input shapes", "Precompile", "precompil"},
		Actions:  []string{"ompil"},
		Sweep:    framework.CompileForms,
		// tpu-inference's "Precompile NAME --> {…}" in a layout that does not name its file:
		// its "Compilation finished" lines count the compilations.
		// vLLM's once-a-process note that it caches a graph, and its per-graph debug lines of a
		// load (the line that counts is "Directly load the compiled graph(s) …").
		// vLLM's torch.compile set-up lines (its cache folder, dynamo's tracing time) are no
		// compilation.
		Known: []string{" --> {", "Cache the graph ", "-th graph for ", "for vLLM's torch.compile", "Dynamo bytecode transform time"},
	},
	Identity: framework.Identity{
		// Each input shape of a precompile loop is a program of its own: compiling the next
		// shape is no recompilation.
		Program: func(family, _, signature string) (string, bool) {
			if !strings.HasPrefix(family, "vllm ") && !strings.HasPrefix(family, "jetstream ") || signature == "" {
				return "", false
			}
			return family + " [" + signature + "]", true
		},
	},
	CacheTrees:   []*framework.CacheTree{vllmCache},
	CacheFolders: cacheFolders,
	Unfinished: func(p logscan.Producer) (string, string, bool) {
		if p != ProducerVLLM {
			return "", "", false
		}
		return "the serving engine's precompile loop had not finished at the end of the log",
			"let it finish before serving: a shape it has not compiled is compiled on the first request that needs it", true
	},
}

// vllmShape is the shape in vLLM's compile lines: a group of its own.
const vllmShape = `(dynamic shape|shape \S+|compile range \([^)]*\))`

// Messages of vLLM's TPU model runners and tpu-inference's compilation manager, by release:
//
//	V0 (vllm/worker/tpu_model_runner.py, 2024): "Compiling the model with different input
//	shapes..." (or "… for prefix prefill..."), then "batch_size: B, seq_len: S" after each shape
//	compiled, and "Compilation for prefill done in T s." (later "    -- Compilation for prefill
//	done in T [secs]."), the decode shapes and "Compilation for decode done in T s.";
//	V1 (vllm/v1/worker/tpu_model_runner.py, 2025): "Compiling the model with different input
//	shapes." then "  -- num_tokens: N" before each shape, "Compilation finished in in T
//	[secs]." (sic), and "Compiling sampling with different input shapes." with "  -- num_tokens:
//	N, num_seqs: M";
//	tpu-inference (compilation_manager.py, 2026): "Precompile NAME --> {SHAPE}" before each
//	program, "Compilation finished in T [secs]." after it.
//
// vLLM's torch.compile backend (vllm/compilation/backends.py, V1, 2025–2026), once per shape it
// compiles: "Compiling a graph for dynamic shape takes 12.34 s" ("for shape 8", later "for compile
// range (1, 8192)"), or, served from its compile cache, "Directly load the compiled graph(s) for
// dynamic shape from the cache, took 2.810 s"; at DEBUG, "Store the 0-th graph for dynamic shape
// from inductor_standalone via handle (…)" for each piecewise graph it writes to the cache.
// JetStream's and MaxText's prefill warm-up (jetstream/core/... aot_utils.py): "---------Prefill
// engine 0 compiled for prefill length 64.---------", per bucket; programs that log through absl and
// Python's logging both print each line twice (counted once: DropRepeats).
//
// The loop's total time falls on its last shape when the log gives no time per shape. And
// fairseq's trainer (fairseq/trainer.py _check_xla_compilation), each step PyTorch/XLA's
// CompileTime count grew: "XLA compilation detected on device #R; too many of these can lead
// to slow training, but we expect a few in the beginning" — at least one compilation.
var (
	reShapes    = lazyre.New(`Compiling (?:the )?(\w+) with different input shapes`)
	reV0Shape   = lazyre.New(`^(batch_size: \d+, seq_len: \d+)\s*$`)
	reV1Shape   = lazyre.New(`^-- (num_tokens: \d+(?:, num_seqs: \d+)?)\s*$`)
	reDone      = lazyre.New(`Compilation (?:for (prefill|decode|prefix prefill) done|finished) in (?:in )?([0-9.]+) (?:s\.|\[secs\])`)
	rePrecomp   = lazyre.New(`^Precompile (.+?) --> (.*?)\s*$`)
	reFairseq   = lazyre.New(`^XLA compilation detected on device #(\d+)`)
	reVLLMGraph = lazyre.New(`Compiling a graph for ` + vllmShape + ` takes ([0-9.]+) s`)
	reVLLMLoad  = lazyre.New(`Directly load the compiled graph\(s\) for ` + vllmShape + ` from the cache, took ([0-9.]+) s`)
	reVLLMStore = lazyre.New(`Store the (\d+)-th graph for ` + vllmShape + ` from (\S+) via handle`)
	rePrefill   = lazyre.New(`Prefill engine (\d+) compiled for prefill length (\d+)`)
	vllmHeads   = []string{"Compiling the model with different input shapes", "Compiling sampling with different input shapes"}
	shapeSignal = logscan.Signal("vllm:shape")
	// vllmGraph is the program vLLM's torch.compile backend compiles (its model's forward, split
	// into piecewise graphs), one per shape.
	vllmGraph = "vllm compiled graph"
)

// state follows a precompile loop within one process.
type state struct {
	what string // what the loop compiles ("model", "sampling", a tpu-inference program), "" outside one
	open bool   // a shape's compilation has begun and not been closed
	v0   bool   // V0 logs each shape after compiling it
	// programs counts tpu-inference's programs whose "Precompile" line was not read: each is
	// one of its own.
	programs   int
	precompile bool // the open program is tpu-inference's
}

var messages = &logscan.Framework{
	Name: Name,
	// "Precompile NAME" has no literal rare enough to be an anchor (its pair "le" costs the
	// prefilter a fifth more compares on a noisy log): its line is read when vLLM's prefix
	// names compilation_manager.py ("ompilation" anchors it), and without it the program is
	// read from the line with its time.
	Anchors: []string{"input shapes", "batch_size: ", "num_tokens: ", "Compiling a graph for ", "Directly load the compiled graph",
		"-th graph for ", "compiled for prefill length "},
	DropRepeats: []logscan.Producer{ProducerJetStream},
	Heads: append([]string{"batch_size: ", "-- num_tokens: ", "Precompile ", "Compilation for ", "Compilation finished in ",
		"-- Compilation for ", "XLA compilation detected on device #"}, vllmHeads...),
	// A loop cut short leaves its last shape open: Unfinished says so.
	NewState: func() any { return &state{} },
	Rules: []logscan.Rule{
		{Contains: " with different input shapes", Handle: func(c *logscan.Context, msg string) bool {
			m := reShapes.FindStringSubmatch(msg)
			if m == nil {
				return false
			}
			st := c.State().(*state)
			closeShape(c, st, 0)
			st.what = m[1]
			return true
		}},
		// V0 logs a shape once it is compiled (a compilation that has finished), V1 before.
		{Contains: "batch_size: ", Handle: shape(reV0Shape, true)},
		{Contains: "-- num_tokens: ", Handle: shape(reV1Shape, false)},
		{Contains: "Precompile ", Handle: func(c *logscan.Context, msg string) bool {
			m := rePrecomp.FindStringSubmatch(strings.TrimSpace(msg))
			if m == nil {
				return false
			}
			st := c.State().(*state)
			closeShape(c, st, 0)
			st.what = m[1]
			c.Emit(logscan.Event{Kind: logscan.CompileBegin, Producer: ProducerVLLM, Signal: shapeSignal, Module: "vllm " + m[1], Signature: m[2]})
			st.open, st.precompile = true, true
			return true
		}},
		{Contains: "Compilation ", Handle: func(c *logscan.Context, msg string) bool {
			st := c.State().(*state)
			m := reDone.FindStringSubmatch(msg)
			if m == nil {
				return false
			}
			secs, _ := strconv.ParseFloat(m[2], 64)
			d := time.Duration(secs * float64(time.Second))
			if st.what == "" {
				if m[1] != "" || !strings.Contains(msg, "[secs]") {
					return false
				}
				// tpu-inference's time of a program whose "Precompile" line was not read (a
				// layout without the file name): a compilation of its own, not named.
				st.programs++
				sig := "#" + strconv.Itoa(st.programs)
				c.Emit(logscan.Event{Kind: logscan.CompileBegin, Producer: ProducerVLLM, Signal: shapeSignal, Module: "vllm precompiled program", Signature: sig})
				c.Emit(logscan.Event{Kind: logscan.CompileFinished, Producer: ProducerVLLM, Signal: shapeSignal, Module: "vllm precompiled program", Duration: d})
				return true
			}
			if st.precompile {
				st.what, st.precompile = "", false // tpu-inference: one program, one time
			} else if st.v0 && m[1] == "prefill" {
				st.what = "decode" // V0 goes on with the decode shapes without a header of their own
			} else if m[1] != "" || !st.open {
				st.what = ""
			}
			if st.open {
				closeShape(c, st, d)
			}
			return true
		}},
		{Contains: "Compiling a graph for ", Handle: func(c *logscan.Context, msg string) bool {
			m := reVLLMGraph.FindStringSubmatch(msg)
			if m == nil {
				return false
			}
			secs, _ := strconv.ParseFloat(m[2], 64)
			c.Emit(logscan.Event{Kind: logscan.CompileBegin, Producer: ProducerVLLM, Signal: "vllm:graph", Module: vllmGraph, Signature: m[1]})
			c.Emit(logscan.Event{Kind: logscan.CompileFinished, Producer: ProducerVLLM, Signal: "vllm:graph", Module: vllmGraph,
				Duration: time.Duration(secs * float64(time.Second))})
			return true
		}},
		{Contains: "Directly load the compiled graph", Handle: func(c *logscan.Context, msg string) bool {
			m := reVLLMLoad.FindStringSubmatch(msg)
			if m == nil {
				return false
			}
			secs, _ := strconv.ParseFloat(m[2], 64)
			c.Emit(logscan.Event{Kind: logscan.CacheHit, Producer: ProducerVLLM, Signal: "vllm:graph_load", Module: vllmGraph, Signature: m[1],
				Duration: time.Duration(secs * float64(time.Second)), Detail: "vLLM loaded the compiled graph(s) for " + m[1] + " from its compile cache"})
			return true
		}},
		{Contains: "-th graph for ", Handle: func(c *logscan.Context, msg string) bool {
			m := reVLLMStore.FindStringSubmatch(msg)
			if m == nil {
				return strings.Contains(msg, "Directly load the ") // a piecewise graph's load: the summary line counts
			}
			c.Emit(logscan.Event{Kind: logscan.CacheWrite, Producer: ProducerVLLM, Signal: "vllm:graph_store", Module: vllmGraph, Signature: m[2],
				Detail: "vLLM stored piecewise graph " + m[1] + " for " + m[2] + " (" + m[3] + ") in its compile cache"})
			return true
		}},
		{Contains: "compiled for prefill length ", Handle: func(c *logscan.Context, msg string) bool {
			m := rePrefill.FindStringSubmatch(msg)
			if m == nil {
				return false
			}
			mod := "jetstream prefill engine " + m[1]
			// one event, so that the same line printed again by a second logger is dropped as a
			// repeat of it
			c.Emit(logscan.Event{Kind: logscan.CompileBegin, Producer: ProducerJetStream, Signal: "jetstream:prefill", Module: mod, Signature: "prefill length " + m[2]})
			return true
		}},
		{Contains: "XLA compilation detected on device #", Handle: func(c *logscan.Context, msg string) bool {
			m := reFairseq.FindStringSubmatch(strings.TrimSpace(msg))
			if m == nil {
				return false
			}
			c.Emit(logscan.Event{Kind: logscan.CompileBegin, Producer: ProducerFairseq, Signal: "fairseq:compile_detected",
				Detail: "fairseq: PyTorch/XLA's compile count grew on device #" + m[1] + " (at least one compilation since its last check)"})
			c.Emit(logscan.Event{Kind: logscan.CompileFinished, Producer: ProducerFairseq, Signal: "fairseq:compile_detected"})
			return true
		}},
	},
}

// shape is the handler of a loop's line for one shape (re's group): the compilation of it, done
// when the line follows the compilation, else open until the next line of the loop.
func shape(re *lazyre.Regexp, done bool) func(*logscan.Context, string) bool {
	return func(c *logscan.Context, msg string) bool {
		st := c.State().(*state)
		m := re.FindStringSubmatch(strings.TrimSpace(msg))
		if m == nil || st.what == "" {
			return false
		}
		closeShape(c, st, 0)
		st.v0 = done
		c.Emit(logscan.Event{Kind: logscan.CompileBegin, Producer: ProducerVLLM, Signal: shapeSignal, Module: "vllm " + st.what, Signature: m[1]})
		st.open = true
		if done {
			closeShape(c, st, 0)
		}
		return true
	}
}

// closeShape ends the shape being compiled, if one is open, with its time d (0: unknown).
func closeShape(c *logscan.Context, st *state, d time.Duration) {
	if !st.open {
		return
	}
	st.open = false
	c.Emit(logscan.Event{Kind: logscan.CompileFinished, Producer: ProducerVLLM, Signal: shapeSignal, Module: "vllm " + st.what, Duration: d})
}
