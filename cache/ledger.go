// Package cache keeps the books on compilation: a Ledger folds the events of logscan into
// compile requests, real compilations, executable-cache hits, misses and writes, and
// executable loads, per module family, decides which of them came after warm-up, and names
// what looks wrong. The package also takes the inventory of executable-cache directories
// (see Inventory).
package cache

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/recomp/recomp/hlo"
	"github.com/recomp/recomp/logscan"
)

// Options choose the warm-up boundary. With neither set, the first compilation of each module
// family is warm-up and any later compilation of the family is a recompilation after warm-up.
type Options struct {
	// Warmup, when > 0, makes the first Warmup compilations (in input order) warm-up.
	Warmup int
	// AfterMarker means the inputs were scanned with a marker regexp: what comes after the
	// marker line of an input is after warm-up, what comes before is warm-up.
	AfterMarker bool
}

// Unit is one compile request or compilation: the events that belong to it are joined.
type Unit struct {
	Module      string
	Family      string
	Hash        string
	Producer    string
	Input       int
	File        string
	Line        int
	LastLine    int  // the last line that belongs to this unit
	Requested   bool // a compile request was logged
	Compiled    bool // not served from a cache
	Hit         bool
	Miss        bool
	Written     bool
	Finished    bool
	Duration    time.Duration
	AfterWarmup bool
	// Signature is what the framework logged about the arguments (JAX's global shapes and
	// types); Why is the framework's own explanation of the compile (JAX's tracing-cache-miss
	// text, PyTorch/XLA's compilation cause).
	Signature string
	Why       string

	begin, end time.Time
	signals    []string
}

func (u *Unit) seen(sig string) bool {
	for _, s := range u.signals {
		if s == sig {
			return true
		}
	}
	return false
}

// Load is one executable loaded onto the device.
type Load struct {
	Input       int
	File        string
	Line        int
	Duration    time.Duration
	AfterWarmup bool
	// Owned is the first load after a compilation or cache hit: the load of that executable,
	// which happens whatever the warm-up.
	Owned bool
}

// Ledger accumulates events. Add events of one input in order, call EndInput after each input,
// then Report.
type Ledger struct {
	opt        Options
	units      []*Unit
	loads      []Load
	open       *Unit
	last       *Unit
	markers    map[int]int // input -> marker line
	noMarker   []string
	input      int
	inputUnits int
	why        string // a JAX tracing-cache-miss explanation waiting for its compile
	retraces   []logscan.Event
}

// NewLedger returns an empty Ledger.
func NewLedger(opt Options) *Ledger {
	return &Ledger{opt: opt, markers: map[int]int{}}
}

// Add folds one event of input number input into the ledger.
func (l *Ledger) Add(input int, ev logscan.Event) {
	if input != l.input {
		l.closeOpen()
		l.input, l.inputUnits, l.last, l.why = input, 0, nil, ""
	}
	o := l.open
	compatible := func(u *Unit) bool {
		return u != nil && (ev.Module == "" || u.Module == "" || u.Module == ev.Module)
	}
	switch ev.Kind {
	case logscan.CompileRequest:
		if compatible(o) && !o.Requested && !o.Compiled && !o.Hit {
			l.join(o, ev)
			o.Requested = true
			return
		}
		l.closeOpen()
		u := l.start(ev)
		u.Requested = true
	case logscan.CompileEnd:
		if compatible(o) && !o.Hit {
			l.join(o, ev)
			o.Compiled = true
			return
		}
		l.closeOpen()
		l.start(ev).Compiled = true
	case logscan.CacheMiss:
		inProcess := ev.Signal == "tf:in_process_miss"
		if compatible(o) && !o.Hit && !o.Miss && !o.Compiled {
			l.join(o, ev)
			o.Miss = o.Miss || !inProcess
			return
		}
		l.closeOpen()
		u := l.start(ev)
		u.Miss = !inProcess
	case logscan.CacheHit:
		if compatible(o) && !o.Compiled && !o.seen(ev.Signal) {
			l.join(o, ev)
			o.Hit = true
			return
		}
		l.closeOpen()
		l.start(ev).Hit = true
	case logscan.CompileBegin:
		if compatible(o) && !o.Hit && !o.seen(ev.Signal) {
			l.join(o, ev)
			o.Compiled = true
			return
		}
		l.closeOpen()
		l.start(ev).Compiled = true
	case logscan.CompileFinished:
		u := o
		if u == nil || u.Hit {
			l.closeOpen()
			u = l.start(ev)
		} else {
			l.join(u, ev)
		}
		u.Compiled, u.Finished = true, true
		if ev.Duration > 0 {
			u.Duration = ev.Duration
		}
		u.end = ev.Time
		l.closeOpen()
	case logscan.ClusterCompiled:
		if l.inputUnits == 0 && o == nil {
			u := l.start(ev)
			u.Compiled, u.Finished = true, true
			u.end = ev.Time
			l.closeOpen()
		}
	case logscan.CacheWrite:
		u := o
		if u == nil {
			u = l.last
		}
		if u == nil {
			u = l.start(ev)
			l.closeOpen()
		}
		u.Written = true
	case logscan.RequestDone:
		u := o
		if !compatible(u) {
			l.closeOpen()
			u = l.start(ev)
			u.Compiled = true
		} else {
			l.join(u, ev)
		}
		u.Finished = true
		if ev.Duration > 0 {
			u.Duration = ev.Duration
		}
		l.closeOpen()
	case logscan.Retrace:
		l.retraces = append(l.retraces, ev)
		if ev.Reason != "" {
			l.why = ev.Reason // it explains the compilation that follows
		}
	case logscan.ExecutableLoad:
		l.loads = append(l.loads, Load{Input: input, File: ev.File, Line: ev.Line, Duration: ev.Duration})
	case logscan.Marker:
		if _, ok := l.markers[input]; !ok {
			l.markers[input] = ev.Line
		}
	}
}

