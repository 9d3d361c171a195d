package ledger

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/recomp/recomp/frameworks"
	"github.com/recomp/recomp/frameworks/cause"
	"github.com/recomp/recomp/frameworks/framework"
	"github.com/recomp/recomp/internal/textutil"

	"github.com/recomp/recomp/logscan"
)

// Severity says how much a finding matters.
type Severity string

// Severities.
const (
	SeverityError   Severity = "error"
	SeverityWarning Severity = "warning"
	SeverityInfo    Severity = "info"
)

// FindingKind names what a finding is about; the names are part of the JSON contract.
type FindingKind string

// Finding kinds.
const (
	FindingRecompiledNewHash   FindingKind = "recompiled_new_hash"
	FindingRecompiledSameHash  FindingKind = "recompiled_same_hash"
	FindingRecompiled          FindingKind = "recompiled"
	FindingFrequentRetracing   FindingKind = "frequent_retracing"
	FindingCompiledAfterWarmup FindingKind = "compiled_after_warmup"
	FindingExecutableSwitching FindingKind = "executable_switching"
	FindingCompileUnfinished   FindingKind = "compile_unfinished"
	FindingMarkerNotFound      FindingKind = "marker_not_found"
	FindingNoEvidence          FindingKind = "no_compile_evidence"
	FindingUnreadRecords       FindingKind = "unread_compile_records"
	FindingEagerPrograms       FindingKind = "eager_compilations"
	FindingFrameworkWarning    FindingKind = "framework_warning"
	FindingHostRead            FindingKind = "host_read"
	FindingCacheUnusable       FindingKind = "persistent_cache_unusable"
	// FindingCompileCache: what a stack's own compile cache did in the run (Inductor's FX-graph
	// and AOTAutograd caches: served, missed and written, bypassed), the reason it compiled.
	FindingCompileCache    FindingKind = "compile_cache"
	FindingMetricsDisagree FindingKind = "metrics_disagree"
	// FindingMetricsCompilations: a metrics report counts compilations the log does not show one
	// by one; FindingMetricsRecompiled: its count grew after warm-up.
	FindingMetricsCompilations FindingKind = "metrics_compilations"
	FindingMetricsRecompiled   FindingKind = "metrics_recompiled"
	FindingFamiliesNotListed   FindingKind = "families_not_listed"
	// FindingLoggingOff is a stack whose log holds no record of its compilations, judged on
	// the probe's records of them instead (Report.Silenced).
	FindingLoggingOff FindingKind = "compile_logging_off"
	// FindingEvidenceLeftOut: a cap on what recomp holds left evidence unread (Report.LeftOut).
	FindingEvidenceLeftOut FindingKind = "evidence_left_out"
)

// Finding is something the ledger thinks a user should look at.
type Finding struct {
	Severity Severity
	Kind     FindingKind
	Module   string
	File     string
	Line     int
	Message  string
	Advice   string
}

