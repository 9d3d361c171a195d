package main

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"time"

	"github.com/alecthomas/kong"

	"github.com/recomp/recomp/explain"
	"github.com/recomp/recomp/internal/textutil"
	"github.com/recomp/recomp/ledger"
	"github.com/recomp/recomp/runfolder"
	"github.com/recomp/recomp/runner"
	"github.com/recomp/recomp/verdict"
)

// exitStopped is recomp run's exit code when it stopped the command at a compilation after
// warm-up (--fail-on-recompile, --compile-budget). recomp watch, which stops nothing, exits 1
// (exitFound) then.
const exitStopped = 4

// liveEvery is how often one program's live line is said at most: the compilations in between
// are summed into its next line (or the last words).
const liveEvery = 10 * time.Second

// maxLivePrograms bounds the programs whose repeats are followed (ledger.MaxFamilies).
const maxLivePrograms = ledger.MaxFamilies

// stopPolicy says when a compilation after warm-up stops the run: at the Count-th (0: never),
// or once their compile time passes Budget (0: never).
type stopPolicy struct {
	Count  int
	Budget time.Duration
}

// liveTally is what all the live logs of one command saw after warm-up, and why to stop.
type liveTally struct {
	late     int
	lateTime time.Duration
	stop     string
	policy   stopPolicy
}

// liveLines says the compilations after warm-up of one log as they happen, from its Live
// ledger: the same ledger, warm-up and counting as the report at the end. It is a runner.Live.
type liveLines struct {
	lv     *ledger.Live
	label  string // the log's name, said before each line when several logs are followed ("" none)
	prefix string // "recomp run", "recomp watch"
	color  bool
	now    func() time.Time
	tally  *liveTally
	progs  map[string]*liveProgram
	every  time.Duration // one program's lines are said this often at most (liveEvery)
	probe  string        // the run folder whose probe records give a line the log does not ("" none)
	// watching: no command to stop (recomp watch says it fails instead)
	watching bool
	// said, when set, is given each live line's words as it is said (tests)
	said func(verdict.Live)
}

// liveProgram is one program's repeats since its last live line.
type liveProgram struct {
	said      time.Time
	held      int
	heldTime  time.Duration
	signature string // its last compilation's argument signature
	// signatures are the argument signatures it compiled (JAX's name a variant; at most
	// maxLiveSignatures are kept)
	signatures map[string]bool
	name       string // how its last line named it (a front end's step first)
	// units are its latest compilations (at most maxLiveUnits), the evidence its live line's
	// cause is read from as the verdict reads it
	units []*ledger.Unit
}

// maxLiveUnits bounds the compilations kept per program for its live lines.
const maxLiveUnits = 64

// maxLiveSignatures bounds the signatures kept per program.
const maxLiveSignatures = 1024

func newLiveLines(opt ledger.LiveOptions, prefix string, color bool, tally *liveTally) *liveLines {
	return &liveLines{lv: ledger.NewLive(opt), prefix: prefix, color: color, now: time.Now, tally: tally,
		progs: map[string]*liveProgram{}, every: liveEvery}
}

// Log reads run.log's new lines and says their compilations after warm-up (runner.Live).
func (l *liveLines) Log(lines []byte, _ int64) []runner.Note {
	l.lv.Write(lines)
	return l.notes(l.lv.Compiled())
}

// Stop says why to stop the command, once a compilation after warm-up met the policy.
func (l *liveLines) Stop() string { return l.tally.stop }

// close ends the log: the compilations it closed at its end, and the repeats not yet said.
func (l *liveLines) close() (*ledger.Report, []runner.Note) {
	rep := l.lv.Close()
	notes := l.notes(l.lv.Compiled())
	for _, fam := range slices.Sorted(maps.Keys(l.progs)) {
		p := l.progs[fam]
		if p.held > 0 {
			name := p.name
			if name == "" {
				name = textutil.Visible(fam)
			}
			notes = append(notes, runner.Note{Text: l.line(verdict.LiveHeld(name, p.held, p.heldTime))})
		}
	}
	return rep, notes
}