func (l *Ledger) start(ev logscan.Event) *Unit {
	u := &Unit{Module: ev.Module, Hash: ev.Hash, Producer: ev.Producer, Input: l.input,
		File: ev.File, Line: ev.Line, LastLine: ev.Line, begin: ev.Time}
	u.signals = append(u.signals, ev.Signal)
	u.Why, l.why = l.why, ""
	l.note(u, ev)
	l.units = append(l.units, u)
	l.inputUnits++
	l.open = u
	return u
}

func (l *Ledger) join(u *Unit, ev logscan.Event) {
	u.signals = append(u.signals, ev.Signal)
	u.LastLine = ev.Line
	if u.Module == "" {
		u.Module = ev.Module
	}
	if u.Hash == "" {
		u.Hash = ev.Hash
	}
	if u.begin.IsZero() {
		u.begin = ev.Time
	}
	l.note(u, ev)
}

// note keeps what a framework's event says about the arguments or the cause.
func (l *Ledger) note(u *Unit, ev logscan.Event) {
	if ev.Signature != "" {
		u.Signature = ev.Signature
	}
	if ev.Reason != "" && u.Why == "" {
		u.Why = ev.Reason
	}
}

func (l *Ledger) closeOpen() {
	if u := l.open; u != nil {
		if (u.Requested || u.Miss) && !u.Hit {
			u.Compiled = true
		}
		if u.Duration == 0 && !u.begin.IsZero() && !u.end.IsZero() {
			d := u.end.Sub(u.begin)
			if d < 0 { // a time of day that wrapped past midnight
				d += 24 * time.Hour
			}
			u.Duration = d
		}
		l.last = u
	}
	l.open = nil
}

// EndInput closes what is still open at the end of an input. markerWanted says the input was
// scanned with a marker; an input whose marker never matched is reported.
func (l *Ledger) EndInput(input int, file string, markerWanted bool) {
	if input == l.input {
		l.closeOpen()
	}
	if markerWanted {
		if _, ok := l.markers[input]; !ok {
			l.noMarker = append(l.noMarker, file)
		}
	}
}

// Summary counts what the ledger saw.
type Summary struct {
	CompileRequests  int
	Compilations     int
	CacheHits        int
	CacheMisses      int
	CacheWrites      int
	ExecutableLoads  int
	CompileTime      time.Duration
	LoadTime         time.Duration
	Recompilations   int
	AfterWarmup      int // compilations after warm-up
	LoadsAfterWarmup int
	Retraces         int // retrace events: JAX tracing-cache misses, TF retracing warnings
}

