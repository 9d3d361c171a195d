package main

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/alecthomas/kong"

	"github.com/recomp/recomp/diff"
	"github.com/recomp/recomp/explain"
	"github.com/recomp/recomp/frameworks"
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
}

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
			notes = append(notes, runner.Note{Text: l.line(fmt.Sprintf("%s compiled %d more time(s) after warm-up since its last line (%s)",
				name, p.held, seconds(p.heldTime)))})
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
		if !u.AfterWarmup {
			continue
		}
		static := ""
		if l.probe != "" {
			if recs, err := runfolder.ReadProbe(l.probe); err == nil {
				if !u.Site.User() {
					explain.LiveSites([]*ledger.Unit{u.Unit}, recs)
				}
				static = staticChange(explain.LiveStatics(u.Unit, recs), repeated)
			}
		}
		cost := time.Duration(verdict.Cost(u.Unit) * float64(time.Second))
		t := l.tally
		t.late++
		t.lateTime += cost
		stopNow := false
		if t.stop == "" && (t.policy.Count > 0 && t.late >= t.policy.Count || t.policy.Budget > 0 && t.lateTime > t.policy.Budget) {
			t.stop = l.stopWhy(u, cost)
			stopNow = true
		}
		now := l.now()
		if !stopNow && !p.said.IsZero() && now.Sub(p.said) < l.every {
			p.held++
			p.heldTime += cost
			continue
		}
		text := l.describe(u, before, repeated, static, cost)
		p.name = liveName(u)
		if p.held > 0 {
			text += fmt.Sprintf("; %d more since %s (%s)", p.held, p.said.Format("15:04:05"), seconds(p.heldTime))
		}
		p.said, p.held, p.heldTime = now, 0, 0
		out = append(out, runner.Note{After: int64(u.Line), Text: l.line(text)})
		if stopNow && !l.watching {
			out = append(out, runner.Note{After: int64(u.Line), Text: l.line("stopping the command: " + t.stop)})
		}
	}
	return out
}

// stopWhy names the compilation that met the stop policy.
func (l *liveLines) stopWhy(u ledger.LiveUnit, cost time.Duration) string {
	t := l.tally
	what := fmt.Sprintf("%s compiled after warm-up", textutil.Visible(u.Family))
	if s := siteOf(u.Unit); s != "" {
		what += " at " + s
	}
	switch {
	case t.policy.Budget > 0 && t.lateTime > t.policy.Budget:
		return fmt.Sprintf("%s; compile time after warm-up %s passed the budget of %s", what, seconds(t.lateTime), t.policy.Budget)
	case t.policy.Count > 1:
		return fmt.Sprintf("%s (compilation %d after warm-up, --fail-on-recompile=%d)", what, t.late, t.policy.Count)
	}
	return what
}

// liveName is how a live line names a compilation's program: a front end's step leads, from the
// probe's call (Keras's evaluate runs its test step) or the stack's explanation of the function it
// traced (Keras on JAX: its trainer's train_step).
func liveName(u ledger.LiveUnit) string {
	name := textutil.Visible(u.Family)
	via, step, methods := "", "", []string(nil)
	if u.Via != nil {
		via, methods = u.Via.FrontEnd, []string{u.Via.Loop()}
	}
	if f, s := frameworks.FrontStep(u.Producer, u.Module, u.Why); s != "" && (via == "" || via == f.Name) {
		via, step = f.Name, s
	}
	if step == "" {
		step = u.LogStep // the front end's progress lines so far (Keras: the first step compiled in an epoch is fit's train step)
	}
	if via != "" || step != "" {
		if f, role := frameworks.StepRole(via, step, methods); f != nil {
			name = f.Title + " " + role + " · " + name
		}
	}
	return name
}

// describe is a live line: the program, what changed (old → new), the user's line, the compile
// time.
func (l *liveLines) describe(u ledger.LiveUnit, before string, repeated bool, static string, cost time.Duration) string {
	var b strings.Builder
	mark := "✗"
	if l.color {
		mark = "\x1b[1;31m✗\x1b[0m"
	}
	fmt.Fprintf(&b, "%s %s compiled after warm-up", mark, liveName(u))
	if u.Seq > 1 {
		fmt.Fprintf(&b, " (compilation %d)", u.Seq)
	}
	if ch := cmpOr(static, changeOf(u.Unit, before, repeated)); ch != "" {
		b.WriteString(": " + textutil.Visible(ch))
	}
	if s := siteOf(u.Unit); s != "" {
		b.WriteString(", at " + textutil.Visible(s))
	}
	if cost > 0 {
		b.WriteString(", " + seconds(cost) + " compiling")
	}
	return b.String()
}

