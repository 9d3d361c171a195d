// Package torchxla is recomp's unit for PyTorch/XLA (torch_xla, and torch.compile with the
// openxla backend): how its debug analysis and metrics read, how its graphs are named (they
// have no name of their own: recomp names them by the Python frame that made them compile),
// and what `recomp run` switches on.
package torchxla

import (
	"fmt"
	"slices"
	"strings"

	"github.com/recomp/recomp/frameworks/cause"
	"github.com/recomp/recomp/frameworks/framework"
	"github.com/recomp/recomp/frameworks/torch"
	"github.com/recomp/recomp/hlo"
	"github.com/recomp/recomp/internal/lazyre"
	"github.com/recomp/recomp/logscan"
)

// Name is the unit's name.
const Name = "torch-xla"

// Framework is PyTorch/XLA.
var Framework = &framework.Framework{
	Name:      Name,
	Title:     "PyTorch/XLA",
	Producers: []logscan.Producer{logscan.ProducerTorchXLA},
	Log:       messages,
	// What PyTorch/XLA's compile records are about (graphs, frames, IR, HLO) and
	// what they say is done to them: a line with both that no rule read is a record of a wording
	// recomp does not know. PyTorch/XLA's warning about its persistent cache under IR debugging
	// is no compile record.
	Vocabulary: logscan.Vocabulary{
		Subjects: []string{"graph hash", "IR graph", "FX graph", "SyncTensorsGraph", "HLO", "torch_xla", "frame", "function"},
		Actions:  []string{"ompil", "OMPIL"},
		Sweep:    slices.Concat(framework.CompileForms, framework.CompileFormsUpper),
		Known:    []string{"Using persistent compilation cache with XLA_HLO_DEBUG"},
	},
	Identity: framework.Identity{
		// autograd's backward ops: aten__tanh_backward, aten__mse_loss_backward, …
		Gradient: func(m hlo.Meta) (grad, ours bool) {
			grad = strings.HasSuffix(m.OpType, "_backward") || strings.Contains(m.OpName, "_backward")
			return grad, strings.HasPrefix(m.OpType, "aten__") || strings.HasPrefix(m.OpType, "xla__")
		},
		// PyTorch/XLA dumps every unnamed graph as SyncTensorsGraph where recomp names it after
		// the Python frame that ran it (train.py:42 (train_step)).
		FunctionKey: func(family string) (string, bool) {
			if family == "SyncTensorsGraph" || rePythonFrame.MatchString(family) {
				return "torch_xla unnamed graph", true
			}
			return "", false
		},
	},
	// torch.compile's settings too: with backend="openxla" dynamo names the function of each
	// graph and says why it compiles one again.
	Also: []string{torch.Name},
	Settings: []framework.Setting{
		// Level 1 analyses each compilation; level 2 also each execution, every step: 13 lines and
		// about 10% of a small step's time, for nothing recomp needs.
		{Name: "PT_XLA_DEBUG_LEVEL", Value: "1", Effect: "an analysis block per graph compiled (its cause, hash and Python frames): nothing per step",
			Prints: lazyre.New(`^(?:(?:Unexpected )?(?:Compilation|Execution|Post Compilation) Analysis: |Computation hash: [0-9a-f]+$)`),
			Off:    func(v string) bool { return strings.TrimSpace(v) == "0" }, Native: true},
		{Name: "PT_XLA_DEBUG_MAX_FRAME", Value: "32", Effect: "an analysis block lists up to 32 Python frames (8 by default): under torch.compile the program's own line is deeper than 8; longer blocks, nothing per step",
			Native: true},
		// Not XLA_HLO_DEBUG=1: it records the Python line of every op of every traced step (about
		// 10% of a small step's CPU time, measured with recomp-bench's loop) and changes the graph
		// hash, so persistent-cache entries made without it are not reused. Set by the user, it
		// is kept, and explain's evidence then names each op's line.
	},
	CacheEntries: []framework.CacheEntry{{Kind: "torch-xla", Names: entryNames, Key: entryKey, Graph: entryGraph}},
	KeyedCache:   persistentCache{},
	CacheFolders: func(name, value string) []string {
		if name == "XLA_PERSISTENT_CACHE_PATH" {
			return []string{value}
		}
		return nil
	},
	// The probe counts the steps (each torch_xla.sync) and notes those that compiled, so that
	// recomp run's level-1 log still says in which step and epoch each compilation happened:
	// a few counter reads a step, where PT_XLA_DEBUG_LEVEL=2 prints 13 lines.
	Probe: &framework.Probe{Package: "torch_xla", Hook: probeHook, Function: "_on_torch_xla",
		Records: "each torch_xla step that compiled (a few counter reads a step)", Attach: framework.AttachSteps, Event: "sync"},
	Packages:          []string{"torch_xla"},
	CompileTimeMetric: "CompileTime",
	CacheHitMetric:    "CachedCompile",
	ExecuteMetrics:    []string{"ExecuteTime", "XrtExecute"},
	Metrics:           metricNotes,
	Construct:         specialScalar,
	Facts:             facts,
	// An analysis block's cause (a compilation's or an execution's) read as the trigger it names
	// (facts.go): a host read, or the end of a step — at the program's sync, at the one torch_xla's
	// MpDeviceLoader makes after each batch, at the end of a profiler StepTrace region.
	HostRead: func(reason string) bool {
		t, _ := trigger(reason)
		return t == cause.TriggerHostRead
	},
	StepEnd: func(reason string) bool {
		t, _ := trigger(reason)
		return t.StepEnds()
	},
	HostReadMetric: "TransferFromDeviceTime",
	Advice: framework.Advice{
		Compiles:   "PyTorch/XLA step",
		Executions: "PyTorch/XLA's PT_XLA_DEBUG_LEVEL=2",
		Materialize: "PyTorch/XLA: torch_xla.sync() after creating them, or create them on the CPU and move them with " +
			".to(device)",
		Merged: "PyTorch/XLA: call torch_xla.sync() after computing the metric and before reading it with .item(), or del " +
			"such tensors once read: a tensor read with .item() alone stays pending, and the next step's graph computes it again",
		SourceLines: "PyTorch/XLA writes them with XLA_HLO_DEBUG=1 (recomp run leaves it off: it slows the tracing of every " +
			"step and changes the graphs' hashes, so cache entries made without it are not reused; set it for one run to name " +
			"the line and the count)",
		GrowingCache: "allocate the cache once at its maximum length (torch.zeros(batch, max_len, dim, device=dev)) and write each " +
			"step's entries in place at a position held in a device tensor (cache.index_copy_(1, pos, new), pos = torch.tensor([t], " +
			"device=dev)), masking the positions not yet written: a static cache, one graph for every step",
		Evidence: "PyTorch/XLA: PT_XLA_DEBUG_LEVEL=1",
		Recompiled: "dump the HLO (XLA_FLAGS=--xla_dump_to=DIR) and run `recomp explain DIR --log LOG`; keep input shapes static " +
			"(pad or bucket them) and avoid reading tensor values between steps",
		Inference: map[cause.Kind]string{
			cause.BatchSize: "this graph computes no gradient (evaluation, scoring or prediction): do not drop the last partial batch " +
				"(DataLoader(drop_last=True) would lose its rows' results); pad it to the full batch before moving it to the XLA device " +
				"and drop the padded rows' outputs",
		},
		Causes: map[cause.Kind]string{
			cause.BatchSize:  "drop the last partial batch (DataLoader(drop_last=True)), or pad it to the full batch before moving it to the XLA device",
			cause.InputShape: "pad to a few fixed sizes before moving tensors to the XLA device (under torch.compile, dynamic shapes still compile once per size with XLA)",
			cause.Constant:   "keep the value in a tensor on the device instead of a Python number, so that changing it does not change the graph",
			cause.GraphStructure: "the step traced other ops: a Python value decided what ran (a loop count or a branch on a Python int " +
				"or flag that changed, or on a tensor read with .item()); keep such values fixed while training, or express the choice " +
				"on the device (torch.where, a mask) so that one graph serves every value",
			cause.PythonScalar: "torch.compile specialises a Python number argument on its first value and compiles again when it " +
				"changes: pass it as a tensor on the device (torch.tensor(v, device=dev)), or compile with dynamic=True when it varies from the start",
			cause.Dtype: "cast the model and the inputs once, before the loop (model.to(dtype), or autocast around every step): " +
				"a dtype switched part-way compiles the step again",
			cause.Identical: "the graph is the same, so something outside it changed: a model or function wrapped again (torch.compile, " +
				"torch_xla.compile) each step or epoch (wrap it once), XLA_FLAGS, or a persistent cache (torch_xla.runtime.initialize_cache) " +
				"not shared between processes",
		},
		Warning: "reading tensor values on the host (.item(), printing a tensor, Python control flow on a value) cuts the graph and " +
			"waits for the device each step: keep such reads out of the step, or do them every N steps",
	},
}

