// Package tf is recomp's unit for TensorFlow with XLA: tf.function with jit_compile, XLA
// auto-clustering, and Keras 3 on the TensorFlow backend. It says how TF's log reads, how TF
// names the programs it compiles (traced functions numbered per process, auto-clustering
// clusters, Keras's train, test and predict steps), and what `recomp run` switches on.
package tf

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/recomp/recomp/frameworks/cause"
	"github.com/recomp/recomp/frameworks/framework"
	"github.com/recomp/recomp/hlo"
	"github.com/recomp/recomp/internal/lazyre"
	"github.com/recomp/recomp/logscan"
)

// Name is the unit's name.
const Name = "tf"

// Framework is TensorFlow with XLA.
var Framework = &framework.Framework{
	Name:  Name,
	Title: "TF-XLA / Keras",
	Short: "TF",
	// TF prints it once per process, whatever it compiles after (messages' ClusterCompiled).
	OncePerProcess: "Compiled cluster using XLA!",
	CompiledBy:     []logscan.Producer{logscan.ProducerTFIPU, logscan.ProducerPoplar, logscan.ProducerPopLibs},
	// XLA's own C++ lines (an absl prefix naming an xla/ source) are read as TF's: TF is the
	// stack that prints them with its device compiler.
	Producers: []logscan.Producer{logscan.ProducerTF, logscan.ProducerXLA},
	Log:       messages,
	Facts:     facts,
	// What TF's compile records are about (traced functions, XLA clusters, signatures) and what
	// they say is done to them.
	Vocabulary: logscan.Vocabulary{
		Subjects: []string{"tf.function", "XLA", "cluster", "FuncGraph", "signature", "__inference", "jit_compile"},
		Actions:  []string{"ompil", "retrac", "trac"},
		// "retraced", "Retracing", "tracing", "traced" besides compiling
		Sweep: slices.Concat(framework.CompileForms, []string{"etrace", "etracing", "racing ", "traced"}),
		// device_compilation_profiler.cc and device_compiler.h (VLOG 2): the signature of each
		// request, a cluster not compiled yet (lazy compilation's threshold), the in-process
		// cache's hit count and the running total of compile time,
		// which the profiler's "Compiled S N times" line says per compilation; and TF's
		// warning that XLA ignores a random op's seed; and the SavedModel writer's warning, at a
		// Keras model.save(), of functions it found no trace of (saved_model/save.py: "Found
		// untraced functions such as _update_step_xla, … while saving (showing N of M)"), which
		// says nothing was traced or compiled.
		Known: []string{"DeviceCompilationClusterSignature", "Compilation cache entry hit: ", "Compilation of XLA executable time: ",
			"with XLA compilation will ignore seeds", "Not compiling ", "Found untraced functions such as "},
	},
	Identity: framework.Identity{
		// tf.GradientTape's and tf.gradients' ops; TF's own ops carry a TF op type (MatMul, Relu)
		Gradient: func(m hlo.Meta) (grad, ours bool) {
			ours = m.OpType != "" && m.OpType[0] >= 'A' && m.OpType[0] <= 'Z'
			return strings.Contains(m.OpName, "gradient_tape/") || strings.Contains(m.OpName, "gradients/"), ours
		},
		Family:      family,
		FunctionKey: functionKey,
		Function:    function,
		Program:     program,
		ByTrace:     func(family string) bool { return strings.Contains(family, " [inference_") },
		Group:       ClusterGroup,
		DumpProgram: func(module, family string) (string, bool) {
			if isKerasStep(family) {
				return reCounter.ReplaceAllString(module, ""), true // train, test and predict share a family
			}
			return "", false
		},
		FunctionID: functionID,
		Role:       kerasRole,
	},
	Settings: []framework.Setting{
		{Name: "TF_CPP_MIN_LOG_LEVEL", Value: "0", Effect: "TensorFlow's info lines appear in the log too",
			// absl's info lines ("I1124 10:02:03.123456" or, before absl is set up, "I0000
			// 00:00:1795514318.913671" in seconds since the epoch), the older TF form, and absl's
			// notice of its own set-up that the first info line brings, and the second line of
			// the CPU-features info line.
			Prints: lazyre.New(`^(?:I\d{4} \d\d:\d\d:\d+\.\d+ +-?\d+ \S+:\d+\] |\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+: I \S+:\d+\] |` +
				`WARNING: All log messages before absl::InitializeLog\(\) is called are written to STDERR$|` +
				`To enable the following instructions: .*, rebuild TensorFlow with the appropriate compiler flags\.$)`),
			Off:    func(v string) bool { n, err := strconv.Atoi(strings.TrimSpace(v)); return err == nil && n > 0 }, // info lines dropped
			Native: true},
		// Not device_compiler=2: its five lines on every call of a compiled function (the cache
		// lookup, "Already Compiled for signature") cost a small step about 20% under recomp run.
		// The profiler's line comes once per compilation, with its time. Set by the user, it is
		// kept, and recomp then also tells Keras's train and test steps apart in the log alone.
		{Name: "TF_CPP_VMODULE", Value: "device_compilation_profiler=2", Effect: "TF logs each XLA compilation with its time: a line per compilation, nothing per step",
			Prints: lazyre.New(`\b(?:device_compiler\.h|device_compilation_profiler\.cc):\d+\] `),
			Off: func(v string) bool {
				return framework.VModuleOff(v, map[string]int{"device_compilation_profiler": 2, "device_compiler": 2})
			}, Native: true},
	},
	Packages: []string{"tensorflow", "tensorflow-cpu", "keras"},
	Probe: &framework.Probe{Package: "tensorflow", Hook: probeHook, Function: "_on_tensorflow", Records: "each tf.function trace, with its Python (non-tensor) arguments",
		Attach: framework.AttachLastTrace, Event: "trace"},
	Static: &framework.Static{Word: "Python argument", PerValue: "a new trace and compilation per value", Advice: staticAdvice,
		ValuesAdvice: sequenceAdvice},
	Advice: framework.Advice{
		Compiles:   "tf.function(jit_compile=True)",
		Rewrapped:  "a tf.function created in a loop",
		Grows:      "tf.concat",
		Silences:   "a TF_CPP_MIN_LOG_LEVEL of its own",
		Evidence:   "TF/Keras with XLA: TF_CPP_MIN_LOG_LEVEL=0 TF_CPP_VMODULE=device_compilation_profiler=2 (device_compiler=2 adds Keras's step signatures, at a few lines per step)",
		Recompiled: "dump the HLO (XLA_FLAGS=--xla_dump_to=DIR) and run `recomp explain DIR`; if tf.function retraces, give it an input_signature or reduce_retracing=True",
		Retrace: "give the tf.function an input_signature (with None for the dimensions that vary) or reduce_retracing=True, " +
			"and pass Python scalars as tensors; under jit_compile that stops the tracing, not the compiling: every new shape is " +
			"still an XLA compilation, so pad to a few fixed shapes (tf.data padded_batch with padded_shapes, bucket_by_sequence_length)",
		Inference: map[cause.Kind]string{
			cause.BatchSize: "this graph computes no gradient (evaluation, scoring or prediction): do not drop the last partial batch " +
				"(drop_remainder would lose its rows' results); pad it to the full batch (tf.data padded_batch, or tf.pad) and drop the padded rows' outputs, " +
				"or give it a batch size that divides the data",
		},
		Causes: map[cause.Kind]string{
			cause.BatchSize: "drop the last partial batch (tf.data batch(..., drop_remainder=True)); for Keras fit on arrays, a batch_size that divides " +
				"the number of samples, and validation_batch_size for the validation data",
			cause.InputShape: "pad to fixed sizes: tf.data padded_batch(..., padded_shapes=...) with a fixed length, or bucket_by_sequence_length " +
				"with fixed bucket_boundaries and pad_to_bucket_boundary=True (one compilation per boundary); under jit_compile an " +
				"input_signature with None still compiles once per shape",
			cause.Constant:  "pass Python numbers to the tf.function as tensors: a new Python value is a new trace and a new XLA compilation",
			cause.Identical: "create the tf.function (or compile the Keras model) once, outside the loop",
		},
		Group: "give the tf.function an input_signature (with None for the dimensions that vary) or reduce_retracing=True so it " +
			"is not traced again; or mark the dynamic dimensions and let XLA recompile one cluster",
	},
}

