// Package tf is recomp's unit for TensorFlow with XLA: tf.function with jit_compile, XLA
// auto-clustering, and Keras 3 on the TensorFlow backend. It says how TF's log reads, how TF
// names the programs it compiles (traced functions numbered per process, auto-clustering
// clusters, Keras's train, test and predict steps), and what `recomp run` switches on.
package tf

import (
	"regexp"
	"strings"

	"github.com/recomp/recomp/frameworks/framework"
	"github.com/recomp/recomp/logscan"
)

// Name is the unit's name.
const Name = "tf"

// Framework is TensorFlow with XLA.
var Framework = &framework.Framework{
	Name:  Name,
	Title: "TF-XLA / Keras",
	// XLA's own C++ lines (an absl prefix naming an xla/ source) are read as TF's: TF is the
	// stack that prints them with its device compiler.
	Producers: []logscan.Producer{logscan.ProducerTF, logscan.ProducerXLA},
	Log:       messages,
	Identity: framework.Identity{
		Family:      family,
		FunctionKey: functionKey,
		Function:    function,
		Program:     program,
		Group:       ClusterGroup,
		DumpProgram: func(module, family string) (string, bool) {
			if isKerasStep(family) {
				return reCounter.ReplaceAllString(module, ""), true // train, test and predict share a family
			}
			return "", false
		},
	},
	Settings: []framework.Setting{
		{Name: "TF_CPP_MIN_LOG_LEVEL", Value: "0", Effect: "TensorFlow's info lines appear in the log too",
			Prints: regexp.MustCompile(`^(?:I\d{4} \d\d:\d\d:\d\d\.\d+ +-?\d+ \S+:\d+\] |\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+: I \S+:\d+\] )`)},
		{Name: "TF_CPP_VMODULE", Value: "device_compiler=2,device_compilation_profiler=2",
			Prints: regexp.MustCompile(`\b(?:device_compiler\.h|device_compilation_profiler\.cc):\d+\] `)},
	},
	Packages: []string{"tensorflow", "tensorflow-cpu", "keras"},
	Advice: framework.Advice{
		Evidence:   "TF/Keras with XLA: TF_CPP_MIN_LOG_LEVEL=0 TF_CPP_VMODULE=device_compiler=2,device_compilation_profiler=2",
		Recompiled: "dump the HLO (XLA_FLAGS=--xla_dump_to=DIR) and run `recomp explain DIR`; if tf.function retraces, give it an input_signature or reduce_retracing=True",
		Retrace: "give the tf.function an input_signature (with None for the dimensions that vary) or reduce_retracing=True, " +
			"and pass Python scalars as tensors; under jit_compile every new signature is a new XLA compilation",
		Causes: map[string]string{
			"batch_size": "drop the last partial batch (tf.data batch(..., drop_remainder=True)); for Keras fit on arrays, a batch_size that divides " +
				"the number of samples, and validation_batch_size for the validation data",
			"input_shape":    "give the tf.function an input_signature with None for the dimension that varies, or pad to a few sizes (tf.data padded_batch, bucket_by_sequence_length)",
			"constant_value": "pass Python numbers to the tf.function as tensors: a new Python value is a new trace and a new XLA compilation",
			"identical":      "create the tf.function (or compile the Keras model) once, outside the loop",
		},
		Group: "give the tf.function an input_signature (with None for the dimensions that vary) or reduce_retracing=True so it " +
			"is not traced again; or mark the dynamic dimensions and let XLA recompile one cluster",
	},
}

var (
	reFunctionID     = regexp.MustCompile(`(inference_[A-Za-z0-9_]*?)_\d+(__|$)`)
	reFunctionFamily = regexp.MustCompile(`_inference_(.+?)_N(?:__|$)`)
	reClusterKey     = regexp.MustCompile(`^cluster_(\d+)(?:__|$)`)
	reCluster        = regexp.MustCompile(`^cluster_\d+(__.*?)?(\.\d+)*$`)
	reCounter        = regexp.MustCompile(`(\.\d+)+$`)
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

// program: Keras 3 traces its train, test and predict steps under one function name
// (one_step_on_data), which the XLA device compiler tells apart by their number of inputs (the
// optimizer's state, the labels); a retrace of one of them (a new function id) keeps its inputs.
func program(family, module, signature string) (string, bool) {
	if !isKerasStep(family) {
		return "", false
	}
	if signature != "" {
		return family + "\x00" + signature, true
	}
	return module, true
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
func ClusterGroup(module string) string {
	m := reCluster.FindStringSubmatch(module)
	if m == nil {
		return ""
	}
	return "cluster_N" + m[1]
}