var rePythonFrame = lazyre.New(`^\S+:\d+ \(.+\)$`)

// metricNotes compares what PyTorch/XLA's metrics report says with what the log shows.
func metricNotes(ms map[string]framework.Metric, compiled int) []framework.Note {
	var out []framework.Note
	if f, ok := ms["PersistentCacheDeserializeFailure"]; ok && f.Count > 0 {
		out = append(out, framework.Note{Severity: "warning", Kind: "persistent_cache_unusable", File: f.File, Line: f.Line,
			Message: fmt.Sprintf("the persistent compilation cache held %d executable(s) that could not be loaded (PersistentCacheDeserializeFailure): they were compiled again", f.Count),
			Advice:  "this PJRT backend cannot deserialize executables (PyTorch/XLA 2.9 on CPU cannot); the cache helps only where the device's plugin supports it"})
	}
	if ct, ok := ms["CompileTime"]; ok && compiled > 0 && compiled != ct.Count {
		out = append(out, framework.Note{Severity: "info", Kind: "metrics_disagree", File: ct.File, Line: ct.Line,
			Message: fmt.Sprintf("PyTorch/XLA's metrics count %d compilation(s) (CompileTime samples), the log's Compilation Analysis blocks %d", ct.Count, compiled),
			Advice:  "set PT_XLA_DEBUG_LEVEL=1 for the whole run (from before the first step) so that every compilation is analysed"})
	}
	return out
}