var (
	reFunctionID     = lazyre.New(`(inference_[A-Za-z0-9_]*?)_\d+(__|$)`)
	reTracedID       = lazyre.New(`inference_[A-Za-z0-9_]*?_\d+(?:__|$)`)
	reFunctionFamily = lazyre.New(`_inference_(.+?)_N(?:__| \[|$)`)
	reAlias          = lazyre.New(`:\s*\(\s*(\d+)\s*,`)
	reClusterKey     = lazyre.New(`^cluster_(\d+)(?:__|$)`)
	reCounter        = lazyre.New(`(\.\d+)+$`)
)

// family: TensorFlow numbers every traced function (a_inference_train_function_18311__…), and
// the number changes when the same graph is traced again.
func family(name string) string {
	if strings.Contains(name, "inference_") {
		return reFunctionID.ReplaceAllString(name, "${1}_N${2}")
	}
	return name
}

// functionKey: TF logs a cluster signature (__inference_f_N, cluster_3) where its dumps say
// a_inference_f_N__XlaMustCompile_… and cluster_3__XlaCompiledKernel_true__….
func functionKey(family string) (string, bool) {
	switch {
	case reFunctionFamily.MatchString(family):
		return "tf function " + reFunctionFamily.FindStringSubmatch(family)[1], true
	case reClusterKey.MatchString(family):
		return "tf cluster " + reClusterKey.FindStringSubmatch(family)[1], true
	}
	return "", false
}

