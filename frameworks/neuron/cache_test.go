package neuron

import (
	"testing"

	"github.com/recomp/recomp/frameworks/framework"
)

// A MODULE_ folder under a neuronxcc- folder is one entry: its key's three parts from its path,
// its state from its files.
func TestNeffEntry(t *testing.T) {
	v := "neuronxcc-2.15.128.0+56dc5a86"
	for _, c := range []struct {
		path, files []string
		ok          bool
		state       string
	}{
		{[]string{v, "MODULE_98ba4c9111d5882d2331+39f12043"}, []string{"model.hlo_module.pb", "model.neff", "model.done"}, true, ""},
		{[]string{v, "MODULE_98ba4c9111d5882d2331+39f12043"}, []string{"model.hlo_module.pb"}, true, "partial"},
		{[]string{v, "MODULE_98ba4c9111d5882d2331+39f12043"}, []string{"model.hlo_module.pb", "model.log"}, true, "failed"},
		{[]string{v, "MODULE_98ba4c9111d5882d2331+39f12043"}, []string{"model.hlo_module.pb", "lock"}, true, "locked"},
		{[]string{v, "MODULE_7411938889920977621"}, []string{"model.neff", "model.done"}, true, ""},
		{[]string{v, "notamodule"}, []string{"model.neff"}, false, ""},
		{[]string{v}, []string{"model.neff"}, false, ""},
	} {
		e, ok := neffEntry(c.path, c.files)
		if ok != c.ok || ok && (e.State != c.state || e.Key != c.path[1] || len(e.Parts) != 3 ||
			e.Parts[0] != (framework.Factor{Part: framework.KeyVersions, Name: "neuronx-cc version", Value: "2.15.128.0+56dc5a86"})) {
			t.Errorf("%v %v: %+v %v", c.path, c.files, e, ok)
		}
	}
	if !reTop.MatchString(v) || reTop.MatchString("neuronxcc-") || reTop.MatchString("MODULE_1") {
		t.Error("top folder")
	}
}

// The cache a run uses: --cache_dir in NEURON_CC_FLAGS, or NEURON_COMPILE_CACHE_URL.
func TestCacheFolders(t *testing.T) {
	for _, c := range []struct{ name, value, want string }{
		{"NEURON_COMPILE_CACHE_URL", "/data/neuron-cache", "/data/neuron-cache"},
		{"NEURON_COMPILE_CACHE_URL", "", ""},
		{"NEURON_CC_FLAGS", "--retry_failed_compilation --cache_dir=s3://bucket/cache", "s3://bucket/cache"},
		{"NEURON_CC_FLAGS", "--cache_dir /fsx/cache --log_level=INFO", "/fsx/cache"},
		{"NEURON_CC_FLAGS", "--model-type=transformer", ""},
	} {
		got := cacheFolders(c.name, c.value)
		if c.want == "" && len(got) != 0 || c.want != "" && (len(got) != 1 || got[0] != c.want) {
			t.Errorf("%s=%s: %v, want %q", c.name, c.value, got, c.want)
		}
	}
}
