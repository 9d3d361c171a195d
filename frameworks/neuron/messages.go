package neuron

import (
	"strings"

	"github.com/recomp/recomp/internal/lazyre"
	"github.com/recomp/recomp/logscan"
)

// Messages of AWS Neuron's compiler wrapper (libneuronxla's neuron_cc_wrapper and
// neuron_cc_cache, torch-neuronx before it: ||NCC_WRAPPER||, later ||NEURON_CC_WRAPPER|| and
// ||NEURON_CACHE||), of neuronx-cc, and of optimum-neuron's Hub cache, from real runs pasted in
// aws-neuron/aws-neuron-sdk and huggingface/optimum-neuron issues.
var (
	// A graph is named by the module its HLO hash names: MODULE_<graph hash>+<flags hash>. It is
	// the graph's identity too (the events' module): two MODULE_ names are two graphs (or one
	// graph under two sets of flags), never one graph that changed; the same MODULE_ compiled
	// twice is one graph compiled again.
	reModule = lazyre.New(`MODULE_[0-9A-Za-z]+\+[0-9a-f]+`)
	// "Call compiler with cmd: neuronx-cc compile --target=trn1 --framework=XLA …" and the list
	// form "['neuronx-cc', '--target=trn1', 'compile', '--framework', 'XLA', …]".
	reCallCompiler = lazyre.New(`Call compiler with cmd: \[?'?neuronx-cc\b`)
	// "Using a cached neff at PATH/model.neff. Exiting with a successfully compiled graph."
	reCachedNeff = lazyre.New(`Using a cached neff at (\S+?)\.? Exiting with a successfully compiled graph`)
	// optimum-neuron: "neuronxcc-…/MODULE_…/model.done not found in REPO: the corresponding graph
	// will be recompiled."
	reHubMiss = lazyre.New(`(\S*MODULE_\S+?/model\.\w+) not found in (\S+): the corresponding graph will be recompiled`)
	// "Compile cache path: /var/tmp/neuron-compile-cache"
	reCachePath = lazyre.New(`Compile cache path: (\S+)`)
	// A folder Python's tempfile made (/tmp/tmpd29vse1h): gone, or another one, in the next run.
	reTempFolder = lazyre.New(`^(?:/private)?(?:/tmp|/var/tmp|/var/folders/[^/]+/[^/]+/T)/tmp[0-9a-z_]{6,}(?:/|$)`)
)