// line is one line for the terminal, with the command's name before it.
func (l *liveLines) line(text string) string {
	if l.label != "" {
		return fmt.Sprintf("%s: %s: %s\n", l.prefix, textutil.Visible(l.label), text)
	}
	return fmt.Sprintf("%s: %s\n", l.prefix, text)
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// staticChange is what a live line says of the static arguments a compilation's function was
// traced with (seen: those of each of its traces up to it, from the probe): the arguments whose
// value changed since the trace before, as the report at the end names them ("static argument
// `dropout` changed 0.1 → 0.075", the values each took so far, the last ones); where none changed
// but the argument signature compiled before (repeated), the values it compiled under before.
// "" when the probe saw no static argument take another value.
func staticChange(seen [][]ledger.StaticArg, repeated bool) string {
	if len(seen) < 2 {
		return ""
	}
	cur, prev := seen[len(seen)-1], seen[len(seen)-2]
	valueOf := func(args []ledger.StaticArg, name string) (string, bool) {
		for _, a := range args {
			if a.Name == name {
				return ledger.ShortValue(a.Value), true
			}
		}
		return "", false
	}
	units := make([]*ledger.Unit, len(seen))
	for i, args := range seen {
		units[i] = &ledger.Unit{Static: args}
	}
	var changed, other []string
	for _, h := range ledger.StaticHistory(units) {
		now, ok := valueOf(cur, h.Name)
		if !ok || len(h.Values) < 2 {
			continue
		}
		if was, ok := valueOf(prev, h.Name); ok && was != now {
			vs := h.Values
			if i := slices.Index(vs, now); i >= 0 && i == len(vs)-1 { // a new value: the sequence so far
				if len(vs) > 4 {
					vs = append([]string{"…"}, vs[len(vs)-3:]...)
				}
				changed = append(changed, fmt.Sprintf("`%s` changed %s", h.Name, strings.Join(vs, " → ")))
			} else { // back to a value it took before
				changed = append(changed, fmt.Sprintf("`%s` changed %s → %s", h.Name, was, now))
			}
			continue
		}
		before := slices.DeleteFunc(slices.Clone(h.Values), func(v string) bool { return v == now })
		if len(before) > 3 {
			before = append([]string{"…"}, before[len(before)-3:]...)
		}
		other = append(other, fmt.Sprintf("`%s` now %s (the same argument types compiled before with %s)", h.Name, now, strings.Join(before, ", ")))
	}
	word := func(n int) string {
		if n > 1 {
			return "static arguments "
		}
		return "static argument "
	}
	switch {
	case len(changed) > 0:
		return word(len(changed)) + strings.Join(changed, ", ")
	case repeated && len(other) > 0:
		return word(len(other)) + strings.Join(other, ", ")
	}
	return ""
}

// changeOf says what changed, old → new: from the framework's explanation, else from the
// argument signatures it logged. A JAX signature the program had compiled before (repeated) is
// not what its explanation's types say changed: JAX compares with the closest earlier key, not
// the one of these types; what differs is elsewhere in its cache key, most often a static
// argument or another Python value it read at trace time.
func changeOf(u *ledger.Unit, before string, repeated bool) string {
	if ch := verdict.AttributeChange(u.Why); ch != "" {
		return ch // a module's plain attribute, static to its jit (flax nnx), named by JAX's explanation
	}
	if repeated && u.Why != "" && frameworks.BySignature(u.Producer) {
		if kind, _ := verdict.Reason(u.Why); kind == "" || kind == diff.CauseBatchSize || kind == diff.CauseInputShape || kind == diff.CauseDtype {
			return "argument types it compiled before, so not a shape change: most often a static argument or a Python value read at trace time changed"
		}
	}
	if u.Why != "" {
		switch kind, ch := verdict.Reason(u.Why); {
		case ch != "" && kind != "":
			return ch
		case ch != "":
			return "the framework says " + strconv.Quote(ch) // its words, not a change
		}
	}
	if before != "" && u.Signature != "" && before != u.Signature {
		return "arguments " + before + " → " + u.Signature
	}
	return ""
}

// siteOf is the program's own line that made it compile, as file:line (function), the file
// named by its base name.
func siteOf(u *ledger.Unit) string {
	s := u.Site
	if !s.User() {
		return ""
	}
	s.File = filepath.Base(s.File)
	return s.String()
}

// seconds is a compile time as the live lines say it.
func seconds(d time.Duration) string {
	switch {
	case d >= time.Minute:
		return d.Round(time.Second).String()
	case d >= 10*time.Second:
		return fmt.Sprintf("%.0f s", d.Seconds())
	}
	return fmt.Sprintf("%.2f s", d.Seconds())
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
