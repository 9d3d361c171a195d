// Package runner runs a training or serving command with the evidence recomp reads switched
// on for every XLA stack it may use, keeps what the run leaves behind in a run folder (run.log
// with the time each line arrived, the HLO dump, manifest.json), and finds those files again in
// a run folder. It takes its writers and environment from the caller and prints nothing of
// its own.
package runner

import (
	"slices"
	"strings"
)

// Framework selects whose evidence is switched on.
type Framework string

// Frameworks.
const (
	FrameworkAuto     Framework = "auto" // all of them: a program may use several, and the others ignore them
	FrameworkJAX      Framework = "jax"
	FrameworkTF       Framework = "tf"
	FrameworkTorchXLA Framework = "torch-xla"
	FrameworkIPU      Framework = "ipu"
)

// DumpMode says which HLO modules XLA dumps into the run folder.
type DumpMode string

// Dump modes.
const (
	DumpBefore DumpMode = "before" // the modules before optimisation: what recomp compares; the folder stays small
	DumpAll    DumpMode = "all"    // everything XLA dumps
	DumpNone   DumpMode = "none"   // no dump
)

// Setting is one environment variable recomp run sets (or leaves as the user set it).
type Setting struct {
	Name  string `json:"name"`
	Value string `json:"value"`
	// Kept says the user had set it: recomp left the user's value (XLA_FLAGS is appended to).
	Kept bool `json:"kept,omitempty"`
	// Effect says what the setting costs or changes besides logging, when it does.
	Effect string `json:"effect,omitempty"`
}

// evidence is what makes each framework log its compilations.
var evidence = []struct {
	fw            Framework
	name, value   string
	effect        string
	appendToValue bool
}{
	{FrameworkJAX, "JAX_LOG_COMPILES", "1", "", false},
	{FrameworkJAX, "JAX_EXPLAIN_CACHE_MISSES", "1", "JAX compares each new trace with the ones it has seen: a little tracing time", false},
	{FrameworkTF, "TF_CPP_MIN_LOG_LEVEL", "0", "TensorFlow's info lines appear in the log too", false},
	{FrameworkTF, "TF_CPP_VMODULE", "device_compiler=2,device_compilation_profiler=2", "", false},
	{FrameworkTorchXLA, "PT_XLA_DEBUG_LEVEL", "2", "an analysis block per graph compiled and executed: more output, a little host time per step", false},
	{FrameworkTorchXLA, "XLA_HLO_DEBUG", "1", "Python source lines in the HLO metadata; it changes the graph hash and so the persistent-cache key: entries cached without it are not reused", false},
	{FrameworkIPU, "TF_CPP_VMODULE", "poplar_compiler=1,poplar_executable=1", "", false},
	{FrameworkIPU, "POPLAR_LOG_LEVEL", "INFO", "Poplar logs every engine phase: a long log", false},
	{FrameworkIPU, "POPART_LOG_LEVEL", "INFO", "PopART logs at info level: a long log", false},
}

// Evidence returns the settings that switch on the evidence of fw and the environment the
// command runs with: env with those settings added. A variable the user set is kept as it is,
// except XLA_FLAGS, to which the dump flags are appended (never replacing the user's flags).
// dumpDir is where XLA dumps HLO ("" or DumpNone for no dump).
func Evidence(fw Framework, dump DumpMode, dumpDir string, env []string) ([]Setting, []string) {
	have := map[string]string{}
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok {
			have[k] = v
		}
	}
	var settings []Setting
	set := map[string]int{} // index of a name in settings
	add := func(name, value, effect string) {
		if i, ok := set[name]; ok { // two frameworks want one variable: join the values
			if !settings[i].Kept && !slices.Contains(strings.Split(settings[i].Value, ","), value) {
				settings[i].Value += "," + value
			}
			return
		}
		s := Setting{Name: name, Value: value, Effect: effect}
		if v, ok := have[name]; ok {
			s.Value, s.Kept, s.Effect = v, true, ""
		}
		set[name] = len(settings)
		settings = append(settings, s)
	}
	for _, e := range evidence {
		if fw == FrameworkAuto || fw == e.fw || (fw == FrameworkIPU && e.fw == FrameworkTF) {
			add(e.name, e.value, e.effect)
		}
	}
	if dump != DumpNone && dumpDir != "" {
		flags := "--xla_dump_to=" + dumpDir + " --xla_dump_hlo_as_text"
		s := Setting{Name: "XLA_FLAGS", Value: flags, Effect: "XLA writes the HLO of every compilation into the run folder"}
		if v, ok := have["XLA_FLAGS"]; ok && strings.TrimSpace(v) != "" {
			s.Value = strings.TrimSpace(v) + " " + flags
			s.Effect += " (appended to your XLA_FLAGS)"
			if strings.Contains(v, "--xla_dump_to") {
				s.Effect += "; your own --xla_dump_to comes first, and XLA takes the last"
			}
		}
		settings = append(settings, s)
	}
	out := make([]string, 0, len(env)+len(settings))
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if i, ok := set[k]; ok && !settings[i].Kept {
			continue
		}
		if k == "XLA_FLAGS" && dump != DumpNone && dumpDir != "" {
			continue
		}
		out = append(out, kv)
	}
	for _, s := range settings {
		if !s.Kept {
			out = append(out, s.Name+"="+s.Value)
		}
	}
	return settings, out
}