// messages is how recomp reads AWS Neuron's log.
var messages = &logscan.Framework{
	Name: Name,
	// The anchors' first 10 bytes are what logscan's prefilter skips by: each was chosen so that
	// scanning a log where they are rare stays as fast (logscan's BenchmarkScanNoisyLog).
	Anchors: []string{
		"_WRAPPER||: ",         // ||NEURON_CC_WRAPPER||: (||NCC_WRAPPER||:) Call compiler with cmd:, Using a cached neff
		"Compiler status PASS", // neuronx-cc's end
		"Using a cached neff",  // a cache hit
		"ponding graph will",   // optimum-neuron's Hub cache: the corresponding graph will be recompiled
		"cache path: ",         // ||NEURON_CACHE||: Compile cache path: DIR
	},
	Heads:    []string{"Compiler status PASS"},
	NewState: func() any { return &state{} },
	Finish:   missesLeft,
	Rules: []logscan.Rule{
		{Contains: "Call compiler with cmd", Handle: func(c *logscan.Context, msg string) bool {
			if !reCallCompiler.MatchString(msg) {
				return false
			}
			st := c.State().(*state)
			hash := reModule.FindString(msg)
			if m, ok := st.missed[hash]; ok && hash != "" {
				c.EmitAt(m.at, m.ev) // the Hub's miss of this graph, joined with its compilation
				delete(st.missed, hash)
				st.order = removeHash(st.order, hash)
			}
			c.Emit(logscan.Event{Kind: logscan.CompileBegin, Producer: logscan.ProducerNeuron, Signal: "neuron:call_compiler", Hash: hash,
				Module: hash, Detail: "neuronx-cc compiles " + hash})
			st.compiling = true
			return true
		}},
		{Contains: "Compiler status PASS", Handle: func(c *logscan.Context, msg string) bool {
			i := strings.Index(msg, "Compiler status PASS")
			if rest := msg[i+len("Compiler status PASS"):]; strings.TrimSpace(rest) != "" {
				return false // prose, not neuronx-cc's last line
			}
			st := c.State().(*state)
			if !st.compiling {
				return true // the end of a compilation whose start the log does not show
			}
			st.compiling = false
			c.Emit(logscan.Event{Kind: logscan.CompileFinished, Producer: logscan.ProducerNeuron, Signal: "neuron:status", Detail: "Compiler status PASS"})
			return true
		}},
		{Contains: "Using a cached neff", Handle: func(c *logscan.Context, msg string) bool {
			m := reCachedNeff.FindStringSubmatch(msg)
			if m == nil {
				return false
			}
			c.State().(*state).compiling = false
			hash := reModule.FindString(m[1])
			c.Emit(logscan.Event{Kind: logscan.CacheHit, Producer: logscan.ProducerNeuron, Signal: "neuron:cached_neff", Hash: hash, Module: hash,
				Path: m[1]})
			return true
		}},
		{Contains: "the corresponding graph will be recompiled", Handle: func(c *logscan.Context, msg string) bool {
			m := reHubMiss.FindStringSubmatch(msg)
			if m == nil {
				return false
			}
			st := c.State().(*state)
			hash := reModule.FindString(m[1])
			if _, ok := st.missed[hash]; ok || len(st.missed) >= maxMissed {
				return true // model.done and model.log of one graph: one miss
			}
			if st.missed == nil {
				st.missed = map[string]pendingMiss{}
			}
			st.missed[hash] = pendingMiss{at: c.Mark(), ev: logscan.Event{Kind: logscan.CacheMiss, Producer: logscan.ProducerNeuron, Signal: "neuron:hub_miss",
				Hash: hash, Module: hash, Path: m[2] + ":" + m[1]}}
			st.order = append(st.order, hash)
			return true
		}},
		{Contains: "Compile cache path: ", Handle: func(c *logscan.Context, msg string) bool {
			m := reCachePath.FindStringSubmatch(msg)
			if m == nil {
				return false
			}
			st := c.State().(*state)
			dir := strings.TrimRight(m[1], ".,;")
			if !reTempFolder.MatchString(dir) || st.warned {
				return true
			}
			st.warned = true
			c.Emit(logscan.Event{Kind: logscan.FrameworkWarning, Producer: logscan.ProducerNeuron, Signal: "neuron:temporary_cache", Path: dir,
				Detail: "the Neuron compile cache is in a temporary folder (" + dir + "): no later run can reuse what this run compiled"})
			return true
		}},
	},
}

// maxMissed bounds the Hub misses waiting for their compilation.
const maxMissed = 4096

// state follows the wrapper in one process: whether a compilation is running, and the Hub's
// misses waiting for the compilation of their graph.
type state struct {
	compiling bool
	missed    map[string]pendingMiss
	order     []string
	warned    bool
}

type pendingMiss struct {
	at logscan.Mark
	ev logscan.Event
}

func removeHash(list []string, h string) []string {
	for i, x := range list {
		if x == h {
			return append(list[:i], list[i+1:]...)
		}
	}
	return list
}

// missesLeft emits, at the end of the log, the Hub's misses whose compilation it does not show:
// each graph "will be recompiled", by the log's own words.
func missesLeft(c *logscan.Context) {
	st := c.State().(*state)
	for _, h := range st.order {
		m := st.missed[h]
		c.EmitAt(m.at, m.ev)
	}
	st.missed, st.order = nil, nil
}
