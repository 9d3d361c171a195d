package wrappers

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/recomp/recomp/frameworks/framework"
)

// vLLM's entry folders: below a 10-hex-digit hash and rank_<r>_<dp>, holding the key's factors
// or the compiled artifacts; the factors read by part, a list of files keyed by its paths.
func TestVLLMEntry(t *testing.T) {
	for _, c := range []struct {
		path, files []string
		ok          bool
		program     string
		state       string
	}{
		{[]string{"torch_compile_cache", "1517964802", "rank_0_0", "backbone"}, []string{keyFactors, "vllm_compile_cache.py"}, true, "backbone (rank 0, data-parallel rank 0)", ""},
		{[]string{"1517964802", "rank_1_0"}, []string{"vllm_compile_cache.py"}, true, "model (rank 1, data-parallel rank 0)", ""},
		{[]string{"1517964802", "rank_0_0", "backbone"}, []string{keyFactors, "computation_graph.py"}, true, "backbone (rank 0, data-parallel rank 0)", "partial"},
		{[]string{"1517964802", "rank_0_0", "backbone"}, []string{keyFactors, "artifact_compile_range_1_8192_subgraph_0", "x.lock"}, true, "", "locked"},
		{[]string{"1517964802", "backbone"}, []string{keyFactors}, false, "", ""},
		{[]string{"torch_compile_cache", "rank_0_0"}, []string{keyFactors}, false, "", ""},
		{[]string{"1517964802", "rank_0_0"}, []string{"notes.txt"}, false, "", ""},
	} {
		e, ok := vllmEntry(c.path, c.files)
		if ok != c.ok || ok && (c.program != "" && e.Program != c.program || e.State != c.state || e.Key != "1517964802") {
			t.Errorf("%v %v: %+v %v", c.path, c.files, e, ok)
		}
	}
	b, err := os.ReadFile("../../testdata/caches/vllm/b/torch_compile_cache/6fa40315ee/rank_0_0/backbone/" + keyFactors)
	if err != nil {
		t.Fatal(err)
	}
	fs, err := vllmFactors(func(string) ([]byte, error) { return b, nil })
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, f := range fs {
		got[f.Name] = f.Part.String() + " " + f.Value
	}
	for name, want := range map[string]string{
		"compiler.torch_version":                      `versions "2.9.0"`,
		"compiler.inductor_config.max_autotune":       "flags false",
		"config.model_config.max_model_len":           "flags 8192",
		"config.parallel_config.tensor_parallel_size": "device 1",
		"env.VLLM_FLOAT32_MATMUL_PRECISION":           `environment "highest"`,
		"code[vllm/model_executor/models/llama.py]":   `graph "77aa19e3"`,
	} {
		if got[name] != want {
			t.Errorf("%s: %q, want %q", name, got[name], want)
		}
	}
	if fs, err := vllmFactors(func(string) ([]byte, error) { return nil, errors.New("absent") }); fs != nil || err != nil {
		t.Errorf("no file: %v %v", fs, err)
	}
	if _, err := vllmFactors(func(string) ([]byte, error) { return []byte("{"), nil }); err == nil || !strings.Contains(err.Error(), keyFactors) {
		t.Errorf("broken file: %v", err)
	}
}

func FuzzVLLMFactors(f *testing.F) {
	f.Add([]byte(`{"code":[{"path":"a.py","hash":"1"}],"config":{"a":{"b":[1,2]}},"env":{"X":"y"}}`))
	f.Add([]byte(`[[[[[[[[[[[[1]]]]]]]]]]]]`))
	f.Fuzz(func(t *testing.T, b []byte) {
		fs, _ := vllmFactors(func(string) ([]byte, error) { return b, nil })
		if len(fs) > maxFactors {
			t.Errorf("%d factors", len(fs))
		}
		for _, x := range fs {
			if x.Part < framework.KeyOther || x.Part > framework.KeyEnv {
				t.Errorf("part %d", x.Part)
			}
		}
	})
}

// recomp run snapshots vLLM's torch.compile cache under VLLM_CACHE_ROOT.
func TestVLLMCacheFolder(t *testing.T) {
	if got := cacheFolders("VLLM_CACHE_ROOT", "/models/vllm"); len(got) != 1 || got[0] != "/models/vllm/torch_compile_cache" {
		t.Errorf("%v", got)
	}
	if got := cacheFolders("VLLM_CACHE_ROOT", ""); got != nil {
		t.Errorf("unset: %v", got)
	}
}