// reSpecialScalar is an input that became the constant 0 or 1 (parameter(3) → 1).
var reSpecialScalar = lazyre.New(`parameter\(\d+\) → (-?[01](?:\.0*)?)$`)

// specialScalar: PyTorch/XLA uploads a Python number used in an op as device data (one graph for
// every value) except 0 and 1, its special scalars, which it bakes into the graph as constants:
// a number that reaches 0 or 1 (a warm-up factor ending at 1.0, a dropout rate set to 0) compiles
// the step again. XLA_NO_SPECIAL_SCALARS=1 makes them device data too.
func specialScalar(kind cause.Kind, change string) (string, string, bool) {
	if what, adv, ok := bakedNumber(kind, change); ok {
		return what, adv, true
	}
	if what, adv, ok := loopCount(kind, change); ok {
		return what, adv, true
	}
	m := reSpecialScalar.FindStringSubmatch(change)
	if kind != cause.Constant || m == nil {
		return "", "", false
	}
	return "a Python number became " + m[1] + ": torch_xla bakes its special scalars 0 and 1 into the graph",
		"keep the number in a device tensor (torch.tensor(v, device=dev)) or off 0 and 1, or run with XLA_NO_SPECIAL_SCALARS=1 so that 0 and 1 are device data too",
		true
}

// reBakedNumber is the verdict's number baked into a graph that took several values: its
// values, and the op (op_name) and line that took it when the dump names them.
var reBakedNumber = lazyre.New(`^a number baked into the graph as a constant (?:took \d+ values|changed \d+ times): (.+?)(?: \((\S+)?(?: ?at (\S+))?\))?$`)

// bakedNumber: PyTorch/XLA uploads a Python number used in arithmetic as device data, but an op's
// number argument (triu's diagonal, pow's exponent, roll's shifts, a size) is part of the graph:
// a number the program changes (a curriculum, a schedule taken from the epoch) compiles a new
// graph at each new value.
func bakedNumber(kind cause.Kind, change string) (string, string, bool) {
	m := reBakedNumber.FindStringSubmatch(change)
	if kind != cause.Constant || m == nil {
		return "", "", false
	}
	what := "a Python number baked in as a constant: " + m[1]
	if m[3] != "" {
		what += " at " + m[3]
	}
	op := "an op's"
	if m[2] != "" {
		what += " (" + m[2] + ")"
	}
	if strings.HasPrefix(m[2], "aten__") { // an aten op's argument; prim__Constant is the constant itself
		op = strings.TrimPrefix(m[2], "aten__") + "'s"
	}
	return what, "torch_xla makes " + op + " number argument part of the graph (numbers in arithmetic are device data, except its " +
		"special scalars 0 and 1), so each new value compiles a new graph: keep the number fixed while training, or compute with it " +
		"as a device tensor (torch.tensor(v, device=dev)) in tensor ops (a mask from torch.arange compared with it, a multiplication) " +
		"instead of passing it to an op as a Python number", true
}

// loopCount: torch_xla traces a Python loop by running it, so each iteration's ops are copied into
// the graph and a new count (a Python int: a curriculum's depth, a number of inner steps) is a new
// graph. recomp's verdict says a loop count changed ("a loop count unrolled into the graph: …")
// where the dump shows a line's ops as whole copies of one block, a different number of times.
func loopCount(kind cause.Kind, change string) (string, string, bool) {
	const said = "a loop count unrolled into the graph: "
	if kind != cause.GraphStructure || !strings.HasPrefix(change, said) {
		return "", "", false
	}
	return "a Python loop count unrolled into the graph: " + strings.TrimPrefix(change, said),
		"torch_xla records a Python loop by running it, so every iteration's ops are copied into the graph and each new count " +
			"is a new graph: keep the count fixed while training, or run the loop on the device with a tensor count " +
			"(torch_xla.experimental.fori_loop's fori_loop or while_loop), or, for a stack of identical layers, " +
			"torch_xla.experimental.scan_layers, so that one graph serves every count", true
}