// Module is the account of one module family.
type Module struct {
	Name            string // the first exact name seen
	Names           []string
	Family          string
	CompileRequests int
	Compilations    int
	CacheHits       int
	CacheMisses     int
	CompileTime     time.Duration
	Hashes          []string
	Recompiled      bool
	SameHashAgain   bool // compiled again with a hash it had already been compiled with
	Units           []*Unit
	// Reasons are the frameworks' explanations (Unit.Why) of this family's compilations,
	// distinct, in order; Signatures the argument signatures they logged (Unit.Signature).
	Reasons    []string
	Signatures []string
}

// Finding is something the ledger thinks a user should look at.
type Finding struct {
	Severity string // error, warning, info
	Kind     string
	Module   string
	File     string
	Line     int
	Message  string
	Advice   string
}

// Report is the result of a Ledger.
type Report struct {
	Summary  Summary
	Modules  []*Module
	Units    []*Unit
	Loads    []Load
	Findings []Finding
}

// Unnamed is the family of compilations whose log lines name no module.
const Unnamed = "(unnamed)"

// Report closes the books.
func (l *Ledger) Report() *Report {
	l.closeOpen()
	r := &Report{Units: l.units, Loads: l.loads}
	byFamily := map[string]*Module{}
	var order []string
	nCompiled := 0
	for _, u := range l.units {
		u.Family = Unnamed
		if u.Module != "" {
			u.Family = hlo.Family(u.Module)
		}
		m := byFamily[u.Family]
		if m == nil {
			m = &Module{Name: u.Module, Family: u.Family}
			byFamily[u.Family] = m
			order = append(order, u.Family)
		}
		if u.Module != "" && !slices.Contains(m.Names, u.Module) {
			m.Names = append(m.Names, u.Module)
		}
		m.Units = append(m.Units, u)
		if u.Why != "" && !slices.Contains(m.Reasons, u.Why) {
			m.Reasons = append(m.Reasons, u.Why)
		}
		if u.Signature != "" && !slices.Contains(m.Signatures, u.Signature) {
			m.Signatures = append(m.Signatures, u.Signature)
		}
		s := &r.Summary
		if u.Requested {
			s.CompileRequests++
			m.CompileRequests++
		}
		if u.Hit {
			s.CacheHits++
			m.CacheHits++
		}
		if u.Miss {
			s.CacheMisses++
			m.CacheMisses++
		}
		if u.Written {
			s.CacheWrites++
		}
		if !u.Compiled {
			continue
		}
		nCompiled++
		s.Compilations++
		s.CompileTime += u.Duration
		m.Compilations++
		m.CompileTime += u.Duration
		if u.Hash != "" {
			if slices.Contains(m.Hashes, u.Hash) {
				m.SameHashAgain = true
			} else {
				m.Hashes = append(m.Hashes, u.Hash)
			}
		}
		switch {
		case l.opt.Warmup > 0:
			u.AfterWarmup = nCompiled > l.opt.Warmup
		case l.opt.AfterMarker:
			ml, ok := l.markers[u.Input]
			u.AfterWarmup = ok && u.Line > ml
		default:
			u.AfterWarmup = u.Family != Unnamed && m.Compilations > 1
		}
		if u.AfterWarmup {
			s.AfterWarmup++
		}
	}
	for _, f := range order {
		m := byFamily[f]
		if f != Unnamed && m.Compilations > 1 {
			m.Recompiled = true
			r.Summary.Recompilations += m.Compilations - 1
		}
		r.Modules = append(r.Modules, m)
	}
	r.Summary.Retraces = len(l.retraces)
	l.markLoads(r)
	r.Findings = l.findings(r)
	return r
}

