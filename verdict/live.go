package verdict

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/recomp/recomp/frameworks"
	"github.com/recomp/recomp/internal/textutil"
	"github.com/recomp/recomp/ledger"
)

// Live is what recomp run's and recomp watch's live line says of one compilation after
// warm-up, in the verdict's words: the cause is decided by the same rules the verdict at the
// end applies to the same evidence (the stack's words, the probe's values, the argument
// signatures; the dump is compared only at the end).
type Live struct {
	Program string        // the program's family, as the verdict names it
	Name    string        // the program, a front end's step first ("Keras train step · …")
	Seq     int           // the compilation's number in its process (0 when unknown)
	Site    string        // the program's own line, FILE:LINE (FUNCTION) with FILE its base name ("" none)
	Cost    time.Duration // its compile time
	// Cause is what changed (Kind "" and Change "" when nothing names it); Framework the stack's
	// name, whose words a cause of no kind is.
	Cause     Cause
	Framework string
}

// LiveOf is the live line of the latest of a program's compilations in its process, units (the
// earlier ones first; the caller keeps a bounded window of them), seen after warm-up. before is
// the argument signature of the compilation before it and repeated says its signature compiled
// before; seen are the static arguments of each trace of its function up to it (the probe's; nil
// without it).
func LiveOf(units []*ledger.Unit, before string, repeated bool, seen [][]ledger.StaticArg) Live {
	u := units[len(units)-1]
	l := Live{Program: u.Family, Name: liveName(u), Seq: u.Seq, Site: baseSiteOf(u), Cost: cost(u)}
	if fw := frameworks.ForProducer(u.Producer); fw != nil {
		l.Framework = fw.Name
	}
	if ch := staticChange(seen, repeated); ch != "" {
		l.Cause = Cause{Kind: KindStaticArgument, Change: ch}
		return l
	}
	l.Cause = liveCause(units, before)
	return l
}

// liveCause is the cause the verdict's own tally (causeTally.addUnit, as Build counts each
// compilation) gives the latest of units, on the evidence a live line has: the log's words, the
// argument signatures, the values the units carry; else the signatures before and now.
func liveCause(units []*ledger.Unit, before string) Cause {
	u := units[len(units)-1]
	t := &causeTally{byKey: map[causeKey]*Cause{}}
	again := u.SeenBefore || u.Seq > 1 || u.Seq == 0 && len(units) > 1
	t.addUnit(u, again, "", valueCauses(units, nil), nil)
	if cs := t.list(); len(cs) > 0 {
		c := cs[0]
		c.Count, c.Sites = 0, nil
		return c
	}
	if before != "" && u.Signature != "" && before != u.Signature {
		return Cause{Change: "arguments " + before + " → " + u.Signature, own: true}
	}
	return Cause{}
}

// Sentence is the live line's words, after its mark: "jit_train_step compiled after warm-up
// (compilation 2): batch size, x: f32[32,8] → f32[24,8], at train.py:64 (main), 0.14 s compiling".
func (l Live) Sentence() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s compiled after warm-up", l.Name)
	if l.Seq > 1 {
		fmt.Fprintf(&b, " (compilation %d)", l.Seq)
	}
	if c := l.Cause; c.Change != "" {
		b.WriteString(": " + textutil.Visible(c.Sentence(l.Framework)))
	}
	if l.Site != "" {
		b.WriteString(", at " + textutil.Visible(l.Site))
	}
	if l.Cost > 0 {
		b.WriteString(", " + LiveSeconds(l.Cost) + " compiling")
	}
	return b.String()
}

// StopWhy names the compilation that met recomp run's stop policy (the count-th compilation
// after warm-up, or compile time after warm-up over budget; 0 for none): after warm-up, at the
// program's line. late and lateTime are the compilations after warm-up so far and their time.
func StopWhy(u *ledger.Unit, late int, lateTime time.Duration, count int, budget time.Duration) string {
	what := fmt.Sprintf("%s compiled after warm-up", textutil.Visible(u.Family))
	if s := baseSiteOf(u); s != "" {
		what += " at " + s
	}
	switch {
	case budget > 0 && lateTime > budget:
		return fmt.Sprintf("%s; compile time after warm-up %s passed the budget of %s", what, LiveSeconds(lateTime), budget)
	case count > 1:
		return fmt.Sprintf("%s (compilation %d after warm-up, --fail-on-recompile=%d)", what, late, count)
	}
	return what
}

// LiveHeld says a program's compilations after warm-up that no live line said yet (lines are
// said at most every few seconds a program).
func LiveHeld(name string, n int, d time.Duration) string {
	return fmt.Sprintf("%s compiled %d more time(s) after warm-up since its last line (%s)", name, n, LiveSeconds(d))
}

// LiveMore is what a live line adds of the compilations held since the program's last line.
func LiveMore(n int, since time.Time, d time.Duration) string {
	return fmt.Sprintf("; %d more since %s (%s)", n, since.Format("15:04:05"), LiveSeconds(d))
}

// liveName is how a live line names a compilation's program: a front end's step leads, from the
// probe's call (Keras's evaluate runs its test step) or the stack's explanation of the function it
// traced (Keras on JAX: its trainer's train_step).
func liveName(u *ledger.Unit) string {
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

// baseSiteOf is the program's own line that made it compile, as file:line (function), the file
// named by its base name; "" when the log names none of the program's own.
func baseSiteOf(u *ledger.Unit) string {
	s := u.Site
	if !s.User() {
		return ""
	}
	s.File = filepath.Base(s.File)
	return s.String()
}

// LiveSeconds is a compile time as the live lines say it.
func LiveSeconds(d time.Duration) string {
	switch {
	case d >= time.Minute:
		return d.Round(time.Second).String()
	case d >= 10*time.Second:
		return fmt.Sprintf("%.0f s", d.Seconds())
	}
	return fmt.Sprintf("%.2f s", d.Seconds())
}

// LiveSummary is what a followed log came to when recomp watch ends: its compilations and their
// time, those after warm-up, and the programs compiled again (the first five).
func LiveSummary(rep *ledger.Report) string {
	s := rep.Summary
	out := fmt.Sprintf("%d compilation(s), %s compiling; %d after warm-up (%s)", s.Compilations, LiveSeconds(s.CompileTime), s.AfterWarmup, LiveSeconds(s.LateCompileTime))
	var again []string
	for _, m := range rep.Modules {
		if m.Recompiled && len(again) < 5 {
			again = append(again, fmt.Sprintf("%s %d×", textutil.Visible(m.Family), m.Compilations))
		}
	}
	if len(again) > 0 {
		out += "; compiled again: " + strings.Join(again, ", ")
	}
	return out
}

// Stopping is the live line recomp run says when it stops the command, why being StopWhy's.
func Stopping(why string) string { return "stopping the command: " + why }
