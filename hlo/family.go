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

var reTFFunctionFamily = regexp.MustCompile(`_inference_(.+?)_N(?:__|$)`)

// FunctionKey names the function a family was compiled from, so that the names one program
// gives the same function in different places meet: TF logs a cluster signature
// (__inference_f_N) where its dumps say a_inference_f_N__XlaMustCompile_…. Other families are
// their own key.
func FunctionKey(family string) string {
	if m := reTFFunctionFamily.FindStringSubmatch(family); m != nil {
		return "tf function " + m[1]
	}
	return family
}
