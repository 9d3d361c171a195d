package tf

import (
	"strconv"
	"strings"
	"time"

	"github.com/recomp/recomp/frameworks/internal/python"
	"github.com/recomp/recomp/internal/lazyre"
	"github.com/recomp/recomp/logscan"
)

// Messages of TensorFlow (tf.function and the XLA device compiler), from tensorflow 2.21's
// polymorphic_function.py, device_compiler.h and device_compilation_profiler.cc and real runs.
var (
	// TF 2.x says "triggered tf.function retracing"; the explanation that follows changed over
	// releases (experimental_relax_shapes, then reduce_retracing) but this part did not.
	reRetrace      = lazyre.New(`(\d+) out of the last (\d+) calls to (.+?) triggered tf\.function retracing`)
	reFunctionName = lazyre.New(`^<function (\S+) at 0x[0-9a-fA-F]+>$`)
	reInstantly    = lazyre.New(`^Instantly compiling for signature: (\S+)`)
	reAlready      = lazyre.New(`^Already Compiled for signature: (\S+)`)
	reProfiled     = lazyre.New(`^Compiled (\S+) (\d+) times, compile time: (\d+) us`)
	reFuncGraph    = lazyre.New(`^Creating new FuncGraph for Python function <function (\S+) at 0x[0-9a-fA-F]+>`)
)

// state is what TF's messages leave for the ones after them in one process.
type state struct {
	traced map[string]bool // functions seen traced (the first trace is not a retrace)
	inputs string          // the device compiler's num_inputs of the compilation it is about to make
}

// messages is how recomp reads TensorFlow's log.
var messages = &logscan.Framework{
	Name: Name,
	Anchors: []string{
		"compiling ",            // Instantly compiling for signature
		"Compiled cluster",      // Compiled cluster using XLA!
		" times, compile time:", // Compiled S N times, compile time: T us
		"tf.function",           // triggered tf.function retracing, and other wordings
		"new FuncGraph",         // (level 1) Creating new FuncGraph for Python function
		"num_inputs=",           // the device compiler's inputs of a compilation
		"ady Compiled",          // Already Compiled for signature
	},
	Begins: []string{"Instantly compiling for signature: "},
	Heads: []string{"Instantly compiling for signature: ", "Compiled ", "Already Compiled for signature: ",
		"Creating new FuncGraph "},
	Loggers:  map[string]logscan.Producer{"tensorflow": logscan.ProducerTF},
	NewState: func() any { return &state{} },
	Rules: []logscan.Rule{
		{Contains: "triggered tf.function retracing", Handle: func(c *logscan.Context, msg string) bool {
			m := reRetrace.FindStringSubmatch(msg)
			if m == nil {
				return false
			}
			fn := m[3]
			if f := reFunctionName.FindStringSubmatch(fn); f != nil {
				fn = f[1]
			}
			c.Emit(logscan.Event{Kind: logscan.Retrace, Producer: logscan.ProducerTF, Signal: "tf:retracing", Module: fn,
				Detail: m[1] + " out of the last " + m[2] + " calls to " + fn + " triggered tf.function retracing"})
			return true
		}},
		{Prefix: "Creating new FuncGraph ", Handle: func(c *logscan.Context, msg string) bool {
			m := reFuncGraph.FindStringSubmatch(msg)
			if m == nil {
				return false
			}
			name := m[1]
			c.Hold(msg, func(l []byte) bool { return logscan.Indented(l, 2) },
				func(c *logscan.Context, lines []string) { funcGraph(c, name, lines) })
			return true
		}},
		{Prefix: "num_inputs=", Handle: func(c *logscan.Context, msg string) bool {
			c.State().(*state).inputs = strings.TrimSpace(msg) // the device compiler's next compilation has this many inputs
			return true
		}},
		{Prefix: "Instantly compiling for signature: ", Handle: func(c *logscan.Context, msg string) bool {
			m := reInstantly.FindStringSubmatch(msg)
			if m == nil {
				return false
			}
			st := c.State().(*state)
			c.Emit(logscan.Event{Kind: logscan.CompileBegin, Producer: logscan.ProducerTF, Signal: "tf:device_compiler", Module: m[1], Signature: st.inputs})
			st.inputs = ""
			return true
		}},
		{Prefix: "Already Compiled for signature: ", Handle: func(c *logscan.Context, msg string) bool {
			m := reAlready.FindStringSubmatch(msg)
			if m == nil {
				return false
			}
			c.Emit(logscan.Event{Kind: logscan.Execution, Producer: logscan.ProducerTF, Signal: "tf:already_compiled", Module: m[1]})
			return true
		}},
		{Prefix: "Compiled ", Contains: " times, compile time: ", Handle: func(c *logscan.Context, msg string) bool {
			m := reProfiled.FindStringSubmatch(msg)
			if m == nil {
				return false
			}
			us, _ := strconv.Atoi(m[3])
			n, _ := strconv.Atoi(m[2])
			c.Emit(logscan.Event{Kind: logscan.CompileFinished, Producer: logscan.ProducerTF, Signal: "tf:device_compiler", Module: m[1],
				Duration: time.Duration(us) * time.Microsecond, Detail: "compiled " + m[2] + " times", Count: n})
			return true
		}},
		// Printed once per process whatever the logging: the producer is the layout's.
		{Contains: "Compiled cluster using XLA!", ProducerFromLayout: true, ByEffect: true, Handle: func(c *logscan.Context, _ string) bool {
			c.Emit(logscan.Event{Kind: logscan.ClusterCompiled, Producer: logscan.ProducerTF, Signal: "tf:cluster_compiled"})
			return true
		}},
	},
}

// funcGraph classifies TF's "Creating new FuncGraph" (logged at level 1): the first for a
// function is its first trace, a later one a retrace, explained by the parameters TF lists.
func funcGraph(c *logscan.Context, name string, lines []string) {
	fn := python.Name(name)
	var params []string
	for _, l := range lines[1:] {
		if l = strings.TrimSpace(l); l != "" {
			params = append(params, l)
		}
	}
	st := c.State().(*state)
	if st.traced == nil {
		st.traced = map[string]bool{}
	}
	kind := logscan.Retrace
	if !st.traced[fn] {
		kind = logscan.Trace
		if len(st.traced) < 4096 {
			st.traced[fn] = true
		}
	}
	reason := ""
	if len(params) > 0 {
		reason = traceWords + "\n" + strings.Join(params, "\n")
	}
	c.Emit(logscan.Event{Kind: kind, Producer: logscan.ProducerTF, Signal: "tf:funcgraph", Module: fn, Reason: reason})
}
