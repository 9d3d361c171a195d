package runner

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/recomp/recomp/frameworks"
	"github.com/recomp/recomp/frameworks/framework"
	"github.com/recomp/recomp/internal/lazyre"
	"github.com/recomp/recomp/runfolder"
)

// Setting is one environment variable recomp run sets (or leaves as the user set it): what
// the manifest keeps of it, and the lines it makes the stacks print.
type Setting struct {
	runfolder.Setting

	prints    []*lazyre.Regexp // the lines the setting makes the stack print
	continued []bool
	off       []string // the stacks whose compile logging the user's own value switched off
	narrowed  bool     // the probe narrows it when recomp set it (framework.Setting.Narrowed)
	native    bool     // every stack that wants it prints its lines from native code (framework.Setting.Native)
}

// Readable are the settings whose lines a session inside the process can read: those of
// settings, less the ones recomp would set whose lines only the stacks' native code prints
// (framework.Setting.Native), which go to the process's own output, never to its run.log. The
// user's own values stay, as they are.
func Readable(settings []Setting) []Setting {
	out := make([]Setting, 0, len(settings))
	for _, s := range settings {
		if !s.native || s.Kept {
			out = append(out, s)
		}
	}
	return out
}

// ProbeOwn is the value of runfolder.ProbeOwnVar: the settings recomp set (not the user's)
// that the probe narrows, comma-separated; "" when none.
func ProbeOwn(settings []Setting) string {
	var names []string
	for _, s := range settings {
		if s.narrowed && !s.Kept {
			names = append(names, s.Name)
		}
	}
	return strings.Join(names, ",")
}

// LoggingOff names, for each stack whose compile logging a setting of the user's own switched
// off (framework.Setting.Off), those settings as NAME=VALUE: recomp run kept them, so the
// stack's log holds no record of its compilations.
func LoggingOff(settings []Setting) map[string][]string {
	out := map[string][]string{}
	for _, s := range settings {
		for _, fw := range s.off {
			out[fw] = append(out[fw], s.Name+"="+s.Value)
		}
	}
	return out
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
	q := &Quiet{Lines: []*lazyre.Regexp{reSyncLine}, Continued: []bool{false}}
	for _, s := range settings {
		if s.Kept {
			continue
		}
		q.Lines = append(q.Lines, s.prints...)
		q.Continued = append(q.Continued, s.continued...)
	}
	return q
}

// SyncLine begins the line recomp's Python package writes to a process's stderr under recomp
// run (its gather() and pytest plugin, joined to recomp run's folder), to know when run.log holds
// everything the process wrote before it: recomp run keeps it off the terminal (QuietOf).
const SyncLine = "recomp-probe: sync "

var reSyncLine = lazyre.New(`^` + regexp.QuoteMeta(SyncLine) + `[0-9a-f]{1,64}\s*$`)

// Evidence returns the settings that switch on the evidence of fw and the environment the
// command runs with: env with those settings added. A variable the user set is kept as it is,
// except XLA_FLAGS, to which the dump flags are appended (never replacing the user's flags),
// and PYTHONPATH, before which the probe's folder goes. dumpDir is where XLA dumps HLO ("" or
// runfolder.DumpNone for no dump); traceDir is where a stack that writes a trace writes it
// (framework.Framework.TraceVariable; "" for no trace), unless the user named a folder of their
// own; probe is the run folder's probe (nil for none, see WriteProbe).
func Evidence(fw runfolder.Framework, dump runfolder.DumpMode, dumpDir, traceDir string, probe *Probe, env []string) ([]Setting, []string) {
	l := &settingList{have: map[string]string{}, at: map[string]int{}}
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok {
			l.have[k] = v
		}
	}
	for _, f := range frameworks.Selected(string(fw)) {
		for _, e := range f.Settings {
			l.add(f.Name, e)
		}
		if f.TraceVariable != "" && traceDir != "" {
			l.trace(f, traceDir)
		}
	}
	xla := frameworks.Dump()
	dumping := false
	if user := UserDumpDir(env); user != "" {
		// The user's own dump: their XLA_FLAGS stay as they are, and that folder is read.
		l.settings = append(l.settings, Setting{Setting: runfolder.Setting{Name: xla.Variable, Value: l.have[xla.Variable], Kept: true,
			Effect: "your own " + xla.To + " folder is read; recomp adds no dump flag and deletes nothing in it"}})
		l.at[xla.Variable] = len(l.settings) - 1
	} else if dump != runfolder.DumpNone && dumpDir != "" {
		l.settings = append(l.settings, l.dump(xla, dumpDir))
		dumping = true
	}
	if probe != nil {
		l.settings = append(l.settings, l.probe(probe)...)
	}
	out := make([]string, 0, len(env)+len(l.settings))
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if i, ok := l.at[k]; ok && !l.settings[i].Kept {
			continue
		}
		if k == xla.Variable && dumping || (k == "PYTHONPATH" || k == runfolder.ProbeOutVar || k == runfolder.ProbeLogVar || k == runfolder.ProbeOwnVar) && probe != nil {
			continue
		}
		out = append(out, kv)
	}
	for _, s := range l.settings {
		if !s.Kept {
			out = append(out, s.Name+"="+s.Value)
		}
	}
	if own := ProbeOwn(l.settings); own != "" && probe != nil {
		out = append(out, runfolder.ProbeOwnVar+"="+own)
	}
	return l.settings, out
}

