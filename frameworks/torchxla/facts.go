package torchxla

import (
	"strings"

	"github.com/recomp/recomp/frameworks/cause"
)

// syncWords are the two names PyTorch/XLA's analysis gives its sync in a Compilation or Execution
// Cause: torch_xla.sync from 2.7 on, mark_step before (torch_xla/csrc/debug_util.cpp,
// analyze_graph_execution_python_frame).
var syncWords = []string{"torch_xla.sync", "mark_step"}

// causes are the Compilation and Execution Causes of PyTorch/XLA's analysis blocks, with the sync
// written as {sync}: the trigger each names, and the call that ran the graph in recomp's words.
var causes = []struct {
	said    string
	trigger cause.Trigger
	words   string
}{
	{"user {sync}", cause.TriggerSync, "a new graph run by the program's own torch_xla.sync"},
	{"{sync} in parallel loader at step end", cause.TriggerLoader, "a new graph run by the parallel loader's torch_xla.sync at a step's end"},
	{"{sync} when exiting a profiler StepTrace region", cause.TriggerProfiler, "a new graph run on leaving a profiler StepTrace region"},
	{"most likely user code trying to access tensor value before {sync}", cause.TriggerHostRead,
		"a new graph run where the program read a tensor's value on the host (.item(), a print) before torch_xla.sync"},
	{"torch_xla.compile", cause.TriggerCompiled, "a new graph of a torch_xla.compile function"},
	{"torch_xla.compile clear the pending graph prior calling the target function", cause.TriggerPending,
		"a new graph of the ops pending before a torch_xla.compile function, run ahead of it"},
	{"{sync} when dynamo processing input graphs", cause.TriggerTracerInputs, "a new graph of the inputs of a torch.compile function, pending at its call"},
	{"dynamo is compiling a FX graph to HLO", cause.TriggerTracer, "a new FX graph torch.compile lowered to HLO"},
	{"dynamo is executing a compiled program", cause.TriggerTracerRun, "a torch.compile program run"},
}

// hostRead begins the cause of a graph run because the program read a tensor's value on the host.
const hostRead = "most likely user code trying to access tensor value"

// trigger reads the cause of an analysis block (its Compilation Cause or Execution Cause line):
// the trigger it names and recomp's words for it; "" when it is none of PyTorch/XLA's.
func trigger(reason string) (cause.Trigger, string) {
	reason = strings.TrimSpace(reason)
	if strings.HasPrefix(reason, hostRead) { // whatever the sync is called in a release to come
		return cause.TriggerHostRead, causes[3].words
	}
	for _, c := range causes {
		if !strings.Contains(c.said, "{sync}") {
			if reason == c.said {
				return c.trigger, c.words
			}
			continue
		}
		for _, w := range syncWords {
			if reason == strings.Replace(c.said, "{sync}", w, 1) {
				return c.trigger, c.words
			}
		}
	}
	return "", ""
}

// facts is Framework.Facts: the cause of a Compilation Analysis block (the ledger's Unit.Why of a
// graph PyTorch/XLA compiled) as the trigger it names, in recomp's words (Change) and the stack's
// (Said). It says what ran the graph, not what changed in it: only a dump's comparison shows that.
func facts(why string) []cause.Fact {
	t, words := trigger(why)
	if t == "" {
		return nil
	}
	return []cause.Fact{{Trigger: t, Change: words, Said: strings.TrimSpace(why)}}
}
