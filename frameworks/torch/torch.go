package torch

import (
	"slices"

	"github.com/recomp/recomp/frameworks/cause"
	"github.com/recomp/recomp/frameworks/framework"
	"github.com/recomp/recomp/internal/lazyre"
	"github.com/recomp/recomp/logscan"
)

// Name is the unit's name: `recomp run --framework torch`, the JSON's `framework`.
const Name = "torch"

// Framework is torch.compile.
var Framework = &framework.Framework{
	Name:      Name,
	Title:     "torch.compile",
	Short:     "torch.compile",
	Producers: []logscan.Producer{logscan.ProducerDynamo},
	Log:       messages,
	// What dynamo's compile records are about (frames, functions, FX graphs) and what they say
	// is done to them: a line with both that no rule read is a record of a wording recomp does
	// not know.
	Vocabulary: logscan.Vocabulary{
		Subjects: []string{"FX graph", "dynamo", "frame", "function"},
		Actions:  []string{"ompil", "OMPIL"},
		Sweep:    slices.Concat(framework.CompileForms, framework.CompileFormsUpper),
		// Inductor's config as its trace's cache-key payloads list it
		// ("inductor_config[precompilation_timeout_seconds]: 3600")
		Known: []string{"inductor_config[",
			// the repro script of its trace's fx_graph_runnable artifact sets the run's TORCH_LOGS
			"os.environ['TORCH_LOGS'] = "},
	},
	Settings: []framework.Setting{
		{Name: "TORCH_LOGS", Value: "recompiles,dynamo", Effect: "torch.compile's dynamo names the function of each compilation and says why it compiles one again: a few lines per compilation, nothing per step",
			Prints: lazyre.New(`^[IV]\d{4} \d\d:\d\d:\d\d\.\d+ +\d+ torch/`)},
	},
	Packages: []string{"torch"},
	// The probe records each frame dynamo compiled, named as the log names it, with the
	// program's line that called it: what the pytest plugin blames a test by. Never a stand-in
	// for the log: behind PyTorch/XLA (backend="openxla") its log carries these compilations.
	Probe: &framework.Probe{Package: "torch._dynamo.utils", Hook: probeHook, Function: "_on_torch_dynamo",
		Records: "each torch.compile compilation (from dynamo's compilation metrics)", Event: "compile", ModuleName: probeName, Compiles: true},
	// Inductor's FX-graph and AOTAutograd caches, and its generated code (cache.go)
	CacheTrees:         []*framework.CacheTree{fxGraphCache, aotAutogradCache, inductorCode},
	CacheFolders:       cacheFolders,
	DefaultCacheFolder: defaultCacheFolder, // Inductor's under the temporary folder
	KeyedCache:         inductorCache{},    // what recomp diff holds two runs' FX-graph lookups against (keyed.go)
	Metrics:            cacheNotes,         // what the run did with Inductor's caches (cachetrace.go)
	// TORCH_TRACE=DIR writes one file a process (and rank), gzipped by the user or not.
	TraceFiles:    lazyre.New(`^dedicated_log_torch_trace_.*\.log(\.gz)?$`),
	Trace:         traceMessages,
	TraceVariable: "TORCH_TRACE",
	// Measured on the torch-2.9 runs: torch's own structured_logging_overhead_s was 2.2 s of
	// 490.6 s compiling (0.45 %), and the trace 1.25 MB for two compilations.
	TraceEffect: "torch.compile writes its structured trace (what tlparse reads) into the run folder: every compilation " +
		"with dynamo's own seconds, the first one included; about 0.5 % of the compile time, some 600 KB a compilation",
	Explains: func(why string) (cause.Kind, string, string, bool) {
		kind, _, ch, said, ok := guardedScalar(why)
		return kind, ch, said, ok
	},
	Facts: facts,
	SaidBy: map[cause.Kind]string{cause.PythonScalar: "dynamo", cause.BatchSize: "dynamo", cause.InputShape: "dynamo",
		cause.Dtype: "dynamo", cause.Layout: "dynamo", cause.FunctionRebuilt: "dynamo"},
	Advice: framework.Advice{
		Compiles: "torch.compile function",
		Evidence: "torch.compile: TORCH_LOGS=recompiles,dynamo",
		Recompiled: "run with TORCH_LOGS=recompiles (dynamo then names the guard that failed at each recompilation; recompiles_verbose " +
			"names every guard of every cached entry)",
		Retrace: "dynamo compiles a function again when a guard of every entry it compiled fails: the cause above names the " +
			"guard; TORCH_LOGS=recompiles_verbose lists every entry's",
		Warning: "dynamo stops compiling a function after torch._dynamo.config.recompile_limit (8) compilations of one frame, and runs " +
			"it eagerly (uncompiled) whenever none of its compiled entries' guards pass: remove the cause of the recompilations " +
			"(the guard that fails), and raise the limit only for a known, bounded number of variants",
		AutoDynamic: "dynamo made this dimension dynamic at this compilation (automatic dynamic shapes) and the graph served every " +
			"later size: the cost is this one compilation, not one per size; to compile once, mark the dimension dynamic before " +
			"the first call (torch._dynamo.mark_dynamic(x, dim)); padding to fixed sizes does not help",
		Inference: map[cause.Kind]string{
			cause.BatchSize: "this graph computes no gradient (evaluation, scoring or prediction): do not drop the last partial batch; " +
				"mark the batch dimension dynamic before the first call (torch._dynamo.mark_dynamic(x, 0)), or pad the last batch " +
				"to the full size and drop the padded rows' outputs",
		},
		Causes: map[cause.Kind]string{
			cause.BatchSize: "drop the last partial batch (DataLoader(drop_last=True)) or pad it to the full batch; or mark the batch " +
				"dimension dynamic before the first call (torch._dynamo.mark_dynamic(x, 0)) so that one graph serves every size",
			cause.InputShape: "pad to a few fixed sizes (fewer compilations, each entry kept), or mark the dimension dynamic before " +
				"the first call (torch._dynamo.mark_dynamic(x, dim)) or compile with dynamic=True; under dynamic=False every new " +
				"size is a compilation until torch._dynamo.config.recompile_limit",
			cause.PythonScalar: "torch.compile specialises a Python float argument on its value and compiles again when it changes: " +
				"pass it as a tensor (torch.tensor(v)), or compile with dynamic=True (torch._dynamo.config.specialize_float=False " +
				"for floats only)",
			cause.Dtype: "cast the model and the inputs once, before the loop (model.to(dtype), or autocast around every step): " +
				"a dtype switched part-way compiles the function again",
			cause.Layout: "make the input contiguous (x.contiguous()) before the call, or pass the same layout each time: dynamo " +
				"guards on each input's strides",
			cause.FunctionRebuilt: "compile once, outside the loop: a function, closure or module made anew each step is a new " +
				"object to dynamo's guards (___check_obj_id); build it once and pass what changes as tensor arguments",
			cause.GraphStructure: "dynamo's guards failed on something outside the tensors (a module's training flag, grad mode, " +
				"a global or a config value): run with TORCH_LOGS=recompiles to see which, and keep it fixed while the function runs",
			cause.Identical: "the graph is the same, so something outside it changed: a function or model wrapped again " +
				"(torch.compile) each step or epoch (wrap it once), or a global the guards read",
			cause.ModuleMode: "one compilation per mode is expected (train and eval each compile once): keep one compiled " +
				"function per mode; a mode flipped every few steps is a recompilation each time only when the recompile limit is reached",
			cause.GlobalState: "dynamo guards on global state (grad mode, inference mode, autocast, the default dtype, " +
				"deterministic algorithms): set it once before the loop, or compile one function per state and call the one that fits",
		},
	},
}