// markLoads decides which executable loads came after warm-up: after the marker, after the
// Warmup-th compilation, or (by default) after the last first-compilation of a family.
func (l *Ledger) markLoads(r *Report) {
	type pos struct{ input, line int }
	before := func(a, b pos) bool { return a.input < b.input || (a.input == b.input && a.line < b.line) }
	var boundary *pos
	switch {
	case l.opt.AfterMarker:
	case l.opt.Warmup > 0:
		n := 0
		for _, u := range l.units {
			if u.Compiled {
				if n++; n == l.opt.Warmup {
					boundary = &pos{u.Input, u.Line}
				}
			}
		}
	default:
		for _, u := range l.units {
			if u.Compiled && !u.AfterWarmup {
				boundary = &pos{u.Input, u.Line}
			}
		}
	}
	// Each compilation or cache hit owns the first load after it, if that load comes before the
	// next unit begins. Units and loads are both in input order: one merge pass.
	j := 0
	for k, u := range l.units {
		for j < len(l.loads) && !before(pos{u.Input, u.LastLine}, pos{l.loads[j].Input, l.loads[j].Line}) {
			j++
		}
		if j == len(l.loads) {
			break
		}
		ld := &l.loads[j]
		if k+1 < len(l.units) {
			next := l.units[k+1]
			if !before(pos{ld.Input, ld.Line}, pos{next.Input, next.Line}) {
				continue
			}
		}
		ld.Owned = true
		j++
	}
	for i := range l.loads {
		ld := &l.loads[i]
		r.Summary.ExecutableLoads++
		r.Summary.LoadTime += ld.Duration
		if ld.Owned {
			continue
		}
		if l.opt.AfterMarker {
			ml, ok := l.markers[ld.Input]
			ld.AfterWarmup = ok && ld.Line > ml
		} else if boundary != nil {
			ld.AfterWarmup = before(*boundary, pos{ld.Input, ld.Line})
		}
		if ld.AfterWarmup {
			r.Summary.LoadsAfterWarmup++
		}
	}
	r.Loads = l.loads
}

func (l *Ledger) findings(r *Report) []Finding {
	var fs []Finding
	for _, file := range l.noMarker {
		fs = append(fs, Finding{Severity: "warning", Kind: "marker_not_found", File: file,
			Message: "the --after pattern matched no line: nothing in this input counts as after warm-up",
			Advice:  "check the pattern against the log (e.g. a line printed at the start of the second epoch)"})
	}
	for _, m := range r.Modules {
		if !m.Recompiled {
			continue
		}
		first := m.Units[0]
		said := ""
		if len(m.Reasons) > 0 {
			said = fmt.Sprintf("; %s said: %s", first.Producer, SummarizeWhy(m.Reasons[len(m.Reasons)-1]))
		}
		switch {
		case len(m.Hashes) > 1:
			fs = append(fs, Finding{Severity: "error", Kind: "recompiled_new_hash", Module: m.Family, File: first.File, Line: first.Line,
				Message: fmt.Sprintf("%s was compiled %d times with %d different graph hashes (%s): the graph changed%s",
					m.Family, m.Compilations, len(m.Hashes), joinLimited(m.Hashes, 4), said),
				Advice: "dump the HLO (XLA_FLAGS=--xla_dump_to=DIR) and run `recomp explain DIR` or `recomp diff` on two dumps to see which shape, dtype or constant changed"})
		case m.SameHashAgain:
			fs = append(fs, Finding{Severity: "error", Kind: "recompiled_same_hash", Module: m.Family, File: first.File, Line: first.Line,
				Message: fmt.Sprintf("%s was compiled %d times with the same graph hash %s: an executable cache was not used%s",
					m.Family, m.Compilations, m.Hashes[0], said),
				Advice: "enable or fix the executable cache (TF-IPU: TF_POPLAR_FLAGS=--executable_cache_path=DIR; PopTorch: enableExecutableCaching; JAX: jax_compilation_cache_dir), and check that flags and device are the same between the compilations"})
		default:
			fs = append(fs, Finding{Severity: "error", Kind: "recompiled", Module: m.Family, File: first.File, Line: first.Line,
				Message: fmt.Sprintf("%s was compiled %d times%s", m.Family, m.Compilations, said),
				Advice:  hashAdvice(first.Producer, said != "")})
		}
	}
	fs = append(fs, retraceFindings(l.retraces)...)
	if (l.opt.Warmup > 0 || l.opt.AfterMarker) && r.Summary.AfterWarmup > 0 {
		var first *Unit
		for _, u := range r.Units {
			if u.AfterWarmup {
				first = u
				break
			}
		}
		fs = append(fs, Finding{Severity: "error", Kind: "compiled_after_warmup", Module: first.Family, File: first.File, Line: first.Line,
			Message: fmt.Sprintf("%d compilation(s) after warm-up, the first at %s:%d", r.Summary.AfterWarmup, first.File, first.Line),
			Advice:  "keep shapes, dtypes and Python constants fixed between steps (pad or drop partial batches, pass scalars as tensors)"})
	}
	if r.Summary.LoadsAfterWarmup >= 2 {
		var first Load
		for _, ld := range r.Loads {
			if ld.AfterWarmup {
				first = ld
				break
			}
		}
		fs = append(fs, Finding{Severity: "warning", Kind: "executable_switching", File: first.File, Line: first.Line,
			Message: fmt.Sprintf("%d executable loads after warm-up (%s): executables are being switched on the device",
				r.Summary.LoadsAfterWarmup, FormatDuration(loadTimeAfter(r.Loads))),
			Advice: "Graphcore's recompilation note: merge the graphs that alternate into one (e.g. train and validation in one loop), or place them on separate IPUs so each stays loaded"})
	}
	for _, u := range r.Units {
		if u.Compiled && !u.Finished && u.Producer == "poptorch" {
			fs = append(fs, Finding{Severity: "warning", Kind: "compile_unfinished", Module: u.Family, File: u.File, Line: u.Line,
				Message: "a PopTorch graph compilation had not finished at the end of the log",
				Advice:  "if the compile hangs, run with POPLAR_LOG_LEVEL=INFO to see the phase it is in"})
		}
	}
	return fs
}

