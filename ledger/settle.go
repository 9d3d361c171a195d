package ledger

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/recomp/recomp/frameworks"
	"github.com/recomp/recomp/frameworks/cause"
)

// ran counts the executions of one graph hash and remembers when the last one was.
type ran struct {
	n, last int
}

// maxRanHashes bounds the graph hashes whose executions are counted.
const maxRanHashes = 4096

// settledRuns is how many executions of a program's second graph, its own included, show that
// the program settled on it.
const settledRuns = 3

// Settled is the reason a program's second compilation is not counted as a recompilation.
const Settled = "set-up, not a recompilation: the first graph ran once and never again, and from its second call on the program ran this graph only (state its first step created, such as an optimiser's)"

// settle takes back, under the default warm-up policy, the recompilation of a program that
// compiled twice where its first graph ran once and never again and its second ran for the rest
// of the process: the first step built state (an optimiser's, created lazily) that later steps
// take as input. Only frameworks that log each execution with its graph hash (PyTorch/XLA's
// Execution Analysis) show that; a program whose logged signatures differ changed its inputs,
// and stays a recompilation.
func (l *Ledger) settle() {
	if l.opt.Baseline != nil || l.opt.Warmup > 0 || l.opt.AfterMarker || len(l.execs) == 0 {
		return
	}
	for _, m := range l.order {
		b := l.settledUnit(m)
		if b == nil {
			continue
		}
		setUp(&l.sum, &l.late, m, b)
	}
}

// settledUnit returns a program's second compilation when it was set-up: the program compiled twice,
// its first graph ran once and never again after the second compiled, the second ran at least
// settledRuns times with the same logged signature and, where the log counts them, takes more
// inputs than the first and gives as many outputs; nil otherwise.
func (l *Ledger) settledUnit(m *Module) *Unit {
	if m.Eager || m.Compilations != 2 || m.Recompilations != 1 {
		return nil
	}
	var us []*Unit
	for _, u := range m.Units {
		if u.Compiled {
			us = append(us, u)
		}
	}
	if len(us) != 2 {
		return nil
	}
	a, b := us[0], us[1]
	if b.Seq != 2 || b.SeenBefore || b.Retraced || a.Hash == "" || b.Hash == "" || a.Hash == b.Hash ||
		a.Signature != b.Signature || a.Program != b.Program {
		return nil
	}
	ra, rb := l.execs[a.Hash], l.execs[b.Hash]
	if ra == nil || rb == nil || ra.n > 1 || ra.last > b.tick || rb.n < settledRuns {
		return nil
	}
	// State the first step created becomes an input of the second graph, which gives as many
	// outputs: where the log counts them, a second graph that does not take more inputs (a new
	// batch size from step 2 on, a number changed once) changed what the program computes.
	inA, outA, okA := graphIO(a.Graph)
	inB, outB, okB := graphIO(b.Graph)
	if okA && okB && (inB <= inA || outB != outA) {
		return nil
	}
	return b
}

// PerMode is the reason a program's compilation for a mode it had not compiled in is not counted
// as a recompilation (Unit.Settled).
const PerMode = "one compilation per mode, not a recompilation: the program ran in a mode it had not compiled for (a module's " +
	"training flag, grad mode), which is compiled once and served from the stack's cache at each later switch"

// perMode takes back, under the default warm-up policy, each recompilation of a program that
// the stack said was for a mode (a module's training flag, grad mode or another global setting:
// cause.ModuleMode, cause.GlobalState) it had not compiled for: a model compiled once for
// training and once for evaluation, then served from the cache at each switch. A mode compiled
// again is a recurring recompilation and stays one, as does a compilation for anything else (an
// evaluation's partial batch, compiled after the evaluation's first).
func (l *Ledger) perMode() {
	if !l.opt.PerMode() {
		return
	}
	for _, m := range l.order {
		for _, u := range modeCompilations(m) {
			setUp(&l.sum, &l.late, m, u)
			u.Settled = PerMode
		}
	}
}

// modeCompilations are a program's recompilations each for a mode it had not compiled for
// (perMode).
func modeCompilations(m *Module) []*Unit {
	if m.Eager || m.Recompilations == 0 {
		return nil
	}
	var again []*Unit
	modes := Modes{}
	for _, u := range m.Units {
		if u.Compiled && u.Seq > 1 && u.Settled == "" && modes.New(u) {
			again = append(again, u)
		}
	}
	return again
}

// PerMode says whether the options' warm-up policy is the default one, under which a program's
// compilation for a mode it had not compiled for is no recompilation (perMode): no baseline, no
// warm-up count, no marker.
func (o Options) PerMode() bool { return o.Baseline == nil && o.Warmup == 0 && !o.AfterMarker }

// Modes are the modes a program compiled for, as its compilations' facts name them (see
// perMode): a module's mode by the mode it runs in now (New), and the mode it first compiled in
// (Old of its first fact), so that flipping back to a mode compiled before is a recompilation; a
// global setting by its change (dynamo names no values).
type Modes map[string]bool

// maxModes bounds the modes a Modes keeps: a program of more is no program of a few modes.
const maxModes = 256

