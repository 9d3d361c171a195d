// Package neuron is recomp's unit for AWS Neuron (torch-neuronx and libneuronxla on Trainium and
// Inferentia): PyTorch/XLA's graphs compiled by neuronx-cc into NEFF files, through a compile
// cache of NEFFs (a local folder, and optimum-neuron's cache on the Hugging Face Hub). How its
// compiler wrapper's lines read, and what to advise its users.
package neuron

import (
	"github.com/recomp/recomp/frameworks/framework"
	"github.com/recomp/recomp/logscan"
	"slices"
)

// Name is the unit's name.
const Name = "neuron"

// Framework is AWS Neuron.
var Framework = &framework.Framework{
	Name:      Name,
	Title:     "AWS Neuron",
	Producers: []logscan.Producer{logscan.ProducerNeuron},
	Log:       messages,
	// What the wrapper's and the compiler's records are about (NEFFs, the graph's MODULE_, the
	// compiler) and what they say is done to them: a wrapper line with both that no rule read is
	// a record of a wording recomp does not know.
	Vocabulary: logscan.Vocabulary{
		Subjects: []string{"neff", "NEFF", "MODULE_", "neuronx-cc", "neuron-cc", "graph"},
		Actions:  []string{"ompil", "OMPIL", "cache", "CACHE"},
		Sweep: slices.Concat(framework.CompileForms, framework.CompileFormsUpper, framework.CacheForms,
			framework.CacheFormsUpper),
	},
	// torch-neuronx is PyTorch/XLA (the torch-xla unit): its analysis names the graphs
	// neuronx-cc compiles.
	Also:         []string{"torch-xla"},
	CacheFolders: cacheFolders,
	CacheTrees:   []*framework.CacheTree{cacheTree},
	Packages:     []string{"torch-neuronx", "libneuronxla", "neuronx-cc"},
	Advice: framework.Advice{
		// no Evidence: the compiler wrapper logs each compilation and cache hit by default
		Recompiled: "neuronx-cc compiles a new NEFF for each new graph: keep input shapes static (pad or bucket them), " +
			"pre-compile the graphs with neuron_parallel_compile, and keep the compile cache (NEURON_COMPILE_CACHE_URL) in a folder later runs reuse",
		// Its one warning is a compile cache in a temporary folder.
		Warning: "set NEURON_COMPILE_CACHE_URL to a lasting folder (the default is /var/tmp/neuron-compile-cache), or share one with optimum-neuron's Hub cache",
	},
}
