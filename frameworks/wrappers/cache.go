package wrappers

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/recomp/recomp/frameworks/framework"
	"github.com/recomp/recomp/internal/lazyre"
)

// vLLM's torch.compile cache (vllm/compilation/backends.py, VllmBackend.__call__): under
// VLLM_CACHE_ROOT (~/.cache/vllm), torch_compile_cache/<hash>/rank_<rank>_<dp rank>/<prefix>/,
// where <hash> is the first 10 hex digits of the SHA-256 of every factor of the key (the
// environment variables vLLM hashes, its config, the compiler's factors, the hashes of the
// files the model's forward traced) and <prefix> names the compiled part of the model
// ("backbone", or none in older releases). Each entry holds cache_key_factors.json (the raw
// factors by part: env, config, compiler, code, with config_hash, compiler_hash and code_hash),
// computation_graph.py, and the compiled artifacts (vllm_compile_cache.py with Inductor's files,
// or artifact_compile_range_* files). A pod that gets another <hash> compiles everything again:
// the factors that differ say why (vllm-project/vllm#40246).
var (
	reVLLMTop  = lazyre.New(`^(?:[0-9a-f]{10}|torch_compile_cache)$`)
	reVLLMHash = lazyre.New(`^[0-9a-f]{10}$`)
	reVLLMRank = lazyre.New(`^rank_(\d+)_(\d+)$`)
)

// keyFactors is the file of an entry's key factors.
const keyFactors = "cache_key_factors.json"

var vllmCache = &framework.CacheTree{
	Kind:     "vllm",
	Top:      reVLLMTop,
	MaxDepth: 4,
	Entry:    vllmEntry,
	Factors:  vllmFactors,
	Remedy: map[framework.KeyPart]string{
		framework.KeyVersions: "the compiler's factors changed (the torch version, Inductor's config): a cache serves only the torch and " +
			"vLLM that wrote it; fill it in the image that serves",
		framework.KeyFlags: "vLLM's config changed (the model, dtype, max_model_len, the compilation config): serve with the same " +
			"arguments as the run that filled the cache",
		framework.KeyDevice: "the parallel layout changed (tensor, pipeline or data parallel size, the rank): fill the cache with the " +
			"layout that serves",
		framework.KeyEnv: "an environment variable vLLM hashes into the key changed: give every pod the same values",
		framework.KeyGraph: "the code the model's forward traced changed (vLLM's or the model's files): the same vLLM build and model " +
			"code in every pod",
		framework.KeyOther: "keep VLLM_CACHE_ROOT on a volume that outlives the pod, and the factors the same",
	},
}

// cacheFolders finds vLLM's torch.compile cache under VLLM_CACHE_ROOT.
func cacheFolders(name, value string) []string {
	if name == "VLLM_CACHE_ROOT" && value != "" {
		return []string{filepath.Join(value, "torch_compile_cache")}
	}
	return nil
}

// vllmEntry reads a folder of vLLM's torch.compile cache: one that holds cache_key_factors.json
// or vllm_compile_cache.py, below a <hash> folder and a rank_<r>_<dp> folder.
func vllmEntry(p []string, files []string) (framework.TreeEntry, bool) {
	if !slices.Contains(files, keyFactors) && !slices.Contains(files, "vllm_compile_cache.py") {
		return framework.TreeEntry{}, false
	}
	hash, rank, prefix := "", -1, ""
	for i, c := range p {
		switch {
		case reVLLMHash.MatchString(c) && hash == "":
			hash = c
		case reVLLMRank.MatchString(c) && hash != "":
			rank = i
		case rank >= 0 && i == rank+1:
			prefix = c
		}
	}
	if hash == "" || rank < 0 {
		return framework.TreeEntry{}, false
	}
	m := reVLLMRank.FindStringSubmatch(p[rank])
	program := prefix
	if program == "" {
		program = "model"
	}
	e := framework.TreeEntry{Program: fmt.Sprintf("%s (rank %s, data-parallel rank %s)", program, m[1], m[2]), Key: hash,
		Parts: []framework.Factor{{Part: framework.KeyDevice, Name: "rank", Value: m[1]}, {Part: framework.KeyDevice, Name: "data-parallel rank", Value: m[2]}}}
	artifacts := slices.ContainsFunc(files, func(n string) bool {
		return n == "vllm_compile_cache.py" || strings.HasPrefix(n, "artifact_")
	})
	switch {
	case slices.ContainsFunc(files, func(n string) bool { return strings.HasSuffix(n, ".lock") }):
		e.State = "locked"
	case !artifacts:
		e.State = "partial" // the key written, the compiled artifacts not (yet)
	}
	return e, true
}

// vllmFactors reads cache_key_factors.json: each factor by part, its value as compact JSON.
// An entry without the file (vLLM before it wrote one) has none.
func vllmFactors(read func(string) ([]byte, error)) ([]framework.Factor, error) {
	b, err := read(keyFactors)
	if err != nil {
		return nil, nil
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("%s: %v", keyFactors, err)
	}
	var out []framework.Factor
	for _, group := range []string{"compiler", "config", "env", "code"} {
		raw, ok := doc[group]
		if !ok {
			continue
		}
		flatten(group, raw, 0, func(name, value string) {
			if len(out) < maxFactors {
				out = append(out, framework.Factor{Part: factorPart(group, name), Name: name, Value: value})
			}
		})
	}
	return out, nil
}

// maxFactors bounds the factors kept of one entry; maxFactorDepth how deep they are named.
const (
	maxFactors     = 10_000
	maxFactorDepth = 8
)

// factorPart says what a factor of vLLM's key is about.
func factorPart(group, name string) framework.KeyPart {
	l := strings.ToLower(name)
	switch group {
	case "env":
		return framework.KeyEnv
	case "code":
		return framework.KeyGraph
	case "compiler":
		if strings.Contains(l, "version") {
			return framework.KeyVersions
		}
		return framework.KeyFlags
	}
	for _, w := range []string{"parallel", "world_size", "rank", "device", "num_gpus"} {
		if strings.Contains(l, w) {
			return framework.KeyDevice
		}
	}
	return framework.KeyFlags
}

// flatten names every leaf of a JSON value by its path (group.key.sub); a list of objects that
// name a path or file is keyed by it, so that two lists in another order still pair.
func flatten(name string, raw json.RawMessage, depth int, emit func(name, value string)) {
	var obj map[string]json.RawMessage
	var list []json.RawMessage
	switch {
	case depth < maxFactorDepth && json.Unmarshal(raw, &obj) == nil && obj != nil:
		keys := make([]string, 0, len(obj))
		for k := range obj {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			flatten(name+"."+k, obj[k], depth+1, emit)
		}
	case depth < maxFactorDepth && json.Unmarshal(raw, &list) == nil && list != nil:
		for i, item := range list {
			key := fmt.Sprintf("[%d]", i)
			var o map[string]json.RawMessage
			if json.Unmarshal(item, &o) == nil {
				for _, f := range []string{"path", "file", "filename"} {
					var s string
					if json.Unmarshal(o[f], &s) == nil && s != "" {
						key = "[" + s + "]"
						delete(o, f)
						break
					}
				}
				if b, err := json.Marshal(o); err == nil && len(o) == 1 {
					for _, v := range o {
						emit(name+key, compact(v))
					}
					continue
				} else if err == nil {
					item = b
				}
			}
			flatten(name+key, item, depth+1, emit)
		}
	default:
		emit(name, compact(raw))
	}
}

// compact is a JSON value as one short line.
func compact(raw json.RawMessage) string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	b, _ := json.Marshal(v)
	s := string(b)
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}
