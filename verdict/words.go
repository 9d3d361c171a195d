package verdict

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/recomp/recomp/frameworks"
	"github.com/recomp/recomp/internal/textutil"
	"github.com/recomp/recomp/ledger"
)

// This file is the one home of the sentences recomp says about a run's compilations: the
// headline of what compiling cost, each program's line (how often, what it cost, the causes
// with old → new, whether it recurs) and each cause's words. The reports (text, Markdown,
// HTML, JSON) and the live lines lay them out; none composes its own.

// Headline is the headline of what compiling cost, in the spirit of Julia's @time.
func (v *Result) Headline() string {
	if v == nil || v.Compile <= 0 {
		return ""
	}
	var b strings.Builder
	switch {
	case v.Processes > 1:
		// A job: the sum is no one process's time; the job waited for its slowest process.
		fmt.Fprintf(&b, "%d processes: %s compiling in all; the slowest, %s, %s", v.Processes, ledger.FormatDuration(v.Compile), cmp.Or(v.SlowestName, v.SlowestProcess), ledger.FormatDuration(v.Slowest))
		switch {
		case v.Wall > 0:
			fmt.Fprintf(&b, " (%s of the run's %s)", percent(v.Slowest.Seconds()/v.Wall.Seconds()), ledger.FormatDuration(v.Wall))
		case v.WallExceeded > 0:
			fmt.Fprintf(&b, ", more than the run's %s: its times are not all this run's", ledger.FormatDuration(v.WallExceeded))
		}
	case v.Wall > 0:
		fmt.Fprintf(&b, "%s of the run compiling (%s of %s)", percent(v.Compile.Seconds()/v.Wall.Seconds()), ledger.FormatDuration(v.Compile), ledger.FormatDuration(v.Wall))
	case v.WallExceeded > 0:
		fmt.Fprintf(&b, "%s compiling by the log, more than the run's %s: its times are not all this run's", ledger.FormatDuration(v.Compile), ledger.FormatDuration(v.WallExceeded))
	default:
		fmt.Fprintf(&b, "%s compiling", ledger.FormatDuration(v.Compile))
	}
	sep := ", "
	if v.Processes > 1 {
		sep = "; "
	}
	fmt.Fprintf(&b, "%s%s of it compiling again", sep, percent(v.Recompile.Seconds()/v.Compile.Seconds()))
	if v.Late > 0 {
		fmt.Fprintf(&b, "; %s after warm-up", ledger.FormatDuration(v.Late))
	}
	return b.String()
}

func percent(f float64) string {
	switch {
	case f <= 0:
		return "0%"
	case f < 0.01:
		return "<1%"
	}
	return fmt.Sprintf("%.0f%%", 100*f)
}

// Title names a program that compiled again: the step a front end compiled first, as a user
// knows it ("Keras predict step"), then the name the stack gave it.
func (v Verdict) Title() string {
	if f := frameworks.FrontEnd(v.FrontEnd); f != nil && v.Role != "" {
		return f.Title + " " + v.Role + " · " + textutil.Shorten(v.Program, 80)
	}
	return textutil.Shorten(v.Program, 80)
}

// Sentence is a program that compiled again in one line: how often, the time and share, the
// causes with old → new, counts and the user's lines.
func (v Verdict) Sentence() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s compiled %d× (", v.Title(), v.Compilations)
	if v.Processes > 1 {
		fmt.Fprintf(&b, "in %d processes, at most %d× in one; ", v.Processes, v.MostInOne)
	}
	b.WriteString(v.perMode())
	if v.AfterWarmup > 0 {
		fmt.Fprintf(&b, "%d after warm-up, ", v.AfterWarmup)
	}
	b.WriteString(ledger.FormatDuration(v.Time))
	if v.Share > 0 {
		fmt.Fprintf(&b, " = %s of the run", percent(v.Share))
	}
	b.WriteString(")")
	for i, c := range v.Causes {
		if i == 3 {
			fmt.Fprintf(&b, "; %d more causes", len(v.Causes)-i)
			break
		}
		if i == 0 {
			b.WriteString(": ")
		} else {
			b.WriteString("; ")
		}
		b.WriteString(c.Sentence(v.Framework))
	}
	b.WriteString(v.modesSaid())
	b.WriteString(v.recurrence())
	return b.String()
}