// findings names what a user should look at in a merged report.
func findings(opt Options, r *Report) []Finding {
	var fs []Finding
	if f, ok := unreadFinding(r); ok {
		fs = append(fs, f)
	} else if r.Summary.Events == 0 {
		fs = append(fs, Finding{Severity: SeverityWarning, Kind: FindingNoEvidence,
			Message: "the logs hold no compile, cache or executable-load line: nothing can be said about compilation",
			Advice:  frameworks.EvidenceAdvice()})
	}
	for _, msg := range r.LeftOut {
		fs = append(fs, leftOutFinding(msg))
	}
	for _, file := range r.MarkerMissing {
		fs = append(fs, Finding{Severity: SeverityWarning, Kind: FindingMarkerNotFound, File: file,
			Message: "the warm-up marker matched no line: nothing in this input counts as after warm-up",
			Advice:  "check the pattern against the log (e.g. a line printed at the start of the second epoch)"})
	}
	for _, m := range r.Modules {
		if m.Recompiled {
			fs = append(fs, recompiledFinding(m, r.Processes, r.logs > 0 && r.logs < r.Processes))
		}
	}
	if sm := r.Summary; sm.FamiliesNotListed > 0 {
		f := Finding{Severity: SeverityWarning, Kind: FindingFamiliesNotListed,
			Message: fmt.Sprintf("%d module families beyond the first %d of a process are counted, not listed: %d compile request(s), %d compilation(s), %d of them recompilations, are in the totals and the gate",
				sm.FamiliesNotListed, MaxFamilies, sm.RequestsNotListed, sm.CompilationsNotListed, sm.RecompilationsNotListed),
			Advice: "scan fewer logs at once, or the part of the log you care about, to see those families one by one"}
		if sm.RecompilationsNotListed > 0 {
			f.Severity = SeverityError
		}
		fs = append(fs, f)
	}
	if f, ok := eagerFinding(r.Modules); ok {
		fs = append(fs, f)
	}
	fs = append(fs, retraceFindings(r.retraces)...)
	if n := r.Summary.RetracesNotListed; n > 0 {
		fs = append(fs, Finding{Severity: SeverityWarning, Kind: FindingFrequentRetracing,
			Message: fmt.Sprintf("%d warning(s) about functions beyond the first %d warned about are counted, not listed", n, maxRetraceNotes),
			Advice:  "a function made anew at each call (its compiled wrapper created inside a loop) is traced anew each time: make it once, outside the loop"})
	}
	fs = append(fs, hostReadFindings(r.HostReads)...)
	if (opt.Warmup > 0 || opt.AfterMarker) && r.Summary.AfterWarmup > 0 && len(r.Late) > 0 {
		first := r.Late[0]
		fs = append(fs, Finding{Severity: SeverityError, Kind: FindingCompiledAfterWarmup, Module: first.Family, File: first.File, Line: first.Line,
			Message: fmt.Sprintf("%d compilation(s) after warm-up, the first at %s:%d", r.Summary.AfterWarmup, first.File, first.Line),
			Advice:  "keep shapes, dtypes and Python constants fixed between steps (pad or drop partial batches, pass scalars as tensors)"})
	}
	if r.Summary.LoadsAfterWarmup >= 2 && len(r.LateLoads) > 0 {
		first := r.LateLoads[0]
		fs = append(fs, Finding{Severity: SeverityWarning, Kind: FindingExecutableSwitching, File: first.File, Line: first.Line,
			Message: fmt.Sprintf("%d executable loads after warm-up (%s): executables are being switched on the device",
				r.Summary.LoadsAfterWarmup, FormatDuration(r.Summary.LateLoadTime)),
			Advice: frameworks.SwitchingAdvice()})
	}
	fs = append(fs, metricFindings(r)...)
	fs = append(fs, r.notes...)
	for _, m := range r.Modules {
		for _, u := range m.Units {
			if !u.Compiled || u.Finished {
				continue
			}
			var first logscan.Signal
			if len(u.signals) > 0 {
				first = u.signals[0]
			}
			if msg, advice, ok := frameworks.Unfinished(u.Producer, first); ok {
				fs = append(fs, Finding{Severity: SeverityWarning, Kind: FindingCompileUnfinished, Module: u.Family, File: u.File, Line: u.Line,
					Message: msg, Advice: advice})
			}
		}
	}
	return fs
}

