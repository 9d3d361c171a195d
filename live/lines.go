package live

import (
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/recomp/recomp/explain"
	"github.com/recomp/recomp/internal/textutil"
	"github.com/recomp/recomp/ledger"
	"github.com/recomp/recomp/runfolder"
	"github.com/recomp/recomp/runner"
	"github.com/recomp/recomp/verdict"
)

// Every is how often one program's live line is said at most: the compilations in between
// are summed into its next line (or the last words).
const Every = 10 * time.Second

// maxPrograms bounds the programs whose repeats are followed (ledger.MaxFamilies).
const maxPrograms = ledger.MaxFamilies

// StopPolicy says when a compilation after warm-up stops the run: at the Count-th (0: never),
// or once their compile time passes Budget (0: never).
type StopPolicy struct {
	Count  int
	Budget time.Duration
}

// Tally is what all the live logs of one command saw after warm-up, and why to stop.
type Tally struct {
	late     int
	lateTime time.Duration
	stop     string
	policy   StopPolicy
}

// NewTally counts the compilations after warm-up against policy.
func NewTally(policy StopPolicy) *Tally { return &Tally{policy: policy} }

// Stop says why to stop ("" while the policy is not met).
func (t *Tally) Stop() string { return t.stop }

// Lines says the compilations after warm-up of one log as they happen, from its Live ledger:
// the same ledger, warm-up and counting as the report at the end. It is a runner.Live.
type Lines struct {
	lv     *ledger.Live
	label  string // the log's name, said before each line when several logs are followed ("" none)
	prefix string // "recomp run", "recomp watch"
	color  bool
	now    func() time.Time
	tally  *Tally
	progs  map[string]*program
	// Every is how often one program's lines are said at most (Every; 0: each compilation).
	Every time.Duration
	probe *runfolder.ProbeFollower // the run folder's probe records, which give a line the log does not (nil none)
	// watching: no command to stop (recomp watch says it fails instead)
	watching bool
	// perMode: a compilation for a mode its program had not compiled for is no recompilation
	// (ledger.PerMode), as the report at the end counts it
	perMode bool
	// Said, when set, is given each live line's words as it is said (tests)
	Said func(verdict.Live)
}

// program is one program's repeats since its last live line.
type program struct {
	said      time.Time
	held      int
	heldTime  time.Duration
	signature string // its last compilation's argument signature
	// signatures are the argument signatures it compiled (JAX's name a variant; at most
	// maxSignatures are kept)
	signatures map[string]bool
	name       string // how its last line named it (a front end's step first)
	// units are its latest compilations (at most maxUnits), the evidence its live line's
	// cause is read from as the verdict reads it
	units []*ledger.Unit
	// modes are the modes it compiled for (ledger.Modes)
	modes ledger.Modes
}

// maxUnits bounds the compilations kept per program for its live lines.
const maxUnits = 64

// maxSignatures bounds the signatures kept per program.
const maxSignatures = 1024

// NewLines says the compilations after warm-up of the log opt reads, each line after prefix
// ("recomp run"), in red when color; tally counts them with the other logs of the command.
func NewLines(opt ledger.LiveOptions, prefix string, color bool, tally *Tally) *Lines {
	lv := ledger.NewLive(opt)
	return &Lines{lv: lv, prefix: prefix, color: color, now: time.Now, tally: tally,
		progs: map[string]*program{}, Every: Every, perMode: lv.Options().PerMode()}
}

// FollowProbe reads the probe records of the run folder dir as they are written, for what they
// give a line that the log does not (the program's own line, a function's static arguments).
func (l *Lines) FollowProbe(dir string) { l.probe = runfolder.FollowProbe(dir) }

// Log reads run.log's new lines and says their compilations after warm-up (runner.Live).
func (l *Lines) Log(lines []byte, _ int64) []runner.Note {
	l.lv.Write(lines)
	return l.notes(l.lv.Compiled())
}

// Stop says why to stop the command, once a compilation after warm-up met the policy.
func (l *Lines) Stop() string { return l.tally.stop }

// Close ends the log: the compilations it closed at its end, and the repeats not yet said.
func (l *Lines) Close() (*ledger.Report, []runner.Note) {
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
	if l.probe != nil {
		l.probe.Close()
	}
	return rep, notes
}

