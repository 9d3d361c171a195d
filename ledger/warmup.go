package ledger

import (
	"fmt"
	"slices"
)

// Options choose the warm-up policy. With none set, the first compilation of each program is
// warm-up and any later compilation of it in the same process is after warm-up.
type Options struct {
	// Warmup, when > 0, makes the first Warmup compilations of each process warm-up: the
	// compilations of the program's own functions; eager one-op programs a framework compiles
	// for operations outside jit (initialisation, data preparation) do not count, and are
	// never after warm-up.
	Warmup int
	// AfterMarker means the inputs were scanned with a marker regexp: what comes after the
	// marker line of an input is after warm-up, what comes before is warm-up.
	AfterMarker bool
	// Baseline, when set, lists the known-good module families and the graph hashes they
	// compiled with: a compilation of a family or hash not in it is after warm-up.
	Baseline map[string][]string
}

// warmup decides whether a compilation came after warm-up and moves the load boundary.
func (l *Ledger) warmup(u *Unit, m *Module) {
	o := l.opt
	switch {
	case o.Baseline != nil:
		u.Late = baselineLate(u, o.Baseline)
	case o.Warmup > 0:
		// Eager one-op programs (set-up work outside jit) neither count toward the warm-up
		// nor fail it.
		if !u.Eager && l.compiled > o.Warmup {
			u.Late = fmt.Sprintf("compiled after the first %d compilation(s)", o.Warmup)
		}
		if !u.Eager && l.compiled == o.Warmup {
			l.loadsLate = true
		}
	case o.AfterMarker:
		if u.marked {
			u.Late = "compiled after the warm-up marker"
		}
	default:
		u.Late = defaultLate(u)
	}
	if o.Warmup == 0 && !o.AfterMarker && u.Seq == 1 && !u.Eager {
		// Loads before the last first compilation of a program are warm-up.
		l.pending = lateLoads{}
	}
	if u.Late == "" {
		return
	}
	u.AfterWarmup = true
	l.sum.AfterWarmup++
	l.sum.LateCompileTime += u.Duration
	if len(l.late) < MaxListed {
		l.late = append(l.late, u)
	}
}

// baselineLate says why a compilation is after warm-up by a baseline ("" when it is not).
func baselineLate(u *Unit, baseline map[string][]string) string {
	hashes, known := baseline[u.Family]
	switch {
	case !known && u.Family == Unnamed:
		return "a graph whose program the log does not name, and the baseline has none"
	case !known:
		return "module family not in the baseline"
	case u.Hash != "" && !slices.Contains(hashes, u.Hash):
		return "graph hash not in the baseline: the graph changed"
	}
	return ""
}

// defaultLate says why a compilation is after warm-up by the default policy: it is not the
// first of its program ("" when it is not late).
func defaultLate(u *Unit) string {
	switch {
	case u.Retraced:
		return "compiled after warm-up: a new XLA cluster formed after the graph had run (the function was traced again)"
	case u.Family == Unnamed && u.Hash == "":
		// no name and no hash: nothing tells two graphs apart
	case u.Seq > 1 && u.Family == Unnamed:
		return "compiled after warm-up: a graph whose program the log does not name (no frame of the program's own code, no module name), so no new graph after the first is exempt"
	case u.Seq > 1 && !u.Eager:
		return "compiled after warm-up"
	case u.SeenBefore && !u.Eager:
		return "compiled after warm-up: the framework says it had compiled this function before (its first compilation is not in the log, or not named there)"
	}
	return ""
}

// lateLoads are loads after warm-up, counted, the first MaxListed listed.
type lateLoads struct {
	n     int
	total Summary // LoadsAfterWarmup and LateLoadTime
	list  []Load
}

func (ll *lateLoads) add(ld Load) {
	ll.n++
	ll.total.LoadsAfterWarmup++
	ll.total.LateLoadTime += ld.Duration
	if len(ll.list) < MaxListed {
		ll.list = append(ll.list, ld)
	}
}

// loadPolicy says whether a load that no compilation owns is after warm-up, or (by default)
// may be, unless a program compiles for the first time after it.
func (l *Ledger) loadPolicy() (late, maybe bool) {
	switch o := l.opt; {
	case o.AfterMarker:
		return l.marked, false
	case o.Warmup > 0:
		return l.loadsLate, false
	}
	return false, true
}