// function: __inference_train_step_42 compiles train_step.
func function(module string) (string, bool) {
	name, ok := strings.CutPrefix(module, "__inference_")
	if !ok {
		return "", false
	}
	if i := strings.LastIndexByte(name, '_'); i > 0 && isNumber(name[i+1:]) {
		name = name[:i]
	}
	return name, true
}

func isNumber(s string) bool {
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return s != ""
}

// functionID: the traced function, its id included: __inference_f_272 in the log and
// a_inference_f_272__XlaMustCompile_true__ in the dump are inference_f_272.
func functionID(module string) (string, bool) {
	if id := reTracedID.FindString(module); id != "" {
		return strings.TrimSuffix(id, "__"), true
	}
	return "", false
}

// program: Keras 3 traces its train, test and predict steps under one function name
// (one_step_on_data), which the XLA device compiler tells apart by their number of inputs (the
// optimizer's state, the labels); a retrace of one of them (a new function id) keeps its inputs.
// Each is a program, and a family, of its own: "__inference_one_step_on_data_N [num_inputs=10]"
// (the log says no more; a dump says its role: kerasRole), or by its traced function when the
// log gives no inputs.
func program(family, module, signature string) (string, bool) {
	if !isKerasStep(family) {
		return "", false
	}
	if signature != "" {
		return family + " [" + signature + "]", true
	}
	if id, ok := functionID(module); ok {
		return family + " [" + id + "]", true
	}
	return family + " [" + module + "]", true
}

// kerasRole reads what a Keras step's module does from its graph. The train step updates the
// model's weights: its module aliases parameters that hold arrays to its results
// (input_output_alias) and returns them. The test step (validation, evaluate) returns scalars
// only, its loss and metrics (it may alias scalar metric state). The predict step returns arrays
// whose leading dimension is its first input's (the batch).
func kerasRole(family string, m *hlo.Module) string {
	if !isKerasStep(family) || m.Entry == nil || m.Entry.Root == nil {
		return ""
	}
	params := map[int]hlo.Shape{}
	var first hlo.Shape
	for _, in := range m.Entry.Instructions {
		if in.Opcode == "parameter" {
			params[in.Param] = in.Shape
			if in.Param == 0 {
				first = in.Shape
			}
		}
	}
	if alias, ok := m.Attr("input_output_alias"); ok {
		for _, a := range reAlias.FindAllStringSubmatch(alias, -1) {
			n, _ := strconv.Atoi(a[1])
			if s, ok := params[n]; ok && !s.IsTuple && len(s.Dims) > 0 {
				return "train step"
			}
		}
	}
	outs := []hlo.Shape{m.Entry.Root.Shape}
	if outs[0].IsTuple {
		outs = outs[0].Tuple
	}
	scalars := true
	for _, o := range outs {
		switch {
		case o.IsTuple || !o.Known():
			return ""
		case len(o.Dims) > 0:
			scalars = false
			if len(first.Dims) == 0 || o.Dims[0] != first.Dims[0] {
				return ""
			}
		}
	}
	if scalars {
		return "test step"
	}
	return "predict step"
}