// New says whether the compilation u, the next of its program, was for a mode the program had
// not compiled for, and keeps it: every fact of u is of a mode, and not of one module in two.
func (ms Modes) New(u *Unit) bool {
	if len(u.Facts) == 0 {
		return false
	}
	var changed []string
	now := map[string]string{}
	for _, f := range u.Facts {
		switch {
		case f.Kind == cause.ModuleMode && f.New != "":
			if n, ok := now[f.Arg]; ok && n != f.New {
				return false // one module in two modes: not a mode change alone
			}
			now[f.Arg] = f.New
			if first := "first " + f.Arg; !ms[first] {
				ms[first] = true
				ms["mode "+f.Arg+" "+f.Old] = true
			}
			changed = append(changed, "mode "+f.Arg+" "+f.New)
		case f.Kind == cause.ModuleMode || f.Kind == cause.GlobalState:
			changed = append(changed, f.Change)
		default:
			return false
		}
	}
	slices.Sort(changed)
	key := strings.Join(slices.Compact(changed), "\n")
	if ms[key] || len(ms) >= maxModes {
		return false // a mode compiled again: recurring
	}
	ms[key] = true
	return true
}

// setUp takes back the recompilation b of module m: set-up, not a recompilation.
func setUp(sum *Summary, late *[]*Unit, m *Module, b *Unit) {
	sum.Recompilations--
	m.Recompilations--
	b.Settled = Settled
	m.Recompiled, m.RecompiledIn, m.FirstRecompile = false, 0, nil
	if m.Recompilations > 0 { // another recompilation stays one (a mode's partial batch)
		m.Recompiled, m.RecompiledIn = true, 1
		i := slices.IndexFunc(m.Units, func(u *Unit) bool { return u.Compiled && u.Seq > 1 && u.Settled == "" })
		if i >= 0 {
			m.FirstRecompile = m.Units[i]
		}
	}
	if b.AfterWarmup {
		b.AfterWarmup, b.Late = false, ""
		sum.AfterWarmup--
		sum.LateCompileTime -= b.Duration
		*late = slices.DeleteFunc(*late, func(u *Unit) bool { return u == b })
	}
}

// SetUp takes back, under the default warm-up policy, the recompilation u of a one-process
// report when a comparison of the dumps shows it is set-up: the program compiled twice and its
// second graph takes as input state the first step built (every cause expected once). It says
// whether it did; the findings are named again.
func (r *Report) SetUp(u *Unit, opt Options) bool {
	if opt.Baseline != nil || opt.Warmup > 0 || opt.AfterMarker || r.Processes > 1 || u == nil || !u.Compiled ||
		u.Seq != 2 || u.SeenBefore || u.Eager || u.Settled != "" {
		return false
	}
	for _, m := range r.Modules {
		if !slices.Contains(m.Units, u) {
			continue
		}
		if m.Compilations != 2 || m.Recompilations != 1 {
			return false
		}
		setUp(&r.Summary, &r.Late, m, u)
		r.Findings = findings(opt, r)
		return true
	}
	return false
}

// Undecided is why a log alone cannot tell set-up from a recompilation (Unit.Undecided).
const Undecided = "set-up or a recompilation: the program's second graph takes more inputs (%s → %s) and gives as many outputs, " +
	"as when state its first step created (an optimiser's) becomes an input, or when the program passes a new input; this log lists " +
	"no executions to tell them apart. To decide, run it again with PT_XLA_DEBUG_LEVEL=2 and guard that log (it shows whether the first " +
	"graph ever ran again), or guard the run folder `recomp run` leaves, or give the HLO dump (XLA_FLAGS=--xla_dump_to=DIR, then " +
	"`recomp explain DIR --log LOG`): either shows which it is"

// undecided marks, under the default warm-up policy, the second compilation of a program that
// may be set-up where the log cannot show it: the process logged no executions of a framework
// that can log them (PyTorch/XLA at PT_XLA_DEBUG_LEVEL=1), the program compiled twice, and its
// second graph takes more inputs than the first and gives as many outputs. It stays a
// recompilation; a gate cannot pass it, nor fail it for certain.
func (l *Ledger) undecided() {
	if l.opt.Baseline != nil || l.opt.Warmup > 0 || l.opt.AfterMarker || l.sum.Executions > 0 {
		return
	}
	for _, m := range l.order {
		a, b := secondOf(m)
		if b == nil {
			continue
		}
		fw := frameworks.ForProducer(b.Producer)
		if fw == nil || fw.StepEnd == nil || b.SeenBefore || b.Retraced || a.Hash == "" || b.Hash == "" ||
			a.Hash == b.Hash || a.Signature != b.Signature || a.Program != b.Program {
			continue
		}
		inA, outA, okA := graphIO(a.Graph)
		inB, outB, okB := graphIO(b.Graph)
		if okA && okB && inB > inA && outB == outA {
			b.Undecided = fmt.Sprintf(Undecided, strconv.Itoa(inA), strconv.Itoa(inB))
		}
	}
}

// graphIO reads a unit's Graph ("inputs 17, outputs 41").
func graphIO(g string) (in, out int, ok bool) {
	i, o, found := strings.Cut(g, ", outputs ")
	if !found || !strings.HasPrefix(i, "inputs ") {
		return 0, 0, false
	}
	in, err1 := strconv.Atoi(strings.TrimPrefix(i, "inputs "))
	out, err2 := strconv.Atoi(o)
	return in, out, err1 == nil && err2 == nil
}

// secondOf is a program's two compilations when it compiled twice, the second a recompilation in
// its process; nil otherwise.
func secondOf(m *Module) (a, b *Unit) {
	if m.Eager || m.Compilations != 2 || m.Recompilations != 1 {
		return nil, nil
	}
	var us []*Unit
	for _, u := range m.Units {
		if u.Compiled {
			us = append(us, u)
		}
	}
	if len(us) != 2 || us[1].Seq != 2 {
		return nil, nil
	}
	return us[0], us[1]
}