// recompiledFinding says that m compiled again; with several processes, in how many of them
// (of the inputs, or, when one log held several, of the processes: "run.log [process 2]").
func recompiledFinding(m *Module, processes int, withinInputs bool) Finding {
	at := m.FirstRecompile
	if at == nil {
		at = m.first
	}
	said := ""
	if len(m.Reasons) > 0 {
		said = "; " + Said(string(at.Producer), m.Reasons[len(m.Reasons)-1], StaticSeen(m.Compiled()))
	}
	if sig, ok := sameArguments(m); ok {
		said += fmt.Sprintf("; every compilation had the same argument shapes and types %s, so what changed is a static argument, a closed-over Python value, a jit option or the function object",
			textutil.Shorten(frameworks.ShowSignature(at.Producer, sig), 120))
	}
	where := ""
	if processes > 1 {
		unit := "inputs"
		if withinInputs {
			unit = "processes"
		}
		where = fmt.Sprintf(" (in %d of %d %s)", m.RecompiledIn, processes, unit)
	}
	f := Finding{Severity: SeverityError, Module: m.Family, File: at.File, Line: at.Line}
	switch {
	case at.Retraced:
		f.Kind = FindingRecompiled
		f.Message = fmt.Sprintf("%s: a new XLA auto-clustering cluster was compiled after the graph's clusters had already run: the function was traced again and its clusters formed anew%s%s",
			m.Family, where, said)
		if fw := frameworks.ForProducer(at.Producer); fw != nil {
			f.Advice = fw.Advice.Group
		}
	case m.HashCount > 1:
		f.Kind = FindingRecompiledNewHash
		f.Message = fmt.Sprintf("%s was compiled %d times%s with %s different graph hashes (%s): the graph changed%s%s",
			m.Family, m.Compilations, programs(m), textutil.Count(m.HashCount, len(m.Hashes), "more than %d"), joinLimited(m.Hashes, 4), where, said)
		f.Advice = "dump the HLO (" + frameworks.DumpAdvice() + ") and run `recomp explain DIR` or `recomp diff` on two dumps to see which shape, dtype or constant changed"
	case m.SameHashAgain:
		f.Kind = FindingRecompiledSameHash
		f.Message = fmt.Sprintf("%s was compiled %d times%s with the same graph hash %s: an executable cache was not used%s%s",
			m.Family, m.Compilations, programs(m), m.Hashes[0], where, said)
		f.Advice = "enable or fix the executable cache (" + frameworks.CacheAdvice() + "), and check that flags and device are the same between the compilations"
	default:
		f.Kind = FindingRecompiled
		f.Message = fmt.Sprintf("%s was compiled %d times%s%s%s", m.Family, m.Compilations, programs(m), where, said)
		f.Advice = hashAdvice(at.Producer, said != "")
	}
	return f
}

// programs says when a family's compilations belong to several programs (Keras's train and
// test step, two functions of one name) and so not all of them are recompilations.
func programs(m *Module) string {
	if len(m.Names) < 2 || m.Recompilations >= m.Compilations-1 {
		return ""
	}
	return fmt.Sprintf(" by %d programs (%s), %d of them recompilations", len(m.Names), joinLimited(m.Names, 3), m.Recompilations)
}

// sameArguments says whether every compilation of the family logged one and the same argument
// signature (JAX's global shapes and types), and which.
func sameArguments(m *Module) (string, bool) {
	if len(m.Signatures) != 1 || m.Compilations < 2 {
		return "", false
	}
	if m.first != nil && m.first.Program != familyOf(m.first.Module) {
		return "", false // the signature names the program (Keras's num_inputs): the same for all by construction
	}
	n := 0
	for _, u := range m.Units {
		if u.Compiled {
			if u.Signature != m.Signatures[0] {
				return "", false
			}
			n++
		}
	}
	return m.Signatures[0], n == m.Compilations
}

// eagerFinding says, once, that eager one-op programs compiled under shared names are not
// recompilations.
func eagerFinding(mods []*Module) (Finding, bool) {
	var names []string
	n := 0
	var t time.Duration
	for _, m := range mods {
		if m.Eager && m.Compilations > 1 {
			names = append(names, m.Family)
			n += m.Compilations
			t += m.CompileTime
		}
	}
	if len(names) == 0 {
		return Finding{}, false
	}
	return Finding{Severity: SeverityInfo, Kind: FindingEagerPrograms, Module: names[0],
		Message: fmt.Sprintf("%d compilations (%s) of eager one-op programs that share a name but differ in their arguments (%s): not recompilations",
			n, FormatDuration(t), joinLimited(names, 4)),
		Advice: "these come from array operations run outside jit (initialisation, data preparation); if they cost too much, move that work into a jitted function"}, true
}