// perMode says how many of a program's compilations were once per mode: "1 once per mode, " (""
// for none); modesSaid what for, after its causes.
func (v Verdict) perMode() string {
	if v.OncePerMode == 0 {
		return ""
	}
	return fmt.Sprintf("%d once per mode, ", v.OncePerMode)
}

// modesSaid is what a program's compilations once per mode were for, after its causes: "; once
// per mode, not a recompilation: global state changed: grad mode" ("" for none).
func (v Verdict) modesSaid() string {
	if v.OncePerMode == 0 || len(v.Modes) == 0 {
		return ""
	}
	return "; once per mode, not a recompilation: " + strings.Join(v.Modes, "; ")
}

// recurrence says whether a program's compilations recur (the same variant compiled again) or
// were paid once per new variant (3 or more, each compiled once); "" otherwise.
func (v Verdict) recurrence() string {
	if v.Compilations == 0 {
		return ""
	}
	each := ledger.FormatDuration(v.Time / time.Duration(v.Compilations))
	if c := v.Cadence; c != nil && c.EveryEpoch > 0 {
		return v.everyEpoch(c)
	}
	if c := v.Cadence; c != nil && c.Every > 0 {
		s := fmt.Sprintf("; recurs every %s (compiled at %s of %d): ≈ %s every %s", textutil.Plural(c.Every, "step", "steps"), stepList(c.Steps), c.Of, each, textutil.Plural(c.Every, "step", "steps"))
		if c.Every == 1 {
			s = fmt.Sprintf("; recurs every step (compiled in each of the last %d of %d steps): ≈ %s a step", len(c.Steps), c.Of, each)
		}
		if v.Repeated > 0 {
			s += fmt.Sprintf(", the same %s compiled again %d×", v.variantNoun(), v.Repeated)
		}
		return s
	}
	if c := v.Cadence; c != nil && c.QuietEpochs > 0 {
		return v.quietEpochs(c, each)
	}
	if c := v.Cadence; c != nil && c.Quiet > 0 {
		what := ""
		if v.Variants > 1 && v.Repeated == 0 {
			what = fmt.Sprintf("%s, ", v.variantsOf())
		}
		if k := c.Epochs; len(k) > 0 && k[0] > 0 && k[0] == k[len(k)-1] && c.EpochsOf > k[0] {
			what += fmt.Sprintf("all in epoch %d of %d, ", k[0], c.EpochsOf)
		}
		return fmt.Sprintf("; paid once: %scompiled at %s of %d (≈ %s each), none in the %s after", what, stepList(c.Steps), c.Of, each, textutil.Plural(c.Quiet, "step", "steps"))
	}
	switch {
	case v.Repeated > 0:
		return fmt.Sprintf("; recurring: the same %s compiled again %d×, ≈ %s each time it recurs", v.variantNoun(), v.Repeated, each)
	case v.Variants-v.OncePerMode > 2: // a mode's graph is said once per mode
		return fmt.Sprintf("; once per new variant: %s, each compiled once (≈ %s each)", v.variantsOf(), each)
	}
	return ""
}

// everyEpoch says a program recurs every epoch, with the compile time of an epoch.
func (v Verdict) everyEpoch(c *Cadence) string {
	first := c.Epochs[0]
	in := fmt.Sprintf("epochs %d–%d", first, c.EpochsOf)
	if c.EpochsOf-first == 1 {
		in = fmt.Sprintf("epochs %d and %d", first, c.EpochsOf)
	}
	cost := c.EpochCost
	if cost == 0 {
		cost = v.Time / time.Duration(v.Compilations) * time.Duration(c.EveryEpoch)
	}
	what := "every epoch"
	if c.EpochFrom > first {
		what += fmt.Sprintf(" from epoch %d", c.EpochFrom)
	}
	if c.EveryEpoch > 1 {
		what += fmt.Sprintf(", %d× an epoch", c.EveryEpoch)
	}
	at := ""
	if len(c.Steps) > 0 {
		at = fmt.Sprintf(", at %s of %d", stepList(c.Steps), c.Of)
	}
	s := fmt.Sprintf("; recurs %s (compiled in %s of %d%s): ≈ %s an epoch", what, in, c.EpochsOf, at, ledger.FormatDuration(cost))
	if v.Repeated > 0 {
		s += fmt.Sprintf(", the same %s compiled again %d×", v.variantNoun(), v.Repeated)
	}
	return s
}

