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