func (l *liveLines) notes(units []ledger.LiveUnit) []runner.Note {
	var out []runner.Note
	for _, u := range units {
		p := l.progs[u.Family]
		if p == nil {
			if len(l.progs) >= maxLivePrograms {
				p = &liveProgram{} // followed no further: every compilation is said
			} else {
				p = &liveProgram{}
				l.progs[u.Family] = p
			}
		}
		before := p.signature
		repeated := false
		if u.Signature != "" {
			p.signature = u.Signature
			if p.signatures == nil {
				p.signatures = map[string]bool{}
			}
			repeated = p.signatures[u.Signature]
			if len(p.signatures) < maxLiveSignatures {
				p.signatures[u.Signature] = true
			}
		}
		if len(p.units) == maxLiveUnits {
			p.units = slices.Delete(p.units, 0, 1)
		}
		p.units = append(p.units, u.Unit)
		if !u.AfterWarmup {
			continue
		}
		var seen [][]ledger.StaticArg
		if l.probe != "" {
			if recs, err := runfolder.ReadProbe(l.probe); err == nil {
				// the window's earlier compilations too: a value's first trace is the warm-up's
				explain.LiveSites(withoutUserSite(p.units), recs)
				seen = explain.LiveStatics(u.Unit, recs)
			}
		}
		said := verdict.LiveOf(p.units, before, repeated, seen)
		cost := said.Cost
		t := l.tally
		t.late++
		t.lateTime += cost
		stopNow := false
		if t.stop == "" && (t.policy.Count > 0 && t.late >= t.policy.Count || t.policy.Budget > 0 && t.lateTime > t.policy.Budget) {
			t.stop = verdict.StopWhy(u.Unit, t.late, t.lateTime, t.policy.Count, t.policy.Budget)
			stopNow = true
		}
		now := l.now()
		if !stopNow && !p.said.IsZero() && now.Sub(p.said) < l.every {
			p.held++
			p.heldTime += cost
			continue
		}
		mark := "✗"
		if l.color {
			mark = "\x1b[1;31m✗\x1b[0m"
		}
		text := mark + " " + said.Sentence()
		p.name = said.Name
		if l.said != nil {
			l.said(said)
		}
		if p.held > 0 {
			text += verdict.LiveMore(p.held, p.said, p.heldTime)
		}
		p.said, p.held, p.heldTime = now, 0, 0
		out = append(out, runner.Note{After: int64(u.Line), Text: l.line(text)})
		if stopNow && !l.watching {
			out = append(out, runner.Note{After: int64(u.Line), Text: l.line(verdict.Stopping(t.stop))})
		}
	}
	return out
}

// line is one line for the terminal, with the command's name before it.
func (l *liveLines) line(text string) string {
	if l.label != "" {
		return fmt.Sprintf("%s: %s: %s\n", l.prefix, textutil.Visible(l.label), text)
	}
	return fmt.Sprintf("%s: %s\n", l.prefix, text)
}

// failCount is --fail-on-recompile: given alone it stops at the first compilation after
// warm-up, given =N at the Nth.
type failCount int

func (f *failCount) Decode(ctx *kong.DecodeContext) error {
	if ctx.Scan.Peek().Type != kong.FlagValueToken {
		*f = 1
		return nil
	}
	t, err := ctx.Scan.PopValue("count")
	if err != nil {
		return err
	}
	s := fmt.Sprint(t.Value)
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		return fmt.Errorf("--fail-on-recompile=%s: want a count >= 1", s)
	}
	*f = failCount(n)
	return nil
}

// IsBool lets the flag be given without a value.
func (f *failCount) IsBool() bool { return true }

// withoutUserSite are the units whose log names none of the program's own lines.
func withoutUserSite(units []*ledger.Unit) []*ledger.Unit {
	var out []*ledger.Unit
	for _, u := range units {
		if !u.Site.User() {
			out = append(out, u)
		}
	}
	return out
}
