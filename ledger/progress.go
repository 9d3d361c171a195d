package ledger

import (
	"slices"
	"strconv"
	"strings"

	"github.com/recomp/recomp/frameworks"
	"github.com/recomp/recomp/frameworks/framework"
	"github.com/recomp/recomp/logscan"
)

// progress follows a front end's own progress lines in one process (Keras's "Epoch i/n" and
// bars, logscan.Progress): the windows of its loops, and the compilations in each. At the end
// (settleLoops) they give the step each of the front end's step programs is (framework.FrontEnd
// LoopStep), the loop each of its compilations ran in (LoopOf), and the epoch of each
// compilation.
type progress struct {
	windows []*loopWindow
	cur     *loopWindow // the window of the last line (nil: none yet)
	gap     []*Unit     // compilations since cur's bars reached their end, waiting for the next line
	units   []placed    // every compilation, in order, with its window
	// stepped says a step program compiled; early names the step each program is as soon as the
	// lines so far tell (fit's train step: the first step program, first compiled in an epoch),
	// for the live lines, before the log ends.
	stepped bool
	early   map[string]string
}

// maxEarly bounds the programs early names.
const maxEarly = 64

// loopWindow is one run of Keras's progress: an epoch of fit (from its "Epoch i/n"), or a bar
// with no epoch line (an evaluate, a predict, or a fit of one epoch).
type loopWindow struct {
	epoch, of int // "Epoch i/n" (0, 0: no epoch line)
	steps     int // the steps its last bar counted ("4/4": 4; 0 while unknown)
	bars      int
	done      bool // its last bar reached the steps it counts to
	val       bool // a bar shows a validation metric (val_…): fit ran validation in it
	metrics   bool // a bar shows a metric (predict's show none)
}

// placed is a compilation and the window it ran in (nil: none the log shows); after marks one
// after its epoch's bar ended and before the next epoch began (a callback's, at the epoch's end):
// in the epoch, in no loop of the front end's.
type placed struct {
	u     *Unit
	w     *loopWindow
	after bool
}

// maxWindows bounds the windows kept of one process (an epoch line and a bar each).
const maxWindows = 1 << 16

// progressLine folds one of a front end's progress lines in (logscan.Progress).
func (l *Ledger) progressLine(ev logscan.Event) {
	p := &l.prog
	switch ev.Phase {
	case "epoch":
		_, n, _ := strings.Cut(ev.Step, "/")
		of, _ := strconv.Atoi(n)
		p.flushGap(p.cur)
		p.open(&loopWindow{epoch: ev.Count, of: of})
	case "bar":
		_, target, _ := strings.Cut(ev.Step, "/")
		steps, _ := strconv.Atoi(target) // 0 for "Unknown"
		names := strings.Fields(ev.Detail)
		val := slices.ContainsFunc(names, func(n string) bool { return strings.HasPrefix(n, "val_") })
		w := p.cur
		switch {
		case w != nil && !w.done && (w.steps == 0 || steps == w.steps) && (w.epoch > 0 || w.bars > 0):
			// the bar of the window open: its next state
		case w != nil && w.done && val && steps == w.steps && !w.val:
			// the last state of an epoch's bar, with the validation's metrics: the compilations
			// since its steps ended were the validation's
		default: // a new bar: the compilations since the last one ended came before its first state
			w = &loopWindow{}
			p.open(w)
		}
		for _, u := range p.gap {
			p.units = append(p.units, placed{u, w, false})
		}
		p.gap = p.gap[:0]
		w.bars++
		w.steps = steps
		w.val = w.val || val
		w.metrics = w.metrics || len(names) > 0
		w.done = steps > 0 && ev.Count >= steps
	}
}

// open starts window w.
func (p *progress) open(w *loopWindow) {
	if len(p.windows) < maxWindows {
		p.windows = append(p.windows, w)
	}
	p.cur = w
}

// flushGap places the compilations waiting since the last window's bar ended: after the epoch w
// they followed, where another epoch of its fit follows; else in none (after fit's last epoch
// the program goes on outside fit).
func (p *progress) flushGap(w *loopWindow) {
	if w != nil && (w.epoch == 0 || w.epoch >= w.of) {
		w = nil
	}
	for _, u := range p.gap {
		p.units = append(p.units, placed{u, w, w != nil})
	}
	p.gap = p.gap[:0]
}

// compiled places a compilation in the window open, or keeps it for the next line: a bar that
// has ended says nothing of what follows it (the first compilation of an evaluate or a predict
// comes before its bar). It is given the listed units only (MaxListedUnits), no eager one-op
// program's.
func (p *progress) compiled(u *Unit, listed bool) {
	if listed && !u.Eager {
		p.earlyStep(u)
	}
	switch {
	case !listed || u.Eager:
	case p.cur != nil && !p.cur.done:
		p.units = append(p.units, placed{u, p.cur, false})
	default:
		p.gap = append(p.gap, u)
	}
}

