package ledger

import (
	"time"

	"github.com/recomp/recomp/frameworks"
	"github.com/recomp/recomp/logscan"
)

// A joinRule says how an event of one kind takes part in a compilation: whether it belongs to
// the unit that is open (joins; the names must agree unless anyName), what it records on the
// unit it joined or started, and whether the unit is complete after it.
type joinRule struct {
	joins   func(u *Unit, ev logscan.Event) bool
	apply   func(u *Unit, ev logscan.Event, started bool)
	closes  bool
	anyName bool
}

// joinRules is the table of the event kinds that make compilations. The other kinds (loads,
// cache writes, retraces, markers) are handled by the Ledger's own methods.
var joinRules = map[logscan.Kind]joinRule{
	logscan.CompileRequest: {
		joins: func(u *Unit, _ logscan.Event) bool { return !u.Requested && !u.Compiled && !u.Hit },
		apply: func(u *Unit, _ logscan.Event, _ bool) { u.Requested = true },
	},
	logscan.CompileEnd: {
		joins: func(u *Unit, _ logscan.Event) bool { return !u.Hit },
		apply: func(u *Unit, ev logscan.Event, _ bool) {
			u.Compiled = true
			if ev.Duration > 0 { // XLA's slow-compile alarm says how long the compilation took
				u.Duration, u.Finished = ev.Duration, true
			}
		},
	},
	logscan.CacheMiss: {
		joins: func(u *Unit, _ logscan.Event) bool { return !u.Hit && !u.Miss && !u.Compiled },
		apply: func(u *Unit, ev logscan.Event, _ bool) { u.Miss = u.Miss || !ev.InProcess },
	},
	logscan.CacheHit: {
		joins: func(u *Unit, ev logscan.Event) bool { return !u.Compiled && !u.seen(ev.Signal) },
		apply: func(u *Unit, _ logscan.Event, _ bool) { u.Hit = true },
	},
	logscan.CompileBegin: {
		joins: func(u *Unit, ev logscan.Event) bool { return !u.Hit && !u.seen(ev.Signal) },
		apply: func(u *Unit, _ logscan.Event, _ bool) { u.Compiled = true },
	},
	logscan.CompileFinished: {
		joins: func(u *Unit, _ logscan.Event) bool { return !u.Hit },
		apply: func(u *Unit, ev logscan.Event, _ bool) {
			u.Compiled, u.Finished = true, true
			if ev.Duration > 0 {
				u.Duration = ev.Duration
			}
			u.end = ev.Time
		},
		closes:  true,
		anyName: true,
	},
	logscan.RequestDone: {
		joins: func(*Unit, logscan.Event) bool { return true },
		apply: func(u *Unit, ev logscan.Event, started bool) {
			u.Compiled = u.Compiled || started
			u.Finished = true
			if ev.Duration > 0 {
				u.Duration = ev.Duration
			}
		},
		closes: true,
	},
}

// join folds one compilation event into the open unit or starts a new one.
func (l *Ledger) join(rule joinRule, ev logscan.Event) {
	l.clusterAlone = nil // the compilation it announced has lines of its own
	o := l.open
	if o != nil && rule.joins(o, ev) && (rule.anyName || sameName(o, ev)) { // (the cheaper test first)
		l.extend(o, ev)
		rule.apply(o, ev, false)
	} else {
		l.closeOpen()
		rule.apply(l.start(ev), ev, true)
	}
	if rule.closes {
		l.closeOpen()
	}
}

func sameName(u *Unit, ev logscan.Event) bool {
	return ev.Module == "" || u.Module == "" || frameworks.SameFunction(u.Module, ev.Module)
}

// start opens a unit for ev. A waiting framework explanation of the function this unit
// compiles becomes its reason.
func (l *Ledger) start(ev logscan.Event) *Unit {
	u := &Unit{Module: ev.Module, Hash: ev.Hash, Producer: ev.Producer, Input: l.input, Process: l.file, PID: l.pid,
		File: ev.File, Line: ev.Line, LastLine: ev.Line, Begin: ev.Time, DateKnown: ev.DateKnown,
		marked: l.marked, Step: l.steps + 1}
	u.signals = append(u.signals, ev.Signal)
	l.note(u, ev)
	if u.Module != "" {
		l.attachTrace(u)
	}
	for _, k := range l.keyLines {
		addKeyLine(u, k)
	}
	l.keyLines = l.keyLines[:0]
	l.open = u
	l.units++
	return u
}