// quietEpochs says a program was paid once, by epochs where the log marks no steps (Keras's
// "Epoch i/n" lines): "paid once: compiled in epoch 1 of 3 (≈ 1s each), none in the 2 epochs after".
func (v Verdict) quietEpochs(c *Cadence, each string) string {
	what := ""
	if v.Variants > 1 && v.Repeated == 0 {
		what = fmt.Sprintf("%s, ", v.variantsOf())
	}
	first, last := c.Epochs[0], c.Epochs[len(c.Epochs)-1]
	in := fmt.Sprintf("epoch %d", first)
	switch {
	case last == first+1:
		in = fmt.Sprintf("epochs %d and %d", first, last)
	case last > first:
		in = fmt.Sprintf("epochs %d–%d", first, last)
	}
	after := fmt.Sprintf("%d epochs", c.QuietEpochs)
	if c.QuietEpochs == 1 {
		after = "epoch"
	}
	return fmt.Sprintf("; paid once: %scompiled in %s of %d (≈ %s each), none in the %s after", what, in, c.EpochsOf, each, after)
}

// stepList names the steps a program compiled at: "steps 1, 5, 9", or a range for a run of them.
func stepList(steps []int) string {
	run := true
	for i := 1; i < len(steps); i++ {
		run = run && steps[i] == steps[i-1]+1
	}
	if run && len(steps) > 2 {
		return fmt.Sprintf("steps %d–%d", steps[0], steps[len(steps)-1])
	}
	if len(steps) > 6 {
		return fmt.Sprintf("%d steps from %d to %d", len(steps), steps[0], steps[len(steps)-1])
	}
	var b strings.Builder
	for i, n := range steps {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Itoa(n))
	}
	if len(steps) == 1 {
		return "step " + b.String()
	}
	return "steps " + b.String()
}

// variantWord is what tells a program's variants apart in its stack's log: the argument
// signature where the stack keys its compilations by it (JAX), else the graph hash.
func variantWord(framework string) string {
	if frameworks.NamedBySignature(framework) {
		return "argument signature"
	}
	return "graph"
}

// variantNoun is what one of a verdict's variants is: with the probe's static values, JAX's
// argument signature with them (verdict's variants key takes them in), not the signature alone.
func (v Verdict) variantNoun() string {
	for _, c := range v.Causes {
		if c.Kind == KindStaticArgument && len(c.Values) > 0 {
			return "variant (argument signature and static values)"
		}
	}
	return variantWord(v.Framework)
}

// variantsOf is the count of a verdict's variants in words: "8 argument signatures", "8 variants
// (argument signature and static values)".
func (v Verdict) variantsOf() string {
	noun := v.variantNoun()
	if i := strings.Index(noun, " ("); i >= 0 {
		return fmt.Sprintf("%d %ss%s", v.Variants, noun[:i], noun[i:])
	}
	return fmt.Sprintf("%d %ss", v.Variants, noun)
}

// Sentence is one cause: its kind in words (or whose words it is), what changed old → new, how
// often, where.
func (c Cause) Sentence(framework string) string {
	s := textutil.Shorten(c.Change, 120)
	if c.Kind == "" && framework != "" && !c.own {
		s = framework + " said: " + s
	}
	// "the batch took 4 sizes", "static argument `step` changed …" say their kind, and so does
	// a change that names the values it took by their argument ("static attribute
	// `temperature` changed …", a tf.function's "Python argument `unroll` changed …": each
	// stack's words for a static argument)
	if w := KindWords(string(c.Kind)); w != "" && !c.grows && !strings.Contains(s, " took ") && !strings.Contains(strings.ToLower(s), w) &&
		!c.namesArguments() {
		if strings.Contains(s, ":") || s == "" {
			s = strings.TrimSuffix(w+", "+s, ", ")
		} else {
			s = w + " " + s
		}
	}
	s += c.madeAt()
	if c.Said != "" {
		s += fmt.Sprintf(" (%s said: %s)", cmp.Or(c.SaidBy, cmp.Or(framework, "the framework")), textutil.Shorten(c.Said, 160))
	}
	return s + c.countAndSites()
}