// earlyStep gives a compilation the step its program is as far as the lines so far tell
// (Unit.LogStep, settled again at the end): the front end's first step program, first compiled
// inside an epoch, is fit's train step (framework.FrontEnd.LoopStep's first case, known before
// the epoch's bar ends).
func (p *progress) earlyStep(u *Unit) {
	if s, ok := p.early[u.Program]; ok {
		u.LogStep = s
		return
	}
	f, step, ok := frameworks.Stepped(u.Family, u.Lambda)
	if !ok {
		return
	}
	if step == "" && !p.stepped && p.cur != nil && p.cur.epoch > 0 && !p.cur.done && f.LoopStep != nil {
		step = f.LoopStep(p.cur.facts(), 0, 1, false, nil)
	}
	p.stepped = true
	if p.early == nil {
		p.early = map[string]string{}
	}
	if len(p.early) < maxEarly {
		p.early[u.Program] = step
	}
	u.LogStep = step
}

// settleLoops gives, once the process's log has ended, each Keras step its step and loop as the
// progress lines tell them (Unit.LogStep, Unit.LogLoop), each compilation its epoch
// (Unit.Epoch), and returns the steps ended when each epoch began (Process.Epochs; nil when the
// log's epoch lines are not the epochs of one fit).
func (l *Ledger) settleLoops() []int {
	p := &l.prog
	if len(p.windows) == 0 {
		return nil
	}
	p.flushGap(p.cur)
	steps := stepsOf(p)
	for _, pl := range p.units {
		if pl.w != nil && steps != nil {
			pl.u.Epoch = pl.w.epoch
		}
	}
	return steps
}

// stepsOf names the step of each program whose first compilation a window shows (Unit.LogStep of
// all its compilations), and returns the epochs' start steps (see settleLoops).
func stepsOf(p *progress) []int {
	type prog struct {
		front *framework.FrontEnd
		step  string
		w     *loopWindow
	}
	// the programs whose step the stack's explanation names (Keras on JAX: train_step defined in
	// Keras's trainer.py), on any of their compilations
	named := map[string]*prog{}
	for _, pl := range p.units {
		if f, s := frameworks.FrontStep(pl.u.Producer, pl.u.Module, pl.u.Why); s != "" && named[pl.u.Program] == nil {
			named[pl.u.Program] = &prog{front: f, step: s}
		}
	}
	progs := map[string]*prog{}
	var order []string
	news := map[*loopWindow][]string{}
	before := map[*loopWindow]bool{}
	earlier := map[*loopWindow][]framework.LoopWindow{}
	var firsts []framework.LoopWindow // the windows in which step programs were first compiled, so far
	seen := false
	for _, pl := range p.units {
		u := pl.u
		if u.Eager {
			continue
		}
		f, step, ok := frameworks.Stepped(u.Family, u.Lambda)
		if n := named[u.Program]; n != nil {
			f, step, ok = n.front, n.step, true
		}
		if !ok {
			continue
		}
		if progs[u.Program] == nil {
			w := pl.w
			if pl.after {
				w = nil
			}
			progs[u.Program] = &prog{f, step, w}
			order = append(order, u.Program)
			if w != nil {
				if len(news[w]) == 0 {
					before[w], earlier[w] = seen, slices.Clone(firsts)
					firsts = append(firsts, w.facts())
				}
				news[w] = append(news[w], u.Program)
			}
		}
		seen = true
	}
	for _, name := range order {
		if pr := progs[name]; pr.step == "" && pr.w != nil && pr.front.LoopStep != nil {
			n := news[pr.w]
			pr.step = pr.front.LoopStep(pr.w.facts(), slices.Index(n, name), len(n), before[pr.w], earlier[pr.w])
		}
	}
	for _, pl := range p.units {
		pl.u.LogStep = "" // what the lines told before the log ended (earlyStep), settled here
		if pr := progs[pl.u.Program]; pr != nil && pr.step != "" {
			pl.u.LogStep = pr.step
			if pl.w != nil && !pl.after && pr.front.LoopOf != nil {
				pl.u.LogLoop = pr.front.LoopOf(pr.step, pl.w.facts())
			}
		}
	}
	return epochStarts(p.windows)
}

// facts is what the window shows, for a front end to read.
func (w *loopWindow) facts() framework.LoopWindow {
	return framework.LoopWindow{Epoch: w.epoch, Of: w.of, Steps: w.steps, Bars: w.bars, Val: w.val, Metrics: w.metrics}
}

// epochStarts is the steps ended when each epoch began, where the windows' epoch lines are the
// epochs 1, 2, … of one fit, each ended by a bar that counted its steps (the last may be cut);
// nil otherwise.
func epochStarts(windows []*loopWindow) []int {
	var starts []int
	var prev *loopWindow
	total := 0
	for _, w := range windows {
		if w.epoch == 0 {
			continue
		}
		if w.epoch != len(starts)+1 || prev != nil && (w.of != prev.of || prev.steps == 0) {
			// a second fit, epochs from another (initial_epoch), or an epoch that counted no steps
			return nil
		}
		prev = w
		starts = append(starts, total)
		total += w.steps
	}
	return starts
}
