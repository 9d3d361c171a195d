package explain

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/recomp/recomp/frameworks"
	"github.com/recomp/recomp/frameworks/framework"
	"github.com/recomp/recomp/ledger"
	"github.com/recomp/recomp/runfolder"
)

// attachProbe gives each compilation of a run the line of the program's own code that the probe
// saw, where the log named none or a library's, each unit's records as its probe hook says
// (framework.Probe.Attach): JAX's compilations in order (each backend compile the probe saw is
// one compile request in the log, of the function the probe names), TF's the trace before them,
// and the compilations during a Keras fit, evaluate or predict the line that called it.
func attachProbe(rep *ledger.Report, recs []runfolder.ProbeRecord, opt ledger.Options) {
	var units []*ledger.Unit
	for _, m := range rep.Modules {
		units = append(units, m.Units...)
	}
	ledger.SortUnits(units)
	attach(units, recs, framework.AttachInOrder, framework.AttachLastTrace, framework.AttachCallSpan)
	attachCompiles(units, recs)
	for _, p := range frameworks.Probes() {
		if p.Attach == framework.AttachSteps {
			attachSteps(rep, units, recs, p)
		}
	}
	if !oneStep(rep, opt) && slices.ContainsFunc(units, func(u *ledger.Unit) bool { return len(u.Static) > 0 }) {
		rep.Refind(opt) // the findings quote JAX's words with the static arguments it leaves out
	}
}

// attachSteps gives the compilations of the unit's producers the step each happened in, and the
// process its steps and epochs, from the records of a probe that counts steps
// (framework.AttachSteps): the k-th compilation of the log was in the first step whose sync
// record counts k compilations or more, or after the last step. Nothing is given unless the
// records are of one process and count exactly the compilations the log shows.
func attachSteps(rep *ledger.Report, units []*ledger.Unit, recs []runfolder.ProbeRecord, p frameworks.ProbeHook) {
	syncs, loops, end := stepRecords(recs, p)
	if end == nil || end.Step <= 0 {
		return
	}
	var compiled []*ledger.Unit
	for _, u := range units {
		if u.Compiled && ofUnit(u, p) {
			compiled = append(compiled, u)
		}
	}
	if len(compiled) == 0 || len(compiled) != end.Compiles {
		return
	}
	steps := stepsOf(len(compiled), syncs, end.Step)
	if steps == nil {
		return
	}
	epochs := epochsOf(loops, end.Loaders)
	if len(epochs) > 0 && (epochs[0] < 0 || epochs[len(epochs)-1] > end.Step) {
		epochs = nil
	}
	if rep.ProbeSteps(compiled, steps, end.Step, epochs, probeDurations(end.CompileNS, len(compiled))) {
		for k, grad := range gradOf(len(compiled), syncs) {
			compiled[k].NoGrad = grad != nil && !*grad
		}
	}
}

// gradOf is, for each of n compilations, whether autograd was on in the step that compiled it
// (the first sync record counting it, as stepsOf finds the step); nil where no record says.
func gradOf(n int, syncs []runfolder.ProbeRecord) []*bool {
	out := make([]*bool, n)
	j := 0
	for k := range out {
		for j < len(syncs) && syncs[j].Compiles < k+1 {
			j++
		}
		if j < len(syncs) {
			out[k] = syncs[j].Grad
		}
	}
	return out
}

// stepRecords are the records of a probe that counts steps: its sync and epoch records and
// the last record at exit; all nil when they are of several processes.
func stepRecords(recs []runfolder.ProbeRecord, p frameworks.ProbeHook) (syncs, loops []runfolder.ProbeRecord, end *runfolder.ProbeRecord) {
	pid := 0
	for i, r := range recs {
		if r.Framework != p.Name {
			continue
		}
		if pid != 0 && r.PID != pid {
			return nil, nil, nil // several processes: their steps are their own
		}
		pid = r.PID
		switch r.Event {
		case p.Event: // "sync"
			syncs = append(syncs, r)
		case "epoch":
			loops = append(loops, r)
		case "steps":
			end = &recs[i]
		}
	}
	return syncs, loops, end
}