// programOf is the program of a compilation, followed from its first (past maxPrograms, a
// program of its own each time: every compilation is said).
func (l *Lines) programOf(family string) *program {
	p := l.progs[family]
	if p == nil {
		p = &program{modes: ledger.Modes{}}
		if len(l.progs) < maxPrograms {
			l.progs[family] = p
		}
	}
	return p
}

// saw keeps a compilation as its program's latest: its signature (and whether the program
// compiled it before), its unit. It returns the signature before it and whether it repeated.
func (p *program) saw(u ledger.LiveUnit) (before string, repeated bool) {
	before = p.signature
	if u.Signature != "" {
		p.signature = u.Signature
		if p.signatures == nil {
			p.signatures = map[string]bool{}
		}
		repeated = p.signatures[u.Signature]
		if len(p.signatures) < maxSignatures {
			p.signatures[u.Signature] = true
		}
	}
	if len(p.units) == maxUnits {
		p.units = slices.Delete(p.units, 0, 1)
	}
	p.units = append(p.units, u.Unit)
	return before, repeated
}

// statics gives a compilation what the probe recorded of it so far (its user's line when the
// log named none, its function's static arguments), as the report at the end joins them.
func (l *Lines) statics(u *ledger.Unit, window []*ledger.Unit) [][]ledger.StaticArg {
	if l.probe == nil {
		return nil
	}
	recs, err := l.probe.Records()
	if err != nil {
		return nil
	}
	// the window's earlier compilations too: a value's first trace is the warm-up's
	explain.LiveSites(withoutUserSite(window), recs)
	explain.LiveCompiles(window, recs)
	return explain.LiveStatics(u, recs)
}

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

// count adds a compilation after warm-up to the tally and says whether it met the stop policy
// now.
func (t *Tally) count(u *ledger.Unit, cost time.Duration) bool {
	t.late++
	t.lateTime += cost
	if t.stop == "" && (t.policy.Count > 0 && t.late >= t.policy.Count || t.policy.Budget > 0 && t.lateTime > t.policy.Budget) {
		t.stop = verdict.StopWhy(u, t.late, t.lateTime, t.policy.Count, t.policy.Budget)
		return true
	}
	return false
}

func (l *Lines) notes(units []ledger.LiveUnit) []runner.Note {
	var out []runner.Note
	for _, u := range units {
		p := l.programOf(u.Family)
		before, repeated := p.saw(u)
		if l.perMode && u.Seq > 1 && p.modes.New(u.Unit) {
			continue // compiled for a mode it had not run in (ledger.PerMode): no recompilation
		}
		if !u.AfterWarmup {
			continue
		}
		said := verdict.LiveOf(p.units, before, repeated, l.statics(u.Unit, p.units))
		stopNow := l.tally.count(u.Unit, said.Cost)
		now := l.now()
		if !stopNow && !p.said.IsZero() && now.Sub(p.said) < l.Every {
			p.held++
			p.heldTime += said.Cost
			continue
		}
		out = append(out, runner.Note{After: int64(u.Line), Text: l.line(l.sentence(p, said, now))})
		if stopNow && !l.watching {
			out = append(out, runner.Note{After: int64(u.Line), Text: l.line(verdict.Stopping(l.tally.stop))})
		}
	}
	return out
}

// sentence is a live line's text, the repeats held since the program's last line summed into
// it; the program is said now.
func (l *Lines) sentence(p *program, said verdict.Live, now time.Time) string {
	mark := "✗"
	if l.color {
		mark = "\x1b[1;31m✗\x1b[0m"
	}
	text := mark + " " + said.Sentence()
	p.name = said.Name
	if l.Said != nil {
		l.Said(said)
	}
	if p.held > 0 {
		text += verdict.LiveMore(p.held, p.said, p.heldTime)
	}
	p.said, p.held, p.heldTime = now, 0, 0
	return text
}

// line is one line for the terminal, with the command's name before it.
func (l *Lines) line(text string) string {
	if l.label != "" {
		return fmt.Sprintf("%s: %s: %s\n", l.prefix, textutil.Visible(l.label), text)
	}
	return fmt.Sprintf("%s: %s\n", l.prefix, text)
}