// madeAt says the line of the program whose op took the value, beside the lines that called
// it, where the change does not say it already: " (baked into the graph at loss.py:12)".
func (c Cause) madeAt() string {
	if c.Source == "" || strings.Contains(c.Change, c.Source) {
		return ""
	}
	return " (baked into the graph at " + c.Source + ")"
}

// countAndSites says in how many compilations a cause was seen (where more than one) and at which
// lines: ", the cause of 6 recompilations at train.py:29" (a recompilation is each compilation of
// the program after its first, so 4 batch sizes are the cause of 3). The count is a phrase of its own, not "(×6)",
// which read as a second multiplier beside a change's own "×2 with the batch sizes".
func (c Cause) countAndSites() string {
	s := ""
	if c.Count > 1 {
		s = fmt.Sprintf(", the cause of %d recompilations", c.Count)
	}
	if len(c.Sites) > 0 {
		s += " at " + strings.Join(c.Sites, ", ")
	}
	return s
}

// Summary is what changed, old → new, with how often and where.
func (c Cause) Summary() string { return c.Change + c.madeAt() + c.countAndSites() }

// namesArguments says whether a static argument's cause names the arguments whose values it
// lists: its change then says what they are, in the stack's words.
func (c Cause) namesArguments() bool {
	return c.Kind == KindStaticArgument && slices.ContainsFunc(c.Values, func(v Values) bool { return v.Name != "" })
}

// KindWords is a cause kind as words.
func KindWords(kind string) string { return strings.ReplaceAll(kind, "_", " ") }

// CostLine is a program's count and cost for its card: "compiled 3× (2 after warm-up), 1.2s =
// 14% of the run; 800ms after warm-up · jax".
func (v Verdict) CostLine() string {
	line := fmt.Sprintf("compiled %d× (%s%d after warm-up), %s", v.Compilations, v.perMode(), v.AfterWarmup, ledger.FormatDuration(v.Time))
	if v.Share > 0 {
		line += fmt.Sprintf(" = %s of the run", percent(v.Share))
	}
	if v.LateTime > 0 {
		line += fmt.Sprintf("; %s after warm-up", ledger.FormatDuration(v.LateTime))
	}
	if v.Framework != "" {
		line += " · " + v.Framework
	}
	return line
}

// Label is a cause's kind as a card heads it, in the words the rest of the answer uses (the
// "Your lines" table's top cause): the kind in words, the stack's own word for a static
// argument (a tf.function's "Python argument"), whose reason it is in recomp's words (a stack's
// analysis or warning said beside it), or whose words the cause is.
func (c Cause) Label(framework string) string {
	if c.Kind == "" && c.own && c.Said != "" { // the stack's reason in recomp's words (its own beside them)
		return cmp.Or(framework, "the framework") + "'s reason"
	}
	if c.Kind == "" {
		return cmp.Or(framework, "framework") + " said"
	}
	if c.grows {
		return "growing buffer"
	}
	if fw := frameworks.ByName(framework); c.Kind == KindStaticArgument && fw != nil && fw.Static != nil {
		return fw.Static.Word
	}
	return KindWords(string(c.Kind))
}

// Sentence is the sizes a dimension took, in one line.
func (s *Sizes) Sentence() string {
	return fmt.Sprintf("%s took the sizes %s (%s)", s.What, textutil.IntList(s.Seen, 16), cmp.Or(s.Pattern, "varied"))
}

// Distinct is the number of distinct sizes seen.
func (s *Sizes) Distinct() int { return len(distinctInts(s.Seen)) }

// Note says what the sizes to pad to are compared on.
func (s *Sizes) Note() string {
	note := fmt.Sprintf("%s took %d sizes (%s): %s; padding is in %% of the real elements", s.What, s.Distinct(),
		cmp.Or(s.Pattern, "varied"), textutil.IntList(distinctInts(s.Seen), 24))
	if !s.Counted {
		note += "; each size counts once (the log names compilations, not how many batches had each size)"
	}
	return note
}

func distinctInts(xs []int) []int {
	out := slices.Clone(xs)
	slices.Sort(out)
	return slices.Compact(out)
}
