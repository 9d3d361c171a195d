package neuron

import (
	"slices"
	"strings"

	"github.com/recomp/recomp/frameworks/framework"
	"github.com/recomp/recomp/internal/lazyre"
)

// The Neuron compile cache (libneuronxla's neuron_cc_cache, the default /var/tmp/neuron-
// compile-cache, NEURON_COMPILE_CACHE_URL or --cache_dir in NEURON_CC_FLAGS; an S3 bucket or
// optimum-neuron's Hub repository hold the same tree): a folder per compiler version,
// neuronxcc-<version>, and in it a folder per graph, MODULE_<graph hash>+<flags hash>, that
// holds model.hlo_module.pb (the graph), model.neff (what neuronx-cc made of it) and model.done
// once the compilation succeeded; a failed compilation leaves model.log and is not tried again
// without --retry_failed_compilation; a writer holds a lock file beside them (optimum-neuron
// leaves files named "lock" out of what it uploads). The key is the graph's hash and the
// compiler flags' hash under the compiler's version: a different MODULE_ is a different graph
// or different flags.
var (
	reTop       = lazyre.New(`^neuronxcc-[0-9][0-9A-Za-z.+_-]*$`)
	reEntryName = lazyre.New(`^MODULE_([0-9A-Za-z]+)(?:\+([0-9a-f]+))?$`)
)

var cacheTree = &framework.CacheTree{
	Kind:     "neuron",
	Top:      reTop,
	MaxDepth: 2,
	Entry:    neffEntry,
	Remedy: map[framework.KeyPart]string{
		framework.KeyVersions: "a NEFF serves only the neuronx-cc version that compiled it (the neuronxcc-<version> folder): pin neuronx-cc " +
			"between the run that fills the cache and the runs that use it, or fill it again with neuron_parallel_compile after an upgrade",
		framework.KeyFlags: "the compiler flags' hash (MODULE_<graph>+<flags>) changed: keep NEURON_CC_FLAGS (and optimum-neuron's " +
			"compiler arguments) the same between the runs that share the cache",
		framework.KeyGraph: "the graph's hash changed: the same model, batch size and sequence lengths, optimizer and xm.mark_step() placement " +
			"give the same graph; precompile every graph the run needs with neuron_parallel_compile",
	},
}

// reCacheDir is --cache_dir in NEURON_CC_FLAGS, which the wrapper prefers to
// NEURON_COMPILE_CACHE_URL.
var reCacheDir = lazyre.New(`(?:^|\s)--cache_dir[= ](\S+)`)

// cacheFolders finds the compile cache a variable names: NEURON_COMPILE_CACHE_URL, or
// --cache_dir in NEURON_CC_FLAGS (an S3 URL is named too: recomp cannot read it).
func cacheFolders(name, value string) []string {
	switch name {
	case "NEURON_COMPILE_CACHE_URL":
		if value != "" {
			return []string{value}
		}
	case "NEURON_CC_FLAGS":
		if m := reCacheDir.FindStringSubmatch(value); m != nil {
			return []string{m[1]}
		}
	}
	return nil
}

// neffEntry reads a MODULE_ folder under a neuronxcc- folder.
func neffEntry(p []string, files []string) (framework.TreeEntry, bool) {
	if len(p) != 2 {
		return framework.TreeEntry{}, false
	}
	m := reEntryName.FindStringSubmatch(p[1])
	if m == nil {
		return framework.TreeEntry{}, false
	}
	e := framework.TreeEntry{Program: p[1], Key: p[1], Parts: []framework.Factor{
		{Part: framework.KeyVersions, Name: "neuronx-cc version", Value: strings.TrimPrefix(p[0], "neuronxcc-")},
		{Part: framework.KeyGraph, Name: "graph hash", Value: m[1]},
		{Part: framework.KeyFlags, Name: "compiler flags hash", Value: m[2]},
	}}
	has := func(n string) bool { return slices.Contains(files, n) }
	switch {
	case slices.ContainsFunc(files, func(n string) bool { return strings.Contains(n, "lock") }):
		e.State = "locked"
	case has("model.done") && has("model.neff"):
	case has("model.log"):
		e.State = "failed"
	default:
		e.State = "partial"
	}
	return e, true
}