// stepsOf is the step of each of n compilations: the k-th was in the first step whose sync
// record counts k compilations or more, or after the last of the steps steps. Nil when the
// records are out of order or outside the steps.
func stepsOf(n int, syncs []runfolder.ProbeRecord, steps int) []int {
	for i := 1; i < len(syncs); i++ {
		if syncs[i].Step <= syncs[i-1].Step || syncs[i].Compiles < syncs[i-1].Compiles {
			return nil // not one process's count
		}
	}
	out := make([]int, n)
	j := 0
	for k := range out {
		for j < len(syncs) && syncs[j].Compiles < k+1 {
			j++
		}
		out[k] = steps + 1 // compiled after the last step
		if j < len(syncs) {
			out[k] = syncs[j].Step
		}
		if k > 0 && out[k] < out[k-1] || out[k] < 1 || out[k] > steps+1 {
			return nil
		}
	}
	return out
}

// probeDurations are the n compilations' durations the probe recorded in nanoseconds (nil when
// it recorded another number of them, or one is not a duration).
func probeDurations(ns []int64, n int) []time.Duration {
	if len(ns) != n {
		return nil
	}
	out := make([]time.Duration, 0, n)
	for _, d := range ns {
		if d < 0 || d > maxCompileNS {
			return nil
		}
		out = append(out, time.Duration(d))
	}
	return out
}

// maxCompileNS bounds a compilation's duration the probe may give (a day): beyond, the record
// is not a duration.
const maxCompileNS = int64(24 * time.Hour)

// epochsOf are the epochs the records of data loaders iterated show: the starts of the training
// loop's loader, as the steps ended before each; nil when no loader was iterated twice, each
// time after a step more. The training loop's loader is the one whose batches the most steps
// ended with (steps, from the probe at exit), so that an evaluation loader iterated as often or
// more (every half epoch) does not set the epochs; without such counts (an older probe), the
// loader iterated most often. A tie goes to the first loader.
func epochsOf(loops []runfolder.ProbeRecord, steps map[string]int) []int {
	by := map[string][]int{}
	var order []string
	for _, r := range loops {
		if by[r.Loader] == nil {
			order = append(order, r.Loader)
		}
		by[r.Loader] = append(by[r.Loader], r.Step)
	}
	var best []int
	bestSteps := 0
	for _, l := range order {
		s := by[l]
		if len(s) < 2 || !increasing(s) { // an epoch of no step: not the training loop's loader
			continue
		}
		if n := steps[l]; n > bestSteps || n == bestSteps && len(s) > len(best) {
			best, bestSteps = s, n
		}
	}
	if len(steps) > 0 && bestSteps == 0 {
		return nil // no loader that marks epochs gave the steps' batches
	}
	return best
}

// increasing says whether each start is after a step more than the one before.
func increasing(starts []int) bool {
	for i := 1; i < len(starts); i++ {
		if starts[i] <= starts[i-1] {
			return false
		}
	}
	return true
}

// attach joins the probe's records to the compilations for each unit whose hook joins its
// records one of the ways named.
func attach(units []*ledger.Unit, recs []runfolder.ProbeRecord, ways ...framework.Attach) {
	for _, way := range ways { // in the order named: a call span places a compilation by its compile record's time
		for _, p := range frameworks.Probes() {
			if p.Attach != way {
				continue
			}
			switch p.Attach {
			case framework.AttachInOrder:
				attachInOrder(units, recs, p)
			case framework.AttachLastTrace:
				attachLastTrace(units, recs, p)
			case framework.AttachCallSpan:
				attachCallSpan(units, recs, p)
			}
		}
	}
}

// ofUnit says whether a compilation was logged by a producer of the probe hook's unit.
func ofUnit(u *ledger.Unit, p frameworks.ProbeHook) bool {
	fw := frameworks.ForProducer(u.Producer)
	return fw != nil && fw.Name == p.Name
}

// model names the model of a Keras call with its process ("" when the probe did not record it).
func model(r runfolder.ProbeRecord) string {
	if r.Model == "" {
		return ""
	}
	return fmt.Sprintf("%d/%s", r.PID, r.Model)
}

// stepKey is one Keras step of one model: the evaluate calls of a model (fit's validation among
// them) run its test step, its predict calls its predict step. A call whose model the probe did
// not record is a step of its own.
type stepKey struct {
	model, method string
	call          *ledger.Call
}

func stepOf(c *ledger.Call) stepKey {
	if c.Model == "" {
		return stepKey{call: c}
	}
	return stepKey{model: c.Model, method: c.Method}
}

