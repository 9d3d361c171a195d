package verdict

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/recomp/recomp/frameworks"
	"github.com/recomp/recomp/internal/textutil"
	"github.com/recomp/recomp/ledger"
	"github.com/recomp/recomp/runfolder"
)

// Answer is one line of a report's answer: its tone (bad, warn, ok), what it says, and the
// action.
type Answer struct {
	Tone   string
	Text   string
	Action string
}

// Answers are the answer's lines: one per program that compiled again (at most max, then how
// many more), else what the logs allow to say — no all-clear where records could not be read, a
// compilation was cut, or the logs hold no record of each compilation (doubts: the gate's, that a
// process or a stack left none). rep, when given, says whether the logs hold evidence.
func (v *Result) Answers(sm ledger.Summary, rep *ledger.Report, doubts []string, max int) []Answer {
	var out []Answer
	for i, vd := range v.Verdicts {
		if i == max {
			out = append(out, Answer{Tone: "warn", Text: fmt.Sprintf("%d more programs compiled again (listed below)", len(v.Verdicts)-i)})
			break
		}
		tone := "warn"
		if vd.AfterWarmup > 0 {
			tone = "bad"
		}
		out = append(out, Answer{Tone: tone, Text: vd.Sentence(), Action: vd.Action})
	}
	if len(v.Verdicts) > 0 {
		return out
	}
	if sm.UnreadRecords > 0 && sm.AfterWarmup == 0 {
		// What recomp could not read may be what compiled: no all-clear, no advice to switch on
		// logging the log has.
		unread := textutil.Plural(sm.UnreadRecords, "line looks like a compile record", "lines look like compile records")
		text := unread + " recomp could not read, so nothing can be said of what compiled"
		if sm.Events > 0 {
			text = fmt.Sprintf("no program compiled again in what recomp read (%s, %s), but %s it could not read",
				textutil.Plural(sm.Compilations, "compilation", "compilations"), ledger.FormatDuration(sm.CompileTime), unread)
		}
		out = append(out, Answer{Tone: "warn", Text: text,
			Action: "read those lines (the finding below names them): the counts may be short of what the log says"})
		return out
	}
	if sm.Unfinished > 0 && sm.AfterWarmup == 0 {
		// A compilation the log ends inside took an unknown time, and may not be the last.
		text := "the log ends inside a compilation that had not finished: its time, and whether more followed, are unknown"
		if before := sm.Compilations - sm.Unfinished; before > 0 {
			text = fmt.Sprintf("the log ends inside a compilation that had not finished (after %s, %s): its time, and whether more followed, are unknown",
				textutil.Plural(before, "other", "others"), ledger.FormatDuration(sm.CompileTime))
		}
		out = append(out, Answer{Tone: "warn", Text: text,
			Action: "see the finding below: let the run finish, or find why the compilation hangs"})
		return out
	}
	switch {
	case sm.Recompilations > 0:
		// a framework's metrics report: its count grew, but its graphs have no names
		tone := "warn"
		if sm.AfterWarmup > 0 {
			tone = "bad"
		}
		out = append(out, Answer{Tone: tone, Text: fmt.Sprintf("%s compiled again, after the first report of the framework's metrics (%s after warm-up, %s): the log does not name them",
			textutil.Plural(sm.Recompilations, "graph", "graphs"), textutil.Plural(sm.AfterWarmup, "compilation", "compilations"), ledger.FormatDuration(sm.LateCompileTime)),
			Action: "turn on the framework's compile logging to see which graph compiled again and why (see the findings below)"})
	case sm.AfterWarmup > 0:
		out = append(out, Answer{Tone: "bad", Text: fmt.Sprintf("no program compiled again, but %s compiled after warm-up (%s)",
			textutil.Plural(sm.AfterWarmup, "new program", "new programs"), ledger.FormatDuration(sm.LateCompileTime)),
			Action: "compile every program during warm-up (run each step kind, each shape, once) or move the warm-up marker after them"})
	case sm.Events == 0:
		out = append(out, Answer{Tone: "warn", Text: "no compilation in the log, and nothing in it says compile logging was on",
			Action: "check that the framework's compile logging reached this log (see the finding below)"})
	case rep != nil && !hasEvidence(rep):
		// Retraces or a once-per-process notice say something was traced or compiled, but not
		// how often: no all-clear on them (the gate is inconclusive too).
		out = append(out, Answer{Tone: "warn", Text: withoutEvidence(sm, rep), Action: evidenceAction(rep)})
	case rep != nil && len(doubts) > 0:
		// Some processes, or a stack beside another, left no record of each compilation: what
		// the others show is no all-clear for them (the gate's doubts, word for word).
		out = append(out, Answer{Tone: "warn", Text: fmt.Sprintf("no program compiled again in the logs that record each compilation (%s, %s), but %s",
			textutil.Plural(sm.Compilations, "compilation", "compilations"), ledger.FormatDuration(sm.CompileTime), strings.Join(doubts, "; ")),
			Action: evidenceAction(rep)})
	case sm.Compilations == 0 && sm.CompileRequests == 0:
		out = append(out, Answer{Tone: "ok", Text: "nothing compiled"})
	default:
		out = append(out, Answer{Tone: "ok", Text: fmt.Sprintf("no program compiled again (%s, %s)%s",
			textutil.Plural(sm.Compilations, "compilation", "compilations"), ledger.FormatDuration(sm.CompileTime), perModeNote(rep))})
	}
	return out
}