// hashAdvice says how to find out what told two compilations apart; explained says the
// framework already named it in the log.
func hashAdvice(producer logscan.Producer, explained bool) string {
	if explained {
		return "dump the HLO (" + frameworks.DumpAdvice() + ") and run `recomp explain DIR` to see the graph-level change (shape, dtype, constant) and its advice"
	}
	return frameworks.RecompiledAdvice(producer)
}

// leftOutFinding says what evidence a cap left unread.
func leftOutFinding(msg string) Finding {
	return Finding{Severity: SeverityWarning, Kind: FindingEvidenceLeftOut, Message: msg + ": what they say is not counted",
		Advice: "read the inputs in parts (one log per rank, or fewer at once), each part within the cap"}
}

// AddLeftOut adds to a merged report what evidence beside its logs a cap left unread (a run
// folder's probe records), with its finding: a gate on the report is then inconclusive.
func (r *Report) AddLeftOut(msg string) {
	if len(r.LeftOut) < MaxListed {
		r.LeftOut = append(r.LeftOut, msg)
		r.Findings = append(r.Findings, leftOutFinding(msg))
	}
}

// retraceNote is the frameworks' retracing warnings (and other warnings about how the program
// uses them) about one function.
type retraceNote struct {
	key      string
	kind     logscan.Kind
	producer logscan.Producer
	module   string
	file     string
	line     int
	detail   string
	count    int
	// fact is the warning as its unit reads it (frameworks.Facts of its words): the function
	// that retraced and how often, when the unit reads one (cause.Fact.Traced > 0).
	fact cause.Fact
}

//lint:ignore U1000 called through mergeInto's type constraint (staticcheck misses the use)
func (n *retraceNote) merge(o *retraceNote) {
	n.count += o.count
	n.file, n.line, n.detail, n.fact = o.file, o.line, o.detail, o.fact
}

// maxRetraceNotes bounds the functions whose retracing warnings a Ledger (and a merged Report)
// keeps one by one: the warnings about further functions are counted
// (Summary.RetracesNotListed), so that memory does not grow with the names a log holds.
const maxRetraceNotes = 1000

// noteRetrace keeps the last warning about each function: its numbers are the run's.
func (l *Ledger) noteRetrace(ev logscan.Event) {
	key := string(ev.Producer) + "\x00" + string(ev.Signal) + "\x00" + ev.Module
	n := l.retraces[key]
	if n == nil {
		if len(l.rorder) >= maxRetraceNotes {
			l.sum.RetracesNotListed++
			return
		}
		n = &retraceNote{key: key, kind: ev.Kind, producer: ev.Producer, module: ev.Module}
		l.retraces[key] = n
		l.rorder = append(l.rorder, n)
	}
	n.count++
	n.file, n.line, n.detail = ev.File, ev.Line, ev.Detail
	if ev.Kind == logscan.Retrace {
		for _, f := range frameworks.Facts(ev.Detail) {
			if f.Traced > 0 {
				n.fact = f
			}
		}
	}
}

// Retracing is a stack's warning that a function traced again on many of its recent calls, as
// its unit reads it (cause.Fact with Traced and Calls, Arg the function), and whose it is.
type Retracing struct {
	Producer logscan.Producer
	cause.Fact
}

// Retracing are the stacks' retracing warnings that their units read: the last of each
// function's, in the order the functions were first warned about.
func (r *Report) Retracing() []Retracing {
	var out []Retracing
	for _, n := range r.retraces {
		if n.fact.Traced > 0 {
			out = append(out, Retracing{Producer: n.producer, Fact: n.fact})
		}
	}
	return out
}