// oneStep counts as one program the TF programs of a Keras step that a model's predict or
// evaluate calls compiled under traced functions of their own (Keras's predict step is traced for
// the full batch, then again, relaxed, for the last partial batch; evaluate after fit traces its
// test step anew): one step compiled again, not two programs each compiled once. Only programs
// the log names by their traced function (no signature, as under recomp run: frameworks.ByTrace)
// are joined; fit's train step is never joined.
func oneStep(rep *ledger.Report, opt ledger.Options) bool {
	byCall := map[stepKey][]*ledger.Module{}
	var calls []stepKey
	for _, m := range rep.Modules {
		var call *ledger.Call
		for _, u := range m.Compiled() {
			switch {
			case u.Via == nil || u.Via.Method == "fit" || !frameworks.ByTrace(u.Producer, u.Family):
				call = nil
			case call == nil || stepOf(call) == stepOf(u.Via):
				call = u.Via
				continue
			default:
				call = nil
			}
			break
		}
		if call == nil {
			continue
		}
		k := stepOf(call)
		if byCall[k] == nil {
			calls = append(calls, k)
		}
		byCall[k] = append(byCall[k], m)
	}
	joined := false
	for _, c := range calls {
		if mods := byCall[c]; len(mods) > 1 {
			joined = rep.OneProgram(mods, opt) || joined
		}
	}
	return joined // the findings were named again
}

func probeSite(r runfolder.ProbeRecord) ledger.Site {
	return ledger.Site{File: r.File, Line: r.Line, Function: r.Function}
}

// better says whether the probe's site should replace a unit's: the unit has none, or only a
// library's line.
func better(u *ledger.Unit, s ledger.Site) bool {
	return s.User() && !u.Site.User()
}

// probeCompile is a backend compile the probe saw, with the static arguments of the trace it
// compiles: of the traces in its process since that process's previous compile, the last of the
// same function when the compile names it, else the longest (JAX 0.4 names no function at a
// compile, and reports the traces of the jits nested in the function's, and of those its
// lowering calls, as well: the function's own trace holds the nested ones).
type probeCompile struct {
	runfolder.ProbeRecord
	static []ledger.StaticArg
}

// maxTracesPerCompile bounds the traces kept between two compiles of a process.
const maxTracesPerCompile = 4096

// tracedFor is the trace a compile compiles, of those since its process's previous compile: the
// last of the function the compile names, else the longest; nil when none.
func tracedFor(p frameworks.ProbeHook, c runfolder.ProbeRecord, traces []*runfolder.ProbeRecord) *runfolder.ProbeRecord {
	var best *runfolder.ProbeRecord
	for _, t := range traces {
		switch {
		case c.Name != "" && t.Name != "":
			if frameworks.SameFunction(moduleName(p, t.Name), moduleName(p, c.Name)) {
				best = t
			}
		case best == nil || t.Seconds >= best.Seconds:
			best = t
		}
	}
	return best
}

// attachInOrder gives each compile request of the unit's producers the next compile record of
// the same function (JAX's), with the static arguments of the trace record it compiles.
func attachInOrder(units []*ledger.Unit, recs []runfolder.ProbeRecord, p frameworks.ProbeHook) {
	var compiles []*probeCompile
	traces := map[int][]*runfolder.ProbeRecord{} // by process, since its last compile
	for i, r := range recs {
		if r.Framework != p.Name {
			continue
		}
		switch r.Event {
		case p.Traces:
			if len(traces[r.PID]) < maxTracesPerCompile {
				traces[r.PID] = append(traces[r.PID], &recs[i])
			}
		case p.Event:
			c := &probeCompile{ProbeRecord: r}
			if t := tracedFor(p, r, traces[r.PID]); t != nil {
				c.static = staticArgs(t.Static)
			}
			delete(traces, r.PID)
			compiles = append(compiles, c)
		}
	}
	// A unit of a process the probe told apart takes that process's records (workers that
	// wrote one log); the others take them all, in order.
	byPID := map[int][]*probeCompile{}
	for _, c := range compiles {
		byPID[c.PID] = append(byPID[c.PID], c)
	}
	next := map[int]int{}
	for _, u := range units {
		if !u.Requested || !ofUnit(u, p) {
			continue
		}
		recs, key := compiles, -1
		if u.PID != 0 {
			recs, key = byPID[u.PID], u.PID
		}
		// The probe's record of this request: the next one of the same function.
		i := next[key]
		for i < len(recs) && recs[i].Name != "" && !frameworks.SameFunction(moduleName(p, recs[i].Name), u.Module) {
			i++
		}
		if i == len(recs) {
			next[key] = i
			continue
		}
		if s := probeSite(recs[i].ProbeRecord); better(u, s) {
			u.Site = s
		}
		if recs[i].static != nil {
			u.Static = recs[i].static
		}
		u.Probed = recs[i].Time()
		next[key] = i + 1
	}
}

