package torch

import (
	"errors"
	"path/filepath"
	"time"

	"github.com/recomp/recomp/frameworks/framework"
)

// inductorCache is Inductor's FX-graph cache as recomp diff holds two runs against it: each
// FX-graph lookup of torch's trace names its key and lists the key's components with their
// values (cachetrace.go), so the part that made run B miss run A's entry is named with its two
// values.
type inductorCache struct{}

// EntryFile is the folder of a key's entries below TORCHINDUCTOR_CACHE_DIR.
func (inductorCache) EntryFile(dir, key string) (string, bool) {
	if !validKey(key) {
		return "", false
	}
	return filepath.Join(dir, filepath.FromSlash(entryPath(key))), true
}

// CompileTime: an FX-graph entry stores no compile time recomp reads (AOTAutograd's hit record
// in the trace says what a hit saved).
func (inductorCache) CompileTime(string) (time.Duration, error) {
	return 0, errors.New("an Inductor FX-graph entry stores no compile time recomp reads")
}

// ShortKey shortens a key: Inductor's keys are 52 characters.
func (inductorCache) ShortKey(key string) string {
	if len(key) > 16 {
		return key[:16] + "…"
	}
	return key
}

// Part says what a key component is about (componentPart).
func (inductorCache) Part(name string) framework.KeyPart { return componentPart(name) }

func (inductorCache) Words() framework.CacheWords { return inductorWords }

var inductorWords = framework.CacheWords{
	FlagsPart:      "Inductor config",
	Keys:           "Inductor's FX-graph cache keys",
	KeyLog:         "torch's trace, whose FX-graph lookups list their keys' components",
	Eviction:       "a cache folder cleared or not kept between runs (the default is under /tmp)",
	WhyNotWritten:  "Inductor writes every graph it compiles unless the cache is bypassed (the trace's fx_graph_cache_bypass says why)",
	Unreadable:     "the entry was written by another torch, or its generated code is gone",
	OutsideGraph:   "an Inductor config value, the torch version or the system (device, compiler)",
	HitThenCompile: true,
	PartAdvice:     inductorRemedy,
	Advice: map[string]string{
		"key_changed_outside_graph": inductorRemedy[framework.KeyFlags],
		"evicted":                   inductorRemedy[framework.KeyOther],
		"not_looked_up": "keep Inductor's FX-graph cache on (TORCHINDUCTOR_FX_GRAPH_CACHE unset or 1) and give recomp the runs' " +
			"traces (recomp run writes one; or TORCH_TRACE=DIR): its lookups are in the trace, not in dynamo's log",
	},
}
