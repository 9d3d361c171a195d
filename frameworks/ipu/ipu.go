// Package ipu is recomp's unit for Graphcore IPUs: TensorFlow's IPU fork (TF-IPU), the Poplar
// SDK, PopART and PopTorch. It says how their logs read (compile requests that the executable
// cache may still serve, engine phases, progress bars), what `recomp run` switches on, and
// where their executable caches live.
package ipu

import (
	"slices"
	"strings"

	"github.com/recomp/recomp/frameworks/framework"
	"github.com/recomp/recomp/internal/lazyre"
	"github.com/recomp/recomp/logscan"
)

// Name is the unit's name.
const Name = "ipu"

// cacheEntries are the files of TF-IPU's and PopART's executable caches.
var cacheEntries = []framework.CacheEntry{
	{Kind: "tf-ipu", Names: lazyre.New(`^[0-9a-f]{1,16}\.poplar_exec$`)},                                 // <hex>.poplar_exec
	{Kind: "tf-ipu-sdk1", Names: lazyre.New(`^[0-9a-f]{1,16}\.(?:xla_engine|xla_engine\.poplar_exec)$`)}, // <hex>.xla_engine (SDK <= 1.4)
	{Kind: "lock", Names: lazyre.New(`^[0-9a-f]{1,16}\.(?:compile_lock|read_lock)$`), Lock: true},        // TF-IPU's locks
	{Kind: "popart", Names: lazyre.New(`^\d+\.popef$`)},                                                  // <decimal>.popef
	{Kind: "popart-sdk2", Names: lazyre.New(`^\d+\.popart$`)},                                            // <decimal>.popart (SDK 2.0-2.4)
}

// Framework is Graphcore's IPU stack.
var Framework = &framework.Framework{
	Name:  Name,
	Title: "Graphcore IPU (TF-IPU, Poplar, PopART, PopTorch)",
	Producers: []logscan.Producer{logscan.ProducerTFIPU, logscan.ProducerPoplar, logscan.ProducerPopLibs,
		logscan.ProducerPopART, logscan.ProducerPopTorch, logscan.ProducerPoprun},
	Log: &logscan.Framework{
		Name:   Name,
		Begins: []string{"Begin XLA compilation: ", "Begin compiling Poplar engine ", "Compiling module ", "Starting phase: graphConstruction", "Starting compilation", "Starting Engine compilation"},
		Anchors: []string{
			"ompilation",   // XLA compilation, Compilation Finished, Graph compilation
			"compiling ",   // Begin compiling Poplar engine
			"Compiling ",   // Compiling module
			" compiled ",   // has not been compiled yet
			"h compiled",   // PopART: Graph compiled
			"executable",   // PopART executables, in executable cache
			"Executable",   // PopART: Saving serialized Executablex
			"ing phase: ",  // Poplar Starting phase: / Ending phase:
			".poplar_exec", // TF-IPU cache files
			".xla_engine",  // TF-IPU cache files, SDK <= 1.4
			"ngine loaded", // PopART Engine loaded
		},
		Heads:    []string{"Starting phase: ", "Ending phase: ", "Starting compilation", "Starting Engine compilation", "Graph compiled", "Engine loaded"},
		Rules:    rules(),
		NewState: func() any { return &barState{} },
		Finish:   finish,
	},
	// What Graphcore's compile records are about (Poplar engines and graphs, PopART and
	// PopTorch executables) and what they say is done to them.
	Vocabulary: logscan.Vocabulary{
		Subjects: []string{"Poplar", "poplar", "PopART", "popart", "PopTorch", "poptorch", "IPU", "ipu", "Engine", "engine",
			"Graph compil", "graph compil"},
		Actions: []string{"ompil", "OMPIL", "loaded", "cache"},
		Sweep:   slices.Concat(framework.CompileForms, framework.CompileFormsUpper, framework.CacheForms),
		// TF-IPU's echo of its flags, its progress report and its lookup of a cache file
		// (the result of which is read); Poplar's warning that an engine option differs from
		// the one the executable was compiled with.
		Known: []string{"TF_POPLAR_FLAGS is set to ", "% complete", "Trying to deserialize cached file", "compile time engine option"},
	},
	Also: []string{"tf"}, // TF-IPU logs through TensorFlow
	Settings: []framework.Setting{
		{Name: "TF_CPP_VMODULE", Value: "poplar_compiler=1,poplar_executable=1",
			Prints: lazyre.New(`\b(?:poplar_compiler|poplar_executable)\.cc:\d+\] `),
			Off:    func(v string) bool { return framework.VModuleOff(v, map[string]int{"poplar_compiler": 1}) }, Native: true},
		{Name: "POPLAR_LOG_LEVEL", Value: "INFO", Effect: "Poplar logs every engine phase: a long log",
			Prints: lazyre.New(`^(?:\d\d:\d\d:\d\d\.\d+ \d+ PO:\S* +\[I\] |\S+Z PO:\S* +\S+ I: )`),
			Off: func(v string) bool { // Poplar's levels below INFO print no phase
				return slices.Contains([]string{"WARN", "ERR", "CRITICAL", "OFF"}, strings.ToUpper(strings.TrimSpace(v)))
			}, Native: true},
		{Name: "POPART_LOG_LEVEL", Value: "INFO", Effect: "PopART logs at info level: a long log",
			Prints: lazyre.New(`^(?:\[[\d\- :.]+\] \[popart[^\]]*\] \[info\] |\S+Z popart:\S* +\S+ I: )`), Native: true},
	},
	CacheEntries: cacheEntries,
	CacheFolders: func(name, value string) []string {
		switch name {
		case "POPTORCH_CACHE_DIR":
			return []string{value}
		case "TF_POPLAR_FLAGS":
			var out []string
			for _, f := range strings.Fields(value) {
				if d, ok := strings.CutPrefix(f, "--executable_cache_path="); ok {
					out = append(out, d)
				}
			}
			return out
		}
		return nil
	},
	CompileFlags: []string{"TF_POPLAR_FLAGS"},
	Unfinished: func(p logscan.Producer) (string, string, bool) {
		if p != logscan.ProducerPopTorch {
			return "", "", false
		}
		return "a PopTorch graph compilation had not finished at the end of the log",
			"if the compile hangs, run with POPLAR_LOG_LEVEL=INFO to see the phase it is in", true
	},
	Packages: []string{"poptorch", "popart"},
	Advice: framework.Advice{
		Evidence:   "TF-IPU: TF_CPP_VMODULE=poplar_compiler=1; Poplar/PopART/PopTorch: POPLAR_LOG_LEVEL=INFO (PopTorch prints its compilation bar by default)",
		Recompiled: "turn on the compiler's hash logging (TF-IPU: TF_CPP_VMODULE=poplar_compiler=1) to see whether the graph changed, and dump the HLO for `recomp explain`",
		Switching: "Graphcore's recompilation note: merge the graphs that alternate into one (e.g. train and validation in " +
			"one loop), or place them on separate IPUs so each stays loaded",
		Cache: "TF-IPU: TF_POPLAR_FLAGS=--executable_cache_path=DIR; PopTorch: enableExecutableCaching",
	},
}
