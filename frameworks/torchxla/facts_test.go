package torchxla_test

import (
	"testing"

	"github.com/recomp/recomp/frameworks/cause"
	"github.com/recomp/recomp/frameworks/torchxla"
)

// Every Compilation and Execution Cause PyTorch/XLA's analysis prints (debug_util.cpp's
// analyze_graph_execution_python_frame, with the sync named torch_xla.sync from 2.7 on and
// mark_step before) is read as the trigger it names, as the unit's Facts (the ledger's reading of a
// compilation's explanation); anything else is no fact of this unit.
func TestAnalysisCausesAsFacts(t *testing.T) {
	for said, want := range map[string]cause.Trigger{
		"user torch_xla.sync": cause.TriggerSync,
		"user mark_step":      cause.TriggerSync,
		"torch_xla.sync in parallel loader at step end":                             cause.TriggerLoader,
		"mark_step in parallel loader at step end":                                  cause.TriggerLoader,
		"torch_xla.sync when exiting a profiler StepTrace region":                   cause.TriggerProfiler,
		"mark_step when exiting a profiler StepTrace region":                        cause.TriggerProfiler,
		"most likely user code trying to access tensor value before torch_xla.sync": cause.TriggerHostRead,
		"most likely user code trying to access tensor value before mark_step":      cause.TriggerHostRead,
		"torch_xla.compile": cause.TriggerCompiled,
		"torch_xla.compile clear the pending graph prior calling the target function": cause.TriggerPending,
		"torch_xla.sync when dynamo processing input graphs":                          cause.TriggerTracerInputs,
		"mark_step when dynamo processing input graphs":                               cause.TriggerTracerInputs,
		"dynamo is compiling a FX graph to HLO":                                       cause.TriggerTracer,
		"dynamo is executing a compiled program":                                      cause.TriggerTracerRun,
	} {
		fs := torchxla.Framework.Facts(said)
		if len(fs) != 1 || fs[0].Trigger != want || fs[0].Said != said || fs[0].Change == "" || fs[0].Kind != "" {
			t.Errorf("%q: %+v, want the trigger %s in recomp's words", said, fs, want)
		}
		if got := torchxla.Framework.StepEnd(said); got != want.StepEnds() {
			t.Errorf("%q: step end %v", said, got)
		}
		if got := torchxla.Framework.HostRead(said); got != (want == cause.TriggerHostRead) {
			t.Errorf("%q: host read %v", said, got)
		}
	}
	for _, other := range []string{"", "user torch_xla.sync now", "different input types: * at x, now f32[24,8] and before f32[32,8]", "Graph Hash: 1abe"} {
		if fs := torchxla.Framework.Facts(other); fs != nil {
			t.Errorf("%q: %+v, want no fact", other, fs)
		}
	}
}