// settingList is the settings of a run being gathered: have is the user's environment, at the
// index of a variable in settings.
type settingList struct {
	have     map[string]string
	settings []Setting
	at       map[string]int
}

// add adds a stack's setting; a variable two stacks want gets both values, a variable the user
// set keeps the user's.
func (l *settingList) add(fw string, e framework.Setting) {
	name, value := e.Name, e.Value
	v, mine := l.have[name]
	off := mine && e.Off != nil && e.Off(v)
	if i, ok := l.at[name]; ok { // two frameworks want one variable: join the values
		s := &l.settings[i]
		if off {
			s.off = append(s.off, fw)
		}
		s.native = s.native && e.Native
		if !s.Kept && !slices.Contains(strings.Split(s.Value, ","), value) {
			s.Value += "," + value
			s.Framework = ""
			if e.Prints != nil {
				s.prints = append(s.prints, e.Prints)
				s.continued = append(s.continued, e.Continued)
			}
		}
		return
	}
	s := Setting{Setting: runfolder.Setting{Name: name, Value: value, Effect: e.Effect, Framework: fw}, narrowed: e.Narrowed, native: e.Native}
	if e.Prints != nil {
		s.prints, s.continued = []*lazyre.Regexp{e.Prints}, []bool{e.Continued}
	}
	if mine {
		s.Value, s.Kept, s.Effect = v, true, ""
	}
	if off {
		s.off = []string{fw}
	}
	l.at[name] = len(l.settings)
	l.settings = append(l.settings, s)
}

// trace is the setting that makes fw write its trace into dir, or the user's own trace folder,
// kept (recomp reads that folder: UserTraceDir).
func (l *settingList) trace(fw *framework.Framework, dir string) {
	if _, ok := l.at[fw.TraceVariable]; ok {
		return
	}
	s := Setting{Setting: runfolder.Setting{Name: fw.TraceVariable, Value: dir, Effect: fw.TraceEffect, Framework: fw.Name}}
	if v, mine := l.have[fw.TraceVariable]; mine {
		s.Value, s.Kept, s.Effect = v, true, "your own trace folder is read"
	}
	l.at[fw.TraceVariable] = len(l.settings)
	l.settings = append(l.settings, s)
}

// UserTraceDir is the trace folder of the user's own that settings kept (a stack's
// TraceVariable set by the user), absolute: "" when none.
func UserTraceDir(settings []Setting) string {
	for _, s := range settings {
		if !s.Kept || strings.TrimSpace(s.Value) == "" {
			continue
		}
		for _, fw := range frameworks.Selected(string(runfolder.FrameworkAuto)) {
			if fw.TraceVariable == s.Name {
				if abs, err := filepath.Abs(s.Value); err == nil {
					return abs
				}
			}
		}
	}
	return ""
}

// dump is the compiler's setting that dumps into dumpDir, after the user's own flags.
func (l *settingList) dump(xla *framework.Dump, dumpDir string) Setting {
	flags := xla.To + "=" + dumpDir + " " + xla.AsText
	s := Setting{Setting: runfolder.Setting{Name: xla.Variable, Value: flags, Effect: "XLA writes the HLO of every compilation into the run folder"}}
	if v, ok := l.have[xla.Variable]; ok && strings.TrimSpace(v) != "" {
		s.Value = strings.TrimSpace(v) + " " + flags
		s.Effect += " (appended to your " + xla.Variable + ")"
	}
	return s
}

// probe is the settings that load the probe and say where it writes.
func (l *settingList) probe(probe *Probe) []Setting {
	s := Setting{Setting: runfolder.Setting{Name: "PYTHONPATH", Value: probe.Dir, Effect: probeEffect()}}
	if v, ok := l.have["PYTHONPATH"]; ok && v != "" {
		s.Value = probe.Dir + string(os.PathListSeparator) + v
		s.Effect += " (put before your PYTHONPATH; your own sitecustomize still runs)"
	}
	return []Setting{s, {Setting: runfolder.Setting{Name: runfolder.ProbeOutVar, Value: probe.Out}}}
}

// UserDumpDir is the folder the user's own XLA_FLAGS dump into (--xla_dump_to=DIR, the last one
// given, as XLA takes it): "" when none, or when it is not a folder ("-" and "sponge" are XLA's
// names for standard output and a test's outputs).
func UserDumpDir(env []string) string {
	flags := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, frameworks.Dump().Variable+"="); ok {
			flags = v
		}
	}
	dir := ""
	for _, f := range strings.Fields(flags) {
		if v, ok := strings.CutPrefix(f, frameworks.Dump().To+"="); ok {
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
		case s.Kept && len(s.off) > 0:
			l += " (yours, kept: it switches the compile logging of " + strings.Join(s.off, ", ") + " off)"
		case s.Kept:
			l += " (yours, kept)"
		case s.Effect != "":
			l += " (" + s.Effect + ")"
		}
		out = append(out, l)
	}
	return out
}