// retraceFindings reports the frameworks' own retracing warnings: one finding per function,
// at its last warning.
func retraceFindings(notes []*retraceNote) []Finding {
	var fs []Finding
	for _, n := range notes {
		msg := n.detail
		if n.count > 1 {
			msg += fmt.Sprintf(" (the last of %d warnings)", n.count)
		}
		f := Finding{Severity: SeverityWarning, Kind: FindingFrequentRetracing, Module: n.module, File: n.file, Line: n.line, Message: msg}
		fw := frameworks.ForProducer(n.producer)
		switch {
		case n.kind == logscan.FrameworkWarning:
			f.Kind = FindingFrameworkWarning
			if fw != nil {
				f.Advice = fw.Advice.Warning
			}
		case fw != nil && fw.Advice.Retrace != "":
			f.Advice = fw.Advice.Retrace
		default:
			f.Advice = "keep input shapes static (pad or bucket them) and avoid reading tensor values between steps; dump the graphs (" + frameworks.DumpAdvice() + ") and run `recomp explain DIR`"
		}
		fs = append(fs, f)
	}
	return fs
}

// Said is a framework's explanation of a compilation as recomp quotes it: "jax said: …", its
// explanation on one line (SummarizeWhy). Where JAX explained a trace by its closest earlier
// cache key (none was equal), the words are that key's difference, and JAX leaves static
// argument values out of the comparison: the quote says so, and where the probe saw static
// arguments (static: their names and the values they took, as "`dropout` 0.1 → 0.075"), it
// names them, so that a static argument's new value is not read as the types JAX chose to show.
func Said(producer, why string, static []string) string {
	s := SummarizeWhy(why)
	if fw := frameworks.ForProducer(logscan.Producer(producer)); fw == nil || fw.ClosestKey == nil || !fw.ClosestKey(why) {
		return producer + " said: " + s
	}
	q := producer + " said, of its closest earlier cache key"
	if len(static) > 0 {
		return q + " (it compares no static argument values; the probe saw static " + strings.Join(static, ", ") + "): " + s
	}
	return q + ": " + s
}

// StaticSeen is what the probe saw of the static arguments of units, for Said: each argument
// with the values it took in order, repeats left out ("`dropout` 0.1 → 0.075"); nil when it
// took one value only (or the probe saw none).
func StaticSeen(units []*Unit) []string {
	var out []string
	for _, h := range StaticHistory(units) {
		if vs := h.Values; len(vs) > 1 {
			if len(vs) > 6 {
				vs = append(vs[:3:3], "…", vs[len(vs)-1])
			}
			out = append(out, "`"+h.Name+"` "+strings.Join(vs, " → "))
		}
	}
	return out
}

// StaticValues is a static argument and the values it took, in order, each once.
type StaticValues struct {
	Name   string
	Values []string
}

// StaticHistory is each static argument of the units (in the order first seen) with the values
// it took in order, repeats left out, each as ShortValue writes it.
func StaticHistory(units []*Unit) []StaticValues {
	var out []StaticValues
	at := map[string]int{}
	for _, u := range units {
		for _, a := range u.Static {
			i, ok := at[a.Name]
			if !ok {
				i = len(out)
				at[a.Name] = i
				out = append(out, StaticValues{Name: a.Name})
			}
			if v := ShortValue(a.Value); !slices.Contains(out[i].Values, v) {
				out[i].Values = append(out[i].Values, v)
			}
		}
	}
	return out
}

// ShortValue is a value's repr with a float's rounding noise left out (0.07500000000000001:
// 0.075), to 4 significant digits.
func ShortValue(repr string) string {
	if f, err := strconv.ParseFloat(repr, 64); err == nil && strings.ContainsAny(repr, ".eE") {
		return strconv.FormatFloat(f, 'g', 4, 64)
	}
	return repr
}

