package explain

import (
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/recomp/recomp/frameworks"
	"github.com/recomp/recomp/ledger"
	"github.com/recomp/recomp/logscan"
	"github.com/recomp/recomp/runfolder"
)

// probeSignal marks the events made of the probe's compile records.
const probeSignal logscan.Signal = "probe:compile"

// standIn is what the probe recorded of the compilations of stacks whose log holds none (their
// compile logging was off): the events that stand for the log's lines, and the stacks.
type standIn struct {
	events []logscan.Event
	stacks []ledger.Silenced
}

// standInsOf are the probe's compile records (framework.Probe.StandIn) of each stack the log
// has no compilation of, as events of the log's one process: the gate and the verdict then judge
// them as they would the log's own lines. A stack whose records are of several processes, or
// name no program (JAX 0.4's), is left out (which process or program made each cannot be told:
// its silence stays a doubt).
// settings are the run's (the manifest's), to name the user's own setting that silenced it.
func standInsOf(rep *ledger.Report, recs []runfolder.ProbeRecord, dir string, settings []runfolder.Setting) standIn {
	var out standIn
	probe := filepath.Join(dir, runfolder.ProbeName)
	for _, p := range frameworks.Probes() {
		if !p.StandIn || len(p.Producers) == 0 || logged(rep, p) {
			continue
		}
		var evs []logscan.Event
		pid, n := 0, 0
		for i, r := range recs {
			if r.Framework != p.Name || r.Event != p.Event {
				continue
			}
			if pid != 0 && r.PID != pid || r.Name == "" {
				evs = nil // several processes, or a program not named (JAX 0.4's): whose is which cannot be told
				break
			}
			pid, n = r.PID, n+1
			evs = append(evs, compileEvents(p, r, probe, i+1)...)
		}
		if len(evs) == 0 {
			continue
		}
		out.events = append(out.events, evs...)
		fw := frameworks.ByName(p.Name)
		name := p.Name
		switch {
		case fw != nil && fw.Short != "":
			name = fw.Short
		case fw != nil && fw.Title != "":
			name = fw.Title
		}
		out.stacks = append(out.stacks, ledger.Silenced{Stack: name, Setting: silencedBy(p.Name, settings), Records: n})
	}
	slices.SortStableFunc(out.events, func(a, b logscan.Event) int { return a.Time.Compare(b.Time) })
	return out
}

// compileEvents are the events of one compile record of the probe (record line of the file
// probe): a compilation of the stack's, begun its duration before the record was written.
func compileEvents(p frameworks.ProbeHook, r runfolder.ProbeRecord, probe string, line int) []logscan.Event {
	d := time.Duration(r.Seconds * float64(time.Second))
	if r.Seconds < 0 || r.Seconds > float64(maxCompileNS)/1e9 {
		d = 0
	}
	ev := logscan.Event{Producer: p.Producers[0], Signal: probeSignal, File: probe, Line: line,
		Module: moduleName(p, r.Name), DateKnown: true}
	begin, end := ev, ev
	begin.Kind, begin.Time = logscan.CompileBegin, r.Time().Add(-d)
	end.Kind, end.Time, end.Duration = logscan.CompileFinished, r.Time(), d
	return []logscan.Event{begin, end}
}

// LiveStandIns follows the probe's records of the run folder dir while the run goes on, for the
// stacks named whose compile logging the user switched off: next gives, as events of the log's
// process, their compilations recorded since its last call (ledger.LiveOptions.Supplement) —
// of the first process that recorded one: those of others are left to the report at the end,
// which says whose they are or that it cannot tell. stop ends it.
func LiveStandIns(dir string, stacks []string) (next func() []logscan.Event, stop func()) {
	var hooks []frameworks.ProbeHook
	for _, p := range frameworks.Probes() {
		if p.StandIn && len(p.Producers) > 0 && slices.Contains(stacks, p.Name) {
			hooks = append(hooks, p)
		}
	}
	t := runfolder.NewProbeTail(dir)
	probe := filepath.Join(dir, runfolder.ProbeName)
	pids := map[string]int{}
	line := 0
	return func() []logscan.Event {
		var out []logscan.Event
		for _, r := range t.Next() {
			line++
			for _, p := range hooks {
				if r.Framework != p.Name || r.Event != p.Event || r.Name == "" || pids[p.Name] != 0 && r.PID != pids[p.Name] {
					continue
				}
				pids[p.Name] = r.PID
				out = append(out, compileEvents(p, r, probe, line)...)
			}
		}
		return out
	}, func() { t.Close() }
}

// logged says whether a log holds a compile request of the probe hook's stack (compiled or
// served from a cache): its compile logging was on, and the log's lines are the evidence.
func logged(rep *ledger.Report, p frameworks.ProbeHook) bool {
	for _, m := range rep.Modules {
		for _, u := range m.Units {
			if slices.Contains(p.Producers, u.Producer) {
				return true
			}
		}
	}
	return false
}

// silencedBy names the user's own settings that switched a stack's compile logging off and that
// recomp run kept ("JAX_LOG_COMPILES=0"), "" when the run's settings name none.
func silencedBy(stack string, settings []runfolder.Setting) string {
	fw := frameworks.ByName(stack)
	if fw == nil {
		return ""
	}
	var out []string
	for _, s := range settings {
		if !s.Kept {
			continue
		}
		for _, e := range fw.Settings {
			if e.Off != nil && e.Name == s.Name && e.Off(s.Value) {
				out = append(out, s.Name+"="+s.Value)
			}
		}
	}
	return strings.Join(out, ", ")
}

// readStandingIn reads a run folder's log (one log, the folder's), and again with the probe's
// compile records standing for the lines of the stacks it holds no compilation of
// (standInsOf); those stacks are returned.
func readStandingIn(logs []ledger.Log, opt ledger.ReadOptions, recs []runfolder.ProbeRecord, dir string, settings []runfolder.Setting) (*ledger.Scan, []ledger.Silenced, error) {
	s, err := ledger.ReadLogs(logs, opt)
	if err != nil || len(logs) != 1 || len(recs) == 0 {
		return s, nil, err
	}
	in := standInsOf(s.Ledger, recs, dir, settings)
	if len(in.events) == 0 {
		return s, nil, nil
	}
	logs = slices.Clone(logs)
	logs[0].Supplement = in.events
	s, err = ledger.ReadLogs(logs, opt)
	return s, in.stacks, err
}

// judgedElsewhere says in the report which stacks were judged on the probe's records.
func judgedElsewhere(rep *ledger.Report, silenced []ledger.Silenced, dumped bool) {
	for _, s := range silenced {
		s.Dumped = dumped
		rep.JudgedElsewhere(s)
	}
}
