package runner

import (
	"os"
	"regexp"
	"slices"
	"strings"

	"github.com/recomp/recomp/frameworks"
	"github.com/recomp/recomp/frameworks/framework"
	"github.com/recomp/recomp/runfolder"
)

// Setting is one environment variable recomp run sets (or leaves as the user set it): what
// the manifest keeps of it, and the lines it makes the stacks print.
type Setting struct {
	runfolder.Setting

	prints    []*regexp.Regexp // the lines the setting makes the stack print
	continued []bool
}

// settingsOf is what the manifest keeps of the settings.
func settingsOf(settings []Setting) []runfolder.Setting {
	out := make([]runfolder.Setting, len(settings))
	for i, s := range settings {
		out[i] = s.Setting
	}
	return out
}

// QuietOf is what the settings recomp set (not the user's own) make the stacks print: kept out
// of the terminal under recomp run unless the user asks to see everything.
func QuietOf(settings []Setting) *Quiet {
	q := &Quiet{}
	for _, s := range settings {
		if s.Kept {
			continue
		}
		q.Lines = append(q.Lines, s.prints...)
		q.Continued = append(q.Continued, s.continued...)
	}
	return q
}

// Evidence returns the settings that switch on the evidence of fw and the environment the
// command runs with: env with those settings added. A variable the user set is kept as it is,
// except XLA_FLAGS, to which the dump flags are appended (never replacing the user's flags),
// and PYTHONPATH, before which the probe's folder goes. dumpDir is where XLA dumps HLO ("" or
// runfolder.DumpNone for no dump); probe is the run folder's probe (nil for none, see WriteProbe).
func Evidence(fw runfolder.Framework, dump runfolder.DumpMode, dumpDir string, probe *Probe, env []string) ([]Setting, []string) {
	have := map[string]string{}
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok {
			have[k] = v
		}
	}
	var settings []Setting
	set := map[string]int{} // index of a name in settings
	add := func(fw string, e framework.Setting) {
		name, value := e.Name, e.Value
		if i, ok := set[name]; ok { // two frameworks want one variable: join the values
			if !settings[i].Kept && !slices.Contains(strings.Split(settings[i].Value, ","), value) {
				settings[i].Value += "," + value
				settings[i].Framework = ""
				if e.Prints != nil {
					settings[i].prints = append(settings[i].prints, e.Prints)
					settings[i].continued = append(settings[i].continued, e.Continued)
				}
			}
			return
		}
		s := Setting{Setting: runfolder.Setting{Name: name, Value: value, Effect: e.Effect, Framework: fw}}
		if e.Prints != nil {
			s.prints, s.continued = []*regexp.Regexp{e.Prints}, []bool{e.Continued}
		}
		if v, ok := have[name]; ok {
			s.Value, s.Kept, s.Effect = v, true, ""
		}
		set[name] = len(settings)
		settings = append(settings, s)
	}
	for _, f := range frameworks.Selected(string(fw)) {
		for _, e := range f.Settings {
			add(f.Name, e)
		}
	}
	if user := UserDumpDir(env); user != "" {
		// The user's own dump: their XLA_FLAGS stay as they are, and that folder is read.
		settings = append(settings, Setting{Setting: runfolder.Setting{Name: "XLA_FLAGS", Value: have["XLA_FLAGS"], Kept: true,
			Effect: "your own --xla_dump_to folder is read; recomp adds no dump flag and deletes nothing in it"}})
		set["XLA_FLAGS"] = len(settings) - 1
	} else if dump != runfolder.DumpNone && dumpDir != "" {
		flags := "--xla_dump_to=" + dumpDir + " --xla_dump_hlo_as_text"
		s := Setting{Setting: runfolder.Setting{Name: "XLA_FLAGS", Value: flags, Effect: "XLA writes the HLO of every compilation into the run folder"}}
		if v, ok := have["XLA_FLAGS"]; ok && strings.TrimSpace(v) != "" {
			s.Value = strings.TrimSpace(v) + " " + flags
			s.Effect += " (appended to your XLA_FLAGS)"
		}
		settings = append(settings, s)
	}
	if probe != nil {
		s := Setting{Setting: runfolder.Setting{Name: "PYTHONPATH", Value: probe.Dir, Effect: "recomp's probe (a sitecustomize) writes the program's own line of each JAX " +
			"compilation, each tf.function trace, and each Keras fit, evaluate and predict to probe.jsonl: a walk up the Python " +
			"stack per compilation, nothing per step"}}
		if v, ok := have["PYTHONPATH"]; ok && v != "" {
			s.Value = probe.Dir + string(os.PathListSeparator) + v
			s.Effect += " (put before your PYTHONPATH; your own sitecustomize still runs)"
		}
		settings = append(settings, s, Setting{Setting: runfolder.Setting{Name: runfolder.ProbeOutVar, Value: probe.Out}})
	}
	out := make([]string, 0, len(env)+len(settings))
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if i, ok := set[k]; ok && !settings[i].Kept {
			continue
		}
		if k == "XLA_FLAGS" && dump != runfolder.DumpNone && dumpDir != "" && UserDumpDir(env) == "" {
			continue
		}
		if (k == "PYTHONPATH" || k == runfolder.ProbeOutVar) && probe != nil {
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

// UserDumpDir is the folder the user's own XLA_FLAGS dump into (--xla_dump_to=DIR, the last one
// given, as XLA takes it): "" when none, or when it is not a folder ("-" and "sponge" are XLA's
// names for standard output and a test's outputs).
func UserDumpDir(env []string) string {
	flags := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "XLA_FLAGS="); ok {
			flags = v
		}
	}
	dir := ""
	for _, f := range strings.Fields(flags) {
		if v, ok := strings.CutPrefix(f, "--xla_dump_to="); ok {
			dir = strings.Trim(v, `"'`)
		}
	}
	if dir == "-" || dir == "sponge" {
		return ""
	}
	return dir
}

// Describe says what each setting is, one line a setting: NAME=VALUE, and whether it is the
// user's own or what it costs.
func Describe(settings []Setting) []string {
	var out []string
	for _, s := range settings {
		l := s.Name + "=" + s.Value
		switch {
		case s.Kept:
			l += " (yours, kept)"
		case s.Effect != "":
			l += " (" + s.Effect + ")"
		}
		out = append(out, l)
	}
	return out
}