// SummarizeWhy shortens a framework's multi-line explanation to one line: the lines that
// name what changed, without JAX's framing lines, joined with "; " (" " after a line that ends
// with a colon).
func SummarizeWhy(why string) string {
	var b strings.Builder
	for _, line := range strings.Split(why, "\n") {
		line = strings.TrimSpace(line)
		switch {
		case line == "", frameworks.Framing(line):
			continue
		}
		if b.Len() > 0 {
			if strings.HasSuffix(b.String(), ":") {
				b.WriteString(" ")
			} else {
				b.WriteString("; ")
			}
		}
		b.WriteString(line)
	}
	return b.String()
}

// FormatDuration prints a duration the same way everywhere: milliseconds under a second,
// seconds with one decimal above.
func FormatDuration(d time.Duration) string {
	if d < time.Second {
		return fmt.Sprintf("%dms", d.Milliseconds())
	}
	return fmt.Sprintf("%.1fs", d.Seconds())
}

func joinLimited(xs []string, n int) string {
	var b strings.Builder
	for i, x := range xs {
		if i == n {
			fmt.Fprintf(&b, ", … %d more", len(xs)-n)
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(x)
	}
	return b.String()
}

// UnreadLines says how many lines look like compile records recomp could not read, and the
// first of them (file:line, whose vocabulary, the text): "" when there are none.
func UnreadLines(r *Report) string {
	n := r.Summary.UnreadRecords
	if n == 0 {
		return ""
	}
	var b strings.Builder
	if n == 1 {
		b.WriteString("1 line looks like a compile record recomp could not read")
	} else {
		fmt.Fprintf(&b, "%d lines look like compile records recomp could not read", n)
	}
	for i, u := range r.Unread {
		if i == 0 {
			b.WriteString(": ")
		} else {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "%s:%d (%s) %q", u.File, u.Line, u.Framework, u.Text)
	}
	if more := n - len(r.Unread); more > 0 && len(r.Unread) > 0 {
		fmt.Fprintf(&b, "; %d more", more)
	}
	return b.String()
}

// unreadFinding is the finding of lines that look like compile records but that no rule read
// (a wording of a release recomp does not know): what the report counts may be short of what
// the logs say, and a log with nothing else is not a log without compilations.
func unreadFinding(r *Report) (Finding, bool) {
	if r.Summary.UnreadRecords == 0 {
		return Finding{}, false
	}
	f := Finding{Severity: SeverityWarning, Kind: FindingUnreadRecords, Message: UnreadLines(r),
		Advice: "the counts here may be short of what the logs say: check those lines by hand, and report their wording (with the " +
			"framework's version) so that recomp learns to read it"}
	if len(r.Unread) > 0 {
		f.File, f.Line = r.Unread[0].File, r.Unread[0].Line
	}
	return f, true
}

// metricFindings compares what the stacks' metrics reports say with what the log shows.
func metricFindings(r *Report) []Finding {
	if len(r.Summary.Metrics) == 0 {
		return nil
	}
	ms := map[string]framework.Metric{}
	for k, m := range r.Summary.Metrics {
		ms[k] = framework.Metric{Count: m.Count, Total: m.Total, File: m.File, Line: m.Line}
	}
	var fs []Finding
	for _, fw := range frameworks.All() {
		if fw.Metrics == nil {
			continue
		}
		compiled := 0
		for _, m := range r.Modules {
			for _, u := range m.Units {
				if u.Compiled && slices.Contains(fw.Producers, u.Producer) {
					compiled++
				}
			}
		}
		for _, n := range fw.Metrics(ms, compiled) {
			fs = append(fs, Finding{Severity: Severity(n.Severity), Kind: FindingKind(n.Kind), File: n.File, Line: n.Line,
				Message: n.Message, Advice: n.Advice})
		}
	}
	return fs
}