// hashAdvice says how to find out what told two compilations apart; explained says the
// framework already named it in the log.
func hashAdvice(producer string, explained bool) string {
	switch {
	case explained:
		return "dump the HLO (XLA_FLAGS=--xla_dump_to=DIR) and run `recomp explain DIR` to see the graph-level change (shape, dtype, constant) and its advice"
	case producer == "jax":
		return "run with jax.config.update('jax_explain_cache_misses', True) to have JAX name the argument that changed, and dump the HLO (XLA_FLAGS=--xla_dump_to=DIR) for `recomp explain DIR`"
	case producer == "tf" || producer == "xla":
		return "dump the HLO (XLA_FLAGS=--xla_dump_to=DIR) and run `recomp explain DIR`; if tf.function retraces, give it an input_signature or reduce_retracing=True"
	}
	return "turn on the compiler's hash logging (TF-IPU: TF_CPP_VMODULE=poplar_compiler=1) to see whether the graph changed, and dump the HLO for `recomp explain`"
}

// retraceFindings reports the frameworks' own retracing warnings: one finding per function.
func retraceFindings(evs []logscan.Event) []Finding {
	var fs []Finding
	index := map[string]int{}
	for _, ev := range evs {
		if ev.Reason != "" {
			continue // an explained retrace is attached to the compilation it caused
		}
		key := ev.Producer + "\x00" + ev.Module
		if i, ok := index[key]; ok {
			fs[i].Message = ev.Detail + " (the last of several warnings)"
			continue
		}
		f := Finding{Severity: "warning", Kind: "frequent_retracing", Module: ev.Module, File: ev.File, Line: ev.Line, Message: ev.Detail}
		switch ev.Producer {
		case "tf":
			f.Advice = "give the tf.function an input_signature (with None for the dimensions that vary) or reduce_retracing=True, and pass Python scalars as tensors; under jit_compile every new signature is a new XLA compilation"
		default:
			f.Advice = "keep input shapes static (pad or bucket them) and avoid reading tensor values between steps; dump the graphs (XLA_FLAGS=--xla_dump_to=DIR) and run `recomp explain DIR`"
		}
		index[key] = len(fs)
		fs = append(fs, f)
	}
	return fs
}

// SummarizeWhy shortens a framework's multi-line explanation to one line: the lines that
// name what changed, without JAX's framing lines, joined with "; " (" " after a line that ends
// with a colon).
func SummarizeWhy(why string) string {
	var b strings.Builder
	for _, line := range strings.Split(why, "\n") {
		line = strings.TrimSpace(line)
		switch {
		case line == "", strings.HasPrefix(line, "for ") && strings.Contains(line, " defined at "),
			strings.HasPrefix(line, "all previously seen cache keys differ"):
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

func loadTimeAfter(loads []Load) time.Duration {
	var d time.Duration
	for _, ld := range loads {
		if ld.AfterWarmup {
			d += ld.Duration
		}
	}
	return d
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
	out := ""
	for i, x := range xs {
		if i == n {
			return out + fmt.Sprintf(", … %d more", len(xs)-n)
		}
		if i > 0 {
			out += ", "
		}
		out += x
	}
	return out
}

// CompileMarker compiles an --after pattern.
func CompileMarker(expr string) (*regexp.Regexp, error) {
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, fmt.Errorf("--after %q: %v", expr, err)
	}
	return re, nil
}