func (l *Ledger) extend(u *Unit, ev logscan.Event) {
	u.signals = append(u.signals, ev.Signal)
	u.LastLine = ev.Line
	if u.Module == "" && ev.Module != "" {
		u.Module = ev.Module
		l.attachTrace(u)
	}
	if u.Hash == "" {
		u.Hash = ev.Hash
	}
	if u.Begin.IsZero() {
		u.Begin, u.DateKnown = ev.Time, ev.DateKnown
	}
	l.note(u, ev)
}

// note keeps what a framework's event says about the arguments or the cause.
func (l *Ledger) note(u *Unit, ev logscan.Event) {
	switch {
	case ev.Caller != "" && (ev.Kind == logscan.CompileBegin || ev.Kind == logscan.CompileRequest):
		u.Site = ParseSite(ev.Caller) // the program's line that called the function compiled
	case u.Site.File == "" && ev.Path != "" && (ev.Kind == logscan.CompileBegin || ev.Kind == logscan.CompileRequest):
		u.Site = ParseSite(ev.Path) // PyTorch/XLA's frame of the program's own code
	}
	if ev.Signature != "" {
		u.Signature = ev.Signature
	}
	if len(ev.KeyParts) > 0 && len(u.KeyParts) == 0 { // a lookup's record lists its key's parts (torch's trace)
		for _, p := range ev.KeyParts[:min(len(ev.KeyParts), maxListedKeyParts)] {
			u.KeyParts = append(u.KeyParts, KeyPart{Name: p.Name, Hash: p.Hash, Value: p.Value})
		}
	}
	if ev.Graph != "" && ev.Kind == logscan.CompileBegin {
		u.Graph = ev.Graph
	}
	if ev.Dynamic != "" && ev.Kind == logscan.CompileBegin {
		u.Dynamic = ev.Dynamic
	}
	if ev.Reason != "" && u.Why == "" {
		u.explained(ev.Reason)
	}
	if u.Dynamic != "" {
		u.Facts = frameworks.MadeDynamic(u.Producer, u.Facts, u.Dynamic) // a size that then served every size
	}
	if ev.SeenBefore && (ev.Kind == logscan.CompileBegin || ev.Kind == logscan.CompileRequest) {
		u.SeenBefore = true // the framework says it compiles the function again (dynamo's records)
	}
}

// closeOpen completes the open unit: a request or miss not served from a cache was compiled.
func (l *Ledger) closeOpen() {
	u := l.open
	if u == nil {
		return
	}
	l.open = nil
	if (u.Requested || u.Miss) && !u.Hit {
		u.Compiled = true
	}
	if u.Duration == 0 && !u.Begin.IsZero() && !u.end.IsZero() {
		d := u.end.Sub(u.Begin)
		if d < 0 { // a time of day that wrapped past midnight
			d += 24 * time.Hour
		}
		u.Duration = d
	}
	if u.Finished && len(u.signals) > 0 {
		l.finished[u.signals[0]] = true
	}
	l.attachWhy(u)
	l.account(u)
	l.last = u
}

// cluster handles TF's "Compiled cluster using XLA!", which TF prints once per process: it is a
// compilation only when nothing else in the log says so.
func (l *Ledger) cluster(ev logscan.Event) {
	l.clusterLines++
	if l.units == 0 && l.open == nil && l.clusterAlone == nil {
		// It stands for a compilation only when no line of one follows: TF prints it just
		// before its first compilation's profiler line.
		l.clusterAlone = &ev
	}
}

// clusterUnit makes the one compilation a lone "Compiled cluster using XLA!" shows.
func (l *Ledger) clusterUnit() {
	ev := l.clusterAlone
	l.clusterAlone = nil
	if ev == nil || l.units > 0 {
		return
	}
	u := l.start(*ev)
	u.Compiled, u.Finished = true, true
	u.end = ev.Time
	l.closeOpen()
}

// write marks the unit a cache write belongs to: the open one, else the last one.
func (l *Ledger) write(ev logscan.Event) {
	u := l.open
	if u == nil {
		u = l.last
	}
	if u == nil {
		u = l.start(ev)
		l.closeOpen()
	}
	if !u.Written {
		u.Written = true
		l.sum.CacheWrites++
	}
}