func isKerasStep(family string) bool {
	for _, f := range []string{"inference_one_step_on_", "inference_multi_step_on_"} {
		if strings.Contains(family, f) {
			return true
		}
	}
	return false
}

// ClusterGroup is the name of a TF auto-clustering cluster with its number replaced by N ("" for
// other modules): cluster_3 and cluster_0__XlaCompiledKernel_true__… are numbered in the order
// in which TF formed them.
//
// It reads the module name as the regexp ^cluster_\d+(__.*?)?(\.\d+)*$ does, without the regexp
// engine (the ledger asks for each compilation's group); FuzzClusterGroup holds it to the regexp.
func ClusterGroup(module string) string {
	rest, ok := strings.CutPrefix(module, "cluster_")
	if !ok {
		return ""
	}
	n := 0
	for n < len(rest) && rest[n] >= '0' && rest[n] <= '9' {
		n++
	}
	if n == 0 {
		return ""
	}
	rest = rest[n:]
	if tail, ok := strings.CutPrefix(rest, "__"); ok {
		// the shortest (__.*?): all but the trailing ".N" counters, on one line
		if own := tail[:framework.CounterStart(tail)]; !strings.Contains(own, "\n") {
			return "cluster_N__" + own
		}
		return ""
	}
	if framework.CounterStart(rest) != 0 {
		return "" // more than ".N" counters after the number
	}
	return "cluster_N"
}

// staticAdvice is what to do about a tf.function's Python argument name whose new values traced
// and compiled the function again; ints when every value was a Python int (a loop count).
func staticAdvice(name string, ints bool) string {
	adv := fmt.Sprintf("a Python value passed to a tf.function is part of its trace: each new value of `%s` traces and compiles "+
		"it again; pass it as a tensor (tf.constant(%s)) or keep it fixed", name, name)
	if ints {
		adv += fmt.Sprintf("; a Python loop over range(%s) is unrolled into the graph: over a tensor, use tf.range(%s) (autograph makes it "+
			"a tf.while_loop, compiled once) or round it up to a few values", name, name)
	}
	return adv
}

// sequenceAdvice is what to do about a tf.function's Python argument name whose values were
// Python lists or tuples (the probe writes them as the program did: "[3, 1, 4]") of more than one
// length: as a tensor it would be one trace, but XLA still compiles once per length, so the
// remedy is a few fixed lengths. "" for other values.
func sequenceAdvice(name string, values []string) string {
	lengths := map[int]bool{}
	for _, v := range values {
		n, ok := sequenceLen(v)
		if !ok {
			return ""
		}
		lengths[n] = true
	}
	if len(lengths) < 2 {
		return ""
	}
	return fmt.Sprintf("a Python list passed to a tf.function is part of its trace as a whole: each new `%[1]s` traces and "+
		"compiles it again, and as a tensor (tf.constant(%[1]s)) it would still compile once per length under jit_compile=True; "+
		"pad `%[1]s` to a few fixed lengths with a mask and pass it as a tensor, declared once with "+
		"input_signature=[tf.TensorSpec([None], ...)] (or reduce_retracing=True) so that one trace serves every length: "+
		"XLA then compiles once per padded length", name)
}

// sequenceLen is the number of elements of a Python list or tuple's repr ("[3, 1, 4]": 3), when
// it is one whose elements are numbers.
func sequenceLen(v string) (int, bool) {
	v = strings.TrimSpace(v)
	if len(v) < 2 || !(v[0] == '[' && v[len(v)-1] == ']' || v[0] == '(' && v[len(v)-1] == ')') {
		return 0, false
	}
	body := strings.TrimSuffix(strings.TrimSpace(v[1:len(v)-1]), ",")
	if body == "" {
		return 0, true
	}
	parts := strings.Split(body, ",")
	for _, p := range parts {
		if _, err := strconv.ParseFloat(strings.TrimSpace(p), 64); err != nil {
			return 0, false
		}
	}
	return len(parts), true
}