// staticArgs are a trace record's static arguments as the ledger keeps them (nil for none).
func staticArgs(rs []runfolder.StaticArg) []ledger.StaticArg {
	var out []ledger.StaticArg
	for _, a := range rs {
		out = append(out, ledger.StaticArg{Name: a.Name, Value: a.Value})
	}
	return out
}

// moduleName is the module a record's function name is in the log.
func moduleName(p frameworks.ProbeHook, name string) string {
	if p.ModuleName != nil {
		return p.ModuleName(name)
	}
	return name
}

// attachLastTrace gives the compilations of the unit's producers the line of the call that
// traced the function they compile (TF compiles a function at its first run after each
// trace): the trace that began last before the compilation's line, of the same function when
// both name it (a trace the probe could not name counts for 10 s), and the Python arguments that
// trace was called with. When several processes traced (pytest -n's workers, whose compile lines
// name no process), a trace goes to one compilation, the first after it, while a later one
// before the compilation has had none: two workers tracing one function at once each get their
// own test's line, not both the last one's.
func attachLastTrace(units []*ledger.Unit, recs []runfolder.ProbeRecord, p frameworks.ProbeHook) {
	var traces []runfolder.ProbeRecord
	pids := map[int]bool{}
	for _, r := range recs {
		if r.Framework == p.Name && r.Event == p.Event {
			traces = append(traces, r)
			pids[r.PID] = true
		}
	}
	slices.SortStableFunc(traces, func(a, b runfolder.ProbeRecord) int { return a.Begin().Compare(b.Begin()) })
	var used []bool // with several processes: the traces a compilation took
	if len(pids) > 1 {
		used = make([]bool, len(traces))
	}
	for _, u := range units {
		if !u.Compiled || !u.DateKnown || !ofUnit(u, p) {
			continue
		}
		i := lastTrace(u, traces, used)
		if i < 0 {
			continue
		}
		if used != nil {
			used[i] = true
		}
		r := traces[i]
		if s := probeSite(r); better(u, s) {
			u.Site = s
		}
		if len(r.Static) > 0 { // a tf.function's Python arguments: part of its trace
			u.Static = staticArgs(r.Static)
		}
	}
}

// lastTrace is the index of the trace attachLastTrace gives u (-1 for none): the last that began
// before u of its function, or, where used is set, the last of those no compilation took, if any.
func lastTrace(u *ledger.Unit, traces []runfolder.ProbeRecord, used []bool) int {
	found := -1
	for i := len(traces) - 1; i >= 0; i-- {
		r := traces[i]
		if r.Begin().After(u.Begin) {
			continue
		}
		if r.Name == "" && u.Begin.Sub(r.Time()) > 10*time.Second {
			break
		}
		if r.Name != "" && !strings.Contains(u.Module, r.Name) {
			continue
		}
		if used == nil || !used[i] {
			return i
		}
		if found < 0 {
			found = i // taken already: given only when no other is free
		}
	}
	return found
}