// perModeNote says which programs compiled once for each mode they ran in (ledger.PerMode), for
// the answer that nothing compiled again: "; P compiled once per mode (…), each served from the
// cache at every later switch" ("" when none did).
func perModeNote(rep *ledger.Report) string {
	if rep == nil {
		return ""
	}
	var out []string
	for _, m := range rep.Modules {
		var modes []string
		for _, u := range m.Compiled() {
			if u.Settled == ledger.PerMode {
				modes = modeChanges(modes, u)
			}
		}
		if len(modes) > 0 && len(out) < 3 {
			out = append(out, fmt.Sprintf("%s compiled once for each mode it ran in (%s), each served from the cache at every later switch: "+
				"not a recompilation", m.Family, strings.Join(modes, "; ")))
		}
	}
	if len(out) == 0 {
		return ""
	}
	return "; " + strings.Join(out, "; ")
}

// hasEvidence says whether some process's log holds a record a framework prints for each
// compilation, cache lookup, load or execution.
func hasEvidence(rep *ledger.Report) bool {
	for _, pr := range rep.Procs {
		if pr.Evidence > 0 {
			return true
		}
	}
	return false
}

// withoutEvidence says what a log without evidence holds, and that it cannot tell whether
// anything compiled again.
func withoutEvidence(sm ledger.Summary, rep *ledger.Report) string {
	var seen []string
	if sm.Retraces > 0 {
		seen = append(seen, textutil.Plural(sm.Retraces, "retrace", "retraces"))
	}
	clusters := 0
	for _, pr := range rep.Procs {
		clusters += pr.ClusterLines
	}
	if clusters > 0 {
		seen = append(seen, "a compile notice printed once per process")
	}
	if len(sm.Metrics) > 0 {
		seen = append(seen, fmt.Sprintf("the framework's metrics report (%s, %s)", textutil.Plural(sm.Compilations, "compilation", "compilations"), ledger.FormatDuration(sm.CompileTime)))
	}
	held := "the log holds no record of each compilation"
	if len(seen) > 0 {
		held = "the log holds " + strings.Join(seen, " and ") + " but no record of each compilation"
	}
	return held + ": whether any program compiled again is unknown"
}

// evidenceAction says how to make the stacks a log shows log each compilation: those its
// modules name, or every stack when it names none.
func evidenceAction(rep *ledger.Report) string {
	used := UsedFrameworks(rep)
	for _, pr := range rep.Procs {
		for _, prod := range pr.Producers {
			if fw := frameworks.ForProducer(prod); fw != nil {
				used[fw.Name] = true
			}
		}
	}
	var how []string
	for _, fw := range frameworks.All() {
		if used[fw.Name] && fw.Advice.Evidence != "" {
			how = append(how, fw.Advice.Evidence)
		}
	}
	if len(how) == 0 {
		return frameworks.EvidenceAdvice()
	}
	return "turn on the compile logging of the stack (" + strings.Join(how, "; ") + ") and run again"
}

// UsedFrameworks are the stacks whose evidence is in the ledger.
func UsedFrameworks(rep *ledger.Report) map[string]bool {
	used := map[string]bool{}
	for _, m := range rep.Modules {
		for _, u := range m.Units {
			if fw := frameworks.ForProducer(u.Producer); fw != nil {
				used[fw.Name] = true
			}
		}
	}
	return used
}

// EndedBeforeCompiling says a run's command failed or was stopped before anything compiled: no
// compile request, no line recomp could not read. Its end is then the answer, not the logging
// recomp switched on (a trace that raised leaves a retrace line and nothing else).
func EndedBeforeCompiling(sm ledger.Summary, m *runfolder.Manifest) bool {
	return m != nil && sm.Compilations == 0 && sm.CompileRequests == 0 && sm.UnreadRecords == 0 && (m.ExitCode != 0 || m.Signal != "")
}

// NoEvidenceInRun answers a run whose log holds no compile evidence: recomp switched the
// logging on, so the question is not the settings but what the command did — it failed before
// compiling, or compiled nothing through an XLA stack, or sent the framework's logging
// elsewhere. on says which stacks' logging recomp switched on.
func NoEvidenceInRun(m *runfolder.Manifest) (a Answer, on string) {
	var stacks []string
	for _, s := range m.Settings {
		if s.Framework != "" && !s.Kept && !slices.Contains(stacks, s.Framework) {
			stacks = append(stacks, s.Framework)
		}
	}
	on = "recomp switched on the compile logging of " + cmp.Or(strings.Join(stacks, ", "), "no stack")
	a = Answer{Tone: "warn"}
	switch {
	case m.Signal != "":
		a.Text = fmt.Sprintf("the command was stopped (%s) before anything compiled: run.log holds no compile line", m.Signal)
		a.Action = "run it to the end to see what compiles"
	case m.ExitCode != 0:
		a.Text = fmt.Sprintf("the command failed (exit %d) before anything compiled: run.log holds no compile line", m.ExitCode)
		a.Action = "fix the failure (the end of run.log shows it) and run again"
	default:
		a.Text = "nothing compiled through an XLA stack, or its logging did not reach the command's output: run.log holds no compile line although " + on
		a.Action = frameworks.NoCompileAdvice()
	}
	return a, on
}

// OwnDump says a run read the user's own dump folder (their XLA_FLAGS' dump flag) in place of
// dump/; "" when it did not.
func OwnDump(m *runfolder.Manifest) string {
	if m.DumpDir == "" {
		return ""
	}
	return "dump: your own folder " + m.DumpDir + " (your " + frameworks.Dump().Variable + "' " + frameworks.Dump().To + "), read in place of dump/; recomp removed nothing from it"
}
