package hlo

import (
	"regexp"
	"strings"
)

var (
	reCounterSuffix = regexp.MustCompile(`(\.\d+)+$`)
	reTFFunctionID  = regexp.MustCompile(`(inference_[A-Za-z0-9_]*?)_\d+(__|$)`)
)

// Family returns the part of a module name that survives between compilations of the same
// graph: per-process counters are stripped. XLA appends ".N" uniquifiers (cluster_35__…_.56,
// jit_f.3, SyncTensorsGraph.38) and TensorFlow numbers every traced function
// (a_inference_train_function_18311__…); both change when the same graph is traced again.
func Family(name string) string {
	f := reCounterSuffix.ReplaceAllString(name, "")
	if strings.Contains(f, "inference_") {
		f = reTFFunctionID.ReplaceAllString(f, "${1}_N${2}")
	}
	if f == "" {
		return name
	}
	return f
}

var (
	reTFFunctionFamily = regexp.MustCompile(`_inference_(.+?)_N(?:__|$)`)
	reTFCluster        = regexp.MustCompile(`^cluster_(\d+)(?:__|$)`)
	rePythonFrame      = regexp.MustCompile(`^\S+:\d+ \(.+\)$`)
)

// FunctionKey names the function a family was compiled from, so that the names one program
// gives the same function in different places meet: TF logs a cluster signature
// (__inference_f_N, cluster_3) where its dumps say a_inference_f_N__XlaMustCompile_… and
// cluster_3__XlaCompiledKernel_true__…; JAX 0.4's dumps keep a trailing '_' its logs do not
// (jit__lambda_); PyTorch/XLA dumps every unnamed graph as SyncTensorsGraph where recomp names
// it after the Python frame that ran it (train.py:42 (train_step)). Other families are their
// own key.
func FunctionKey(family string) string {
	switch {
	case reTFFunctionFamily.MatchString(family):
		return "tf function " + reTFFunctionFamily.FindStringSubmatch(family)[1]
	case reTFCluster.MatchString(family):
		return "tf cluster " + reTFCluster.FindStringSubmatch(family)[1]
	case family == "SyncTensorsGraph" || rePythonFrame.MatchString(family):
		return "torch_xla unnamed graph"
	case strings.HasPrefix(family, "jit_") || strings.HasPrefix(family, "pmap_"):
		return strings.TrimRight(family, "_")
	}
	return family
}