// attachCallSpan marks the compilations made under a front end's call (a Keras fit, evaluate or
// predict: the one whose time span holds the compilation's first line), on any backend, and
// gives them its line where they have none of the program's own.
func attachCallSpan(units []*ledger.Unit, recs []runfolder.ProbeRecord, p frameworks.ProbeHook) {
	type span struct {
		begin, end time.Time
		site       ledger.Site
		call       *ledger.Call
		pid        int
	}
	var spans []span
	open := map[string][]int{} // calls begun and not ended, by method
	for _, r := range recs {
		if r.Framework != p.Name {
			continue
		}
		switch method, ok := strings.CutSuffix(r.Event, "_begin"); {
		case ok:
			c := &ledger.Call{FrontEnd: p.Name, Method: method, Samples: r.Samples, BatchSize: r.BatchSize, Model: model(r), Data: r.Data}
			// a call made inside another of the same process and model (fit's validation is an
			// evaluate inside fit): the innermost open call of another method
			in := -1
			for m, st := range open {
				for _, i := range st {
					sp := spans[i]
					if m != method && i > in && sp.pid == r.PID && (sp.call.Model == "" || c.Model == "" || sp.call.Model == c.Model) {
						in = i // spans are in the order they began
					}
				}
			}
			if in >= 0 {
				c.Within = spans[in].call.Method
			}
			open[method] = append(open[method], len(spans))
			spans = append(spans, span{begin: r.Time(), site: probeSite(r), call: c, pid: r.PID})
		default:
			method, _ = strings.CutSuffix(r.Event, "_end")
			if st := open[method]; len(st) > 0 {
				spans[st[len(st)-1]].end = r.Time()
				open[method] = st[:len(st)-1]
			}
		}
	}
	for _, u := range units {
		at := u.Begin
		switch {
		case !u.Compiled:
			continue
		case !u.DateKnown && u.Probed.IsZero():
			continue
		case !u.DateKnown: // a log without times: when the probe saw it compile
			at = u.Probed
		}
		for _, sp := range spans {
			if at.Before(sp.begin) || !sp.end.IsZero() && at.After(sp.end) {
				continue
			}
			u.Via = sp.call // the innermost call comes last
			if better(u, sp.site) {
				u.Site = sp.site
			}
		}
	}
}

// attachCompiles gives each compilation of a stack whose probe records every compilation it
// made and is joined no other way (framework.Probe.Compiles without Attach: torch.compile's
// frames) what its record says: the program's line that called it, and whether autograd was off.
// The k-th compilation of a program in a process is the k-th record of the same function in it
// (by the record's name, or the frame of torch's own it names by its first caller).
func attachCompiles(units []*ledger.Unit, recs []runfolder.ProbeRecord) {
	for _, p := range frameworks.Probes() {
		if !p.Compiles || p.Attach != 0 {
			continue // joined by its own way (JAX's, in order of the requests)
		}
		idx := indexCompiles(p, recs)
		if len(idx) == 0 {
			continue
		}
		for _, u := range units {
			if !u.Compiled || u.Seq < 1 || !ofUnit(u, p) {
				continue
			}
			r := idx.nth(u)
			if r == nil {
				continue
			}
			if s := probeSite(*r); s.User() {
				u.Site = s
			}
			if r.Grad != nil {
				u.NoGrad = !*r.Grad // autograd off: an evaluation or scoring under no_grad
			}
		}
	}
}

// compileIndex holds a probe's compile records by process (0: every process's) and function
// (by its name, and by the frame of torch's own it names by its first caller), each list in the
// records' order.
type compileIndex map[compileKey][]*runfolder.ProbeRecord

type compileKey struct {
	pid int
	fn  string
}

// indexCompiles indexes the compile records of the probe hook p.
func indexCompiles(p frameworks.ProbeHook, recs []runfolder.ProbeRecord) compileIndex {
	idx := compileIndex{}
	for i := range recs {
		r := &recs[i]
		if r.Framework != p.Name || r.Event != p.Event || r.Name == "" {
			continue
		}
		fns := []string{frameworks.FunctionOf(moduleName(p, r.Name))}
		if r.Code != "" {
			if c := frameworks.FunctionOf(moduleName(p, r.Code)); c != fns[0] {
				fns = append(fns, c)
			}
		}
		for _, fn := range fns {
			idx[compileKey{0, fn}] = append(idx[compileKey{0, fn}], r)
			if r.PID != 0 {
				idx[compileKey{r.PID, fn}] = append(idx[compileKey{r.PID, fn}], r)
			}
		}
	}
	return idx
}

// nth is the record of the compilation u: the u.Seq-th of its function in its process (any
// process's when the log did not tell them apart); nil when there is none.
func (idx compileIndex) nth(u *ledger.Unit) *runfolder.ProbeRecord {
	list := idx[compileKey{u.PID, frameworks.FunctionOf(u.Module)}]
	if u.Seq < 1 || u.Seq > len(list) {
		return nil
	}
	return list[u.Seq-1]
}
