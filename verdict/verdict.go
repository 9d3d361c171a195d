package verdict

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/recomp/recomp/diff"
	"github.com/recomp/recomp/frameworks"
	"github.com/recomp/recomp/frameworks/cause"
	"github.com/recomp/recomp/frameworks/framework"
	"github.com/recomp/recomp/internal/lazyre"
	"github.com/recomp/recomp/ledger"
	"github.com/recomp/recomp/padding"
)

// Input is what a verdict is made of.
type Input struct {
	Ledger *ledger.Report
	// Wall is the run's wall time (0 when unknown): shares are of it.
	Wall time.Duration
	// Explained are the dump's comparisons, each linked with the log's compilation of its later
	// module when the log names it (nil without a dump).
	Explained []Explained
	// Dumped says the run dumped its HLO (recomp run, explain): then no advice says to dump it.
	Dumped bool
	// UserName is the name the user gave a process's log (its run folder for a run.log), asked
	// once for the slowest process (nil: the log's path).
	UserName func(log string) string
}

// Explained is one comparison of a program's versions in a dump.
type Explained struct {
	Program string       // the program the comparison belongs to (explain's key)
	Unit    *ledger.Unit // the log's compilation of the later version (nil when not linked)
	Causes  []diff.Cause // ranked, first is the main cause
	// Role is what the later version's graph does among programs that share a name (Keras's
	// "train step", "test step", "predict step": frameworks.Role); "" when it does not say.
	Role string
	// Earlier is the log's compilation of the earlier version it was compared with (nil when not
	// linked), and EarlierRole what that version's graph does: the step's first compilation
	// has a role too (Keras's test step first compiled for fit's validation, then for evaluate).
	Earlier     *ledger.Unit
	EarlierRole string
	// Inference says the later version's graph computes no gradient (diff.DumpFile.Inference).
	Inference bool
}

// Result is the verdict of a run.
type Result struct {
	// Wall is the run's time; Compile all compile time (tracing, lowering and the compiler's);
	// Recompile the part of it beyond each program's first compilation; Late the part after
	// warm-up.
	Wall, Compile, Recompile, Late time.Duration
	// WallExceeded is the run's wall time when the log's compile time exceeds it (then Wall is
	// 0 and no share is stated: the log's times are not all this run's).
	WallExceeded time.Duration
	// Processes counts the processes the logs hold (the ranks of a job, runs read together).
	// With more than one, Compile and Recompile are sums over them, not one process's time:
	// Slowest is the compile time of the process that compiled longest, what a job whose ranks
	// meet at each step waits for (its critical path), SlowestProcess names it, and Wall is held
	// against Slowest.
	Processes      int
	Slowest        time.Duration
	SlowestProcess string
	SlowestName    string // SlowestProcess as the user named it (Input.UserName)
	// Verdicts are the programs that compiled again, the costliest first.
	Verdicts []Verdict
	// Sites are the user's lines that made programs compile, the costliest first;
	// Unattributed is the compile time of compilations no line is known for.
	Sites        []SiteRow
	Unattributed time.Duration
}

// Verdict is one program that compiled again.
type Verdict struct {
	Program string // the family (or program) as reports name it
	// Role is the step a front end compiled, as a user reads it first (Keras's "train step",
	// "test step (evaluate)", "predict step"), and FrontEnd the front end's name ("keras"); "" when
	// nothing says.
	Role, FrontEnd string
	Framework      string // the stack's name ("" when unknown)
	// Data is the kind of dataset the front end's calls fed it ("tf.data": its remedies are
	// tf.data's, whatever the stack), "" for arrays or when no probe saw the calls.
	Data string
	// Inference says every dumped version compared computes no gradient, or the probe saw
	// autograd off in every step that compiled it (an evaluation, scoring or predict loop), or in
	// every one that compiled it again (noGradAgain): its remedies never drop data
	// (framework.Advice.Inference).
	Inference bool
	// Compilations counts its compilations, AfterWarmup those after warm-up; Seconds is their
	// compile time (tracing, lowering and the compiler's), LateSeconds the part after warm-up.
	Compilations, AfterWarmup int
	Time, LateTime            time.Duration
	// OncePerMode counts its compilations for a mode it had not compiled for (ledger.PerMode: no
	// recompilation), Modes the changes of mode they were for, as the stack said them.
	OncePerMode int
	Modes       []string
	// Processes counts the processes that compiled it (the ranks of a job); MostInOne is the
	// most compilations of it in one process (by the ledger's count per process).
	Processes, MostInOne int
	// Share is Time in the run's wall time (0 when unknown).
	Share float64
	// Causes say why, the most frequent first.
	Causes []Cause
	// Sizes proposes the sizes to pad to, when one dimension varied.
	Sizes *Sizes
	// Action is what to do, in one line.
	Action string
	// Variants counts the distinct variants compiled (by graph hash, else JAX's argument signature; 0
	// when the log names neither), Repeated the compilations of a variant compiled before in
	// the same process: with none, each variant was paid once (a new shape, then reused); with
	// some, the same thing compiles again and recurs.
	Variants, Repeated int
	// Cadence says when its compilations happened in the run's steps (nil when the log counts no
	// steps, or the logs are of several processes).
	Cadence *Cadence
}

// Cadence is when a program compiled, by the steps of its process: at a steady interval to the
// end of the run (it recurs, and will again while the run goes on), or all early with the rest of
// the run compiling nothing (paid once).
type Cadence struct {
	// Steps are the steps it compiled in (1 for the first), in order; Of the steps the process ran.
	Steps []int
	Of    int
	// Every is the interval, when it compiled every Every steps from its first compilation to the
	// end of the run (3 compilations or more); 0 otherwise.
	Every int
	// Quiet is the steps after its last compilation, when they are more than any interval
	// between its compilations: it was paid once; 0 otherwise.
	Quiet int
	// Epochs are the epoch each compilation was in (1 for the first; 0 before the first), and
	// EpochsOf the epochs the process began, where something marked them (ledger.Process.Epochs);
	// nil and 0 otherwise.
	Epochs   []int
	EpochsOf int
	// EveryEpoch is, when it compiled as many times in every epoch from EpochFrom to the last (2
	// epochs or more), that number: it recurs every epoch; 0 otherwise. EpochFrom is its first
	// compilation's epoch, or the next when that one compiled more (the first graph and state set
	// up in it besides: then 2 epochs or more after it). EpochCost is the compile time of an
	// epoch from EpochFrom on, on average.
	EveryEpoch int
	EpochFrom  int
	EpochCost  time.Duration
	// QuietEpochs is, where the log marks epochs but not steps (Steps nil), the epochs after its
	// last compilation's when it does not recur every epoch: it was paid once; 0 otherwise.
	QuietEpochs int
}

// Cause is one reason a program compiled again, and how often it was the reason.
type Cause struct {
	Kind   cause.Kind // a kind two dumps show, one only the framework's words show, or "" when they name none
	Change string     // what changed, old → new
	Count  int
	Sites  []string // the user's lines where it happened
	// Once says the cause is expected once in a run (diff.Cause.Once): state the first step
	// built. It is listed after the causes that recur, with its own advice.
	Once bool
	// Numbers are, for a number baked into the graph that changed from compilation to
	// compilation (one constant, the comparisons' only cause), its values in the order they
	// compiled; Source the line of the op that took it (the dump's op metadata, FILE:LINE with
	// FILE its base name; "" when the dump names none). Nil and "" otherwise. JSON gives them
	// as values[0] with no name. Source is also, for a Python value the dumps show baked in
	// (Values with no name), the line whose op took it.
	Numbers []string
	Source  string
	// Said is the framework's own words that name the cause, when the cause is a construct only
	// they show (a static argument, a pytree change).
	Said string
	// Advice is what to do about this cause, as the verdict's Action says it (Action joins the
	// first two causes' advice); "" for a cause past those two.
	Advice string
	// SaidBy names who said it when not the stack itself (dynamo, torch.compile's tracer).
	SaidBy string
	// Values are the values a Python value read at trace time took, in order, when the cause is
	// one (static_argument from the probe: each argument that changed; python_value: the
	// constants the dump shows, with no name); nil otherwise.
	Values []Values
	advice string // the comparison's own advice for a cause expected once, or the stack's for the construct it names
	// unsourced: the dump's ops carried no source lines (diff.Cause.Unsourced)
	unsourced bool
	// grows: the varying dimension is a buffer that grew at every compilation (Sizes.Grows), named as
	// such in the answer rather than by its kind's words
	grows bool
	// own: Change is recomp's reading of the log (the argument signatures before and now), not
	// the stack's words
	own bool
}

// Values are the values one Python value took: a static argument's (Name) or a constant's (no
// name), as the program's language or the dump printed them.
type Values struct {
	Name string
	Seen []string
}

// Sizes is the padding proposal for a dimension that varied.
type Sizes struct {
	// What names the dimension ("batch", "x dimension 1").
	What string
	// Seen are the sizes compiled, in order; Pattern how they vary (padding.Pattern, or "calls":
	// the batch sizes a front end's calls were given).
	Seen    []int
	Pattern string
	// Plans are the bucket sets compared; Best indexes the one recommended (-1 none).
	Plans []padding.Plan
	Best  int
	// Counted says the sizes are weighted by how often each was fed; otherwise each size seen
	// counts once (the log names compilations, not steps).
	Counted bool
	// Samples is the number of samples a front end's call on arrays was given, when its batch
	// size and last batch are the ones compiled (a Keras fit's remainder); BatchSizes the batch
	// sizes near the one used that divide it, so that no pass ends with a smaller batch.
	Samples    int
	BatchSizes []int
	// Grows is, when the dimension grew by the same number of rows at every compilation (3 or
	// more: padding.GrowsByStep over Seen), that number: a buffer the loop appends to and calls
	// the step with again (a generation loop's key/value cache), which wants preallocating, not
	// padding to buckets. With a dump, every comparison must show the earlier version returned
	// the input the later one was given (diff.Cause.FedBack: fedBack); without one, each size
	// compiled once and, where the log counts steps, one compilation per step. 0 otherwise.
	Grows   int
	fedBack bool
}

// SiteRow is one user's line and what its calls cost in compilations.
type SiteRow struct {
	Site                      string
	Compilations, AfterWarmup int
	Time                      time.Duration
	TopCause                  cause.Kind
	Example                   string // an old → new of the top cause
	causes                    []siteCause
	static                    string // the stack's word for a static argument ("Python argument")
	words                     string // the top cause's words where the kind's own would mislead (a growing buffer)
}

// TopWords is the line's top cause in words: the stack's own for a static argument (a
// tf.function's "Python argument"), as the verdict says it.
func (row SiteRow) TopWords() string {
	if row.words != "" {
		return row.words
	}
	if row.TopCause == KindStaticArgument && row.static != "" {
		return row.static
	}
	return KindWords(string(row.TopCause))
}

// siteCause is one cause of a line's compilations and how many it explains.
type siteCause struct {
	kind    cause.Kind
	example string
	once    bool // expected once (diff.Cause.Once)
	n       int
}

// count counts one compilation of the line to a cause.
func (row *SiteRow) count(kind cause.Kind, example string, once bool) {
	for i := range row.causes {
		if c := &row.causes[i]; c.kind == kind && (kind != "" || c.example == example) {
			c.n++
			return
		}
	}
	row.causes = append(row.causes, siteCause{kind, example, once, 1})
}

// countUnit counts one compilation of the line to its cause, if it has one; a compilation once
// per mode has none (no recompilation).
func (row *SiteRow) countUnit(u *ledger.Unit, again bool, values map[*ledger.Unit]valueCause, byUnit map[*ledger.Unit][]diff.Cause) {
	kind, ex, once, ok := unitCause(u, again, values, byUnit)
	if !ok || u.Settled == ledger.PerMode {
		return
	}
	row.count(kind, ex, once)
	if kind == KindStaticArgument {
		row.static = staticWords(u).Word
	}
}

// settle names the line's top cause: the one that explains the most of its compilations, a cause
// that recurs before one expected once, a named kind before the framework's bare words, the first
// met on a tie; its example is the first met of that kind.
func (row *SiteRow) settle() {
	best := -1
	rank := func(c siteCause) [3]int { return [3]int{boolInt(!c.once), boolInt(c.kind != ""), c.n} }
	for i, c := range row.causes {
		if best < 0 || cmpRank(rank(c), rank(row.causes[best])) > 0 {
			best = i
		}
	}
	if best >= 0 {
		row.TopCause, row.Example = row.causes[best].kind, row.causes[best].example
	}
	row.causes = nil
}

func cmpRank(a, b [3]int) int {
	for i := range a {
		if c := cmp.Compare(a[i], b[i]); c != 0 {
			return c
		}
	}
	return 0
}

// unitCause is the cause one compilation gives its line: a Python value read at trace time, the
// construct the framework names, the dump's main cause, or the framework's words; ok is false
// when none is known.
func unitCause(u *ledger.Unit, again bool, values map[*ledger.Unit]valueCause, byUnit map[*ledger.Unit][]diff.Cause) (kind cause.Kind, example string, once, ok bool) {
	if vc, found := values[u]; found && again {
		return vc.kind, vc.short, false, true
	}
	if kind, ch, _, named := constructCause(u); named && again && (len(byUnit[u]) == 0 || overrides(kind, byUnit[u][0].Kind)) {
		return kind, ch, false, true
	}
	if cs := byUnit[u]; len(cs) > 0 {
		return cs[0].Kind, change(cs[0]), cs[0].Once, true
	}
	if u.Why != "" && again {
		kind, ch := reasonCause(u)
		return kind, ch, false, true
	}
	return "", "", false, false
}

// cost is what a compilation cost: the stages before the compiler's and the compiler's own.
func cost(u *ledger.Unit) time.Duration { return u.Duration + u.TraceTime + u.LowerTime }

// compiledAgain says whether a compilation is its program's again in its own process: by the
// ledger's count per process (Unit.Seq), else by seq, the count of the program's compilations
// met so far. A first compilation in each of many processes is not a recompilation.
func compiledAgain(u *ledger.Unit, seq map[string]int) bool {
	seq[u.Program]++
	if u.SeenBefore {
		return true
	}
	if u.Seq > 0 {
		return u.Seq > 1
	}
	return seq[u.Program] > 1
}

// critical is the compile time the run's wall time is held against: one process's whole, the
// slowest process's of many.
func (r *Result) critical() time.Duration {
	if r.Processes > 1 {
		return r.Slowest
	}
	return r.Compile
}

// Build makes the verdict of a run.
func Build(in Input) *Result {
	r := &Result{Wall: in.Wall}
	rep := in.Ledger
	if rep == nil {
		return r
	}
	byUnit, byProgram, roles := indexExplained(in.Explained)
	r.Processes = len(rep.Procs)
	for _, p := range rep.Procs {
		if p.Cost > r.Slowest {
			r.Slowest, r.SlowestProcess = p.Cost, p.Name
		}
	}
	if r.SlowestName = r.SlowestProcess; in.UserName != nil && r.Processes > 1 {
		r.SlowestName = in.UserName(r.SlowestProcess)
	}
	sites := map[string]*SiteRow{}
	for _, m := range rep.Modules {
		compiled := m.Compiled()
		values := valueCauses(compiled, byUnit)
		seq := map[string]int{}
		for _, u := range compiled {
			c := cost(u)
			r.Compile += c
			// set-up that settled and eager one-op programs are not compiling again
			again := compiledAgain(u, seq)
			if again && !u.Eager && u.Settled == "" {
				r.Recompile += c
			}
			if u.AfterWarmup {
				r.Late += c
			}
			s := u.Site.String()
			if s == "" || !u.Site.User() {
				r.Unattributed += c
				continue
			}
			row := sites[s]
			if row == nil {
				row = &SiteRow{Site: s}
				sites[s] = row
			}
			row.Compilations++
			row.Time += c
			if u.AfterWarmup {
				row.AfterWarmup++
			}
			row.countUnit(u, again, values, byUnit)
		}
		if m.Recompiled && !m.Eager {
			r.Verdicts = append(r.Verdicts, verdictOf(m, compiled, byUnit, byProgram[m.Family], roles, in))
		}
	}
	if r.Processes > 1 {
		// A sum over processes is no share of one run's time: only the slowest process's is.
		for i := range r.Verdicts {
			r.Verdicts[i].Share = 0
		}
	}
	if r.Wall > 0 && r.critical() > r.Wall+r.Wall/50 {
		// The log claims more compile time than the run lasted: its times are not all this
		// run's (a log appended to, lines replayed), so no share of the run is stated.
		r.WallExceeded, r.Wall = r.Wall, 0
		for i := range r.Verdicts {
			r.Verdicts[i].Share = 0
		}
	}
	r.Sites = append(r.Sites, settleSites(sites, r.Verdicts)...)
	slices.SortFunc(r.Sites, func(a, b SiteRow) int { return cmp.Or(cmp.Compare(b.Time, a.Time), cmp.Compare(a.Site, b.Site)) })
	slices.SortStableFunc(r.Verdicts, func(a, b Verdict) int { return cmp.Compare(b.Time, a.Time) })
	return r
}

// causeTally counts a program's causes, in the order they were first named.
type causeTally struct {
	byKey map[causeKey]*Cause
	order []causeKey
}

// causeKey is one cause of a tally: its kind and what changed.
type causeKey struct {
	kind   cause.Kind
	change string
}

// add counts one compilation of cause kind with change ch at the program's line site (from,
// when set, is the cause package diff named), and returns the cause.
func (t *causeTally) add(kind cause.Kind, ch, site string, from *diff.Cause) *Cause {
	key := causeKey{kind, ch}
	c := t.byKey[key]
	if c == nil {
		c = &Cause{Kind: kind, Change: ch}
		if from != nil && from.OwnAdvice() {
			c.Once, c.advice = from.Once, from.Advice
		}
		c.unsourced = from != nil && from.Unsourced
		t.byKey[key] = c
		t.order = append(t.order, key)
	}
	c.Count++
	if site != "" && !slices.Contains(c.Sites, site) && len(c.Sites) < 4 {
		c.Sites = append(c.Sites, site)
	}
	return c
}

// addUnit counts the cause of one compilation at the program's line site: a Python value read at
// trace time, the construct the framework names over the graphs' effect, the dump's main cause,
// or the framework's words. It says whether the dump explained the compilation.
func (t *causeTally) addUnit(u *ledger.Unit, again bool, site string, values map[*ledger.Unit]valueCause, byUnit map[*ledger.Unit][]diff.Cause) (linked bool) {
	f, named := constructOf(u)
	kind, said := f.Kind, f.Said
	named = named && again
	cs := byUnit[u]
	// a static value JAX saw as pytree metadata (an nnx attribute) is the static value's
	if vc, ok := values[u]; ok && again && (!named || kind == vc.kind || kind == KindPytree && metadataPath(u) != "") {
		// a Python value read at trace time: one cause with the values it took
		c := t.add(vc.kind, vc.change, site, nil)
		c.advice, c.Values, c.Source = vc.advice, vc.values, vc.source
		if named {
			c.Said, c.SaidBy = said, saidBy(kind)
		}
		return len(cs) > 0
	}
	if vc, ok := values[u]; ok && again && kind == KindStaticArgument && vc.kind == KindPythonValue && vc.values != nil {
		// JAX names the class, the dump the values it became
		c := t.add(kind, "a static argument took a new value, baked into the graph as "+vc.short, site, nil)
		c.Values, c.Said, c.SaidBy = vc.values, said, saidBy(kind)
		return len(cs) > 0
	}
	if len(cs) > 0 {
		t.addCompared(u, f, named, cs, site)
		return true
	}
	switch {
	case named:
		t.addFact(f, site)
	case again && u.Why != "":
		kind, ch := reasonCause(u)
		c := t.add(kind, ch, site, nil)
		if f, ok := triggerFact(factsOf(u)); ok {
			c.Said, c.own = f.Said, true // the call that ran a new graph, in recomp's words; the stack's beside them
		}
		if f, ok := dimFact(factsOf(u)); ok && f.Dynamic && f.Advice != "" && f.Change == ch {
			c.advice = f.Advice // the size then served by one dynamic graph: the stack's remedy for that
		}
	}
	return false
}

// triggerFact is the fact of a compilation's trigger (the call that ran a new graph, as the stack's
// analysis names it) where that is all the stack's explanation says.
func triggerFact(fs []cause.Fact) (cause.Fact, bool) {
	if len(fs) == 1 && fs[0].Trigger != "" {
		return fs[0], true
	}
	return cause.Fact{}, false
}

// addCompared counts one compilation the dumps' comparison explains (its causes cs): the
// construct the stack names (f, when named) where it outranks the dump's lead, else the dump's
// lead in the stack's words, and with it the construct the stack named (two changes at once: a
// sequence length, and a pytree whose state became inputs or a scalar that lost its weak type).
func (t *causeTally) addCompared(u *ledger.Unit, f cause.Fact, named bool, cs []diff.Cause, site string) {
	if named && overrides(f.Kind, cs[0].Kind) {
		t.addFact(f, site)
		return
	}
	c := t.add(cs[0].Kind, change(cs[0]), site, &cs[0])
	if fw := frameworks.ForProducer(u.Producer); fw != nil && fw.Construct != nil && !c.Once {
		if what, adv, ok := fw.Construct(c.Kind, c.Change); ok {
			c.Change, c.advice = what, adv
		}
	}
	// what the stack said about the call is true beside what the graphs show: a weak type or a
	// pytree change at the same call as another argument's new length is a cause of its own
	if named && f.Kind != c.Kind {
		t.addFact(f, site)
	}
}

// addFact counts one compilation of the construct the stack's own words state, at site: their
// kind and change, the words, who said them, and the stack's remedy for the argument they name.
func (t *causeTally) addFact(f cause.Fact, site string) {
	c := t.add(f.Kind, f.Change, site, nil)
	c.Said, c.SaidBy = f.Said, saidBy(f.Kind)
	if f.Advice != "" {
		c.advice = f.Advice
	}
}

// list is the causes counted. A framework's words that name no change (PyTorch/XLA's "dynamo
// is compiling a FX graph to HLO": what made it compile) are listed only when nothing names one.
func (t *causeTally) list() []Cause {
	kinded := false
	for _, k := range t.order {
		kinded = kinded || t.byKey[k].Kind != ""
	}
	var out []Cause
	for _, k := range t.order {
		if c := t.byKey[k]; c.Kind != "" || !kinded {
			out = append(out, *c)
		}
	}
	return out
}

func verdictOf(m *ledger.Module, compiled []*ledger.Unit, byUnit map[*ledger.Unit][]diff.Cause, explained []Explained,
	roles map[*ledger.Unit]string, in Input) Verdict {
	v := Verdict{Program: m.Family, Compilations: len(compiled)}
	stepFront, role := stepRole(compiled, roles)
	if stepFront != nil {
		v.FrontEnd, v.Role = stepFront.Name, role
	}
	for _, u := range compiled {
		if u.Via != nil && u.Via.Data != "" {
			v.Data = u.Via.Data
		}
	}
	procs := map[string]bool{}
	for _, u := range compiled {
		procs[u.Process] = true
		v.MostInOne = max(v.MostInOne, u.Seq)
	}
	v.Processes = len(procs)
	if len(compiled) > 0 {
		if fw := frameworks.ForProducer(compiled[0].Producer); fw != nil {
			v.Framework = fw.Name
		}
	}
	causes := &causeTally{byKey: map[causeKey]*Cause{}}
	values := valueCauses(compiled, byUnit)
	seq := map[string]int{}
	linked := 0
	for _, u := range compiled {
		v.Time += cost(u)
		if u.AfterWarmup {
			v.AfterWarmup++
			v.LateTime += cost(u)
		}
		again := compiledAgain(u, seq)
		if v.oncePerMode(u) {
			continue // compiled for a mode it had not run in: no recompilation, no cause
		}
		site := ""
		if u.Site.User() {
			site = u.Site.String()
		}
		if causes.addUnit(u, again, site, values, byUnit) {
			linked++
		}
	}
	if linked == 0 { // a dump explained without the log's compilations linked to it
		for _, e := range explained {
			if len(e.Causes) > 0 {
				causes.add(e.Causes[0].Kind, change(e.Causes[0]), "", &e.Causes[0])
			}
		}
	}
	// no gradient: by the dumped graphs, or by the probe's word that autograd was off in every
	// step that compiled it
	v.Inference = len(explained) > 0 && !slices.ContainsFunc(explained, func(e Explained) bool { return !e.Inference }) ||
		len(compiled) > 0 && !slices.ContainsFunc(compiled, func(u *ledger.Unit) bool { return !u.NoGrad }) ||
		noGradAgain(compiled)
	v.Causes = foldChain(causes.list())
	v.Causes = foldNumber(v.Causes, compiled, byUnit)
	v.Causes = foldRepeat(v.Causes, compiled, byUnit)
	v.Causes = foldGrowth(v.Causes, compiled, byUnit, in.Explained) // (every program's: one split off this one starts there)
	if len(v.Causes) == 0 {
		v.Causes = retracingOf(compiled, in.Ledger)
	}
	if in.Wall > 0 {
		v.Share = v.Time.Seconds() / in.Wall.Seconds()
	}
	v.Variants, v.Repeated = variants(compiled)
	v.Cadence = cadenceIn(compiled, in.Ledger)
	v.Sizes = sizesOf(compiled, byUnit)
	v.Sizes.grown(compiled, byUnit, v.Repeated, v.Cadence)
	v.Causes = mergeSizes(v.Causes, v.Sizes)
	slices.SortStableFunc(v.Causes, func(a, b Cause) int {
		return cmp.Or(cmp.Compare(boolInt(a.Once), boolInt(b.Once)), cmp.Compare(b.Count, a.Count))
	})
	front, call := viaOf(compiled)
	v.Sizes.fitCalls(call, compiled)
	v.Action = action(&v, in.Dumped, frameworks.FrontEnd(front), stepFront)
	if linked == 0 {
		v.Action = undecidedAction(compiled, v.Action)
	}
	return v
}

// foldChain folds the causes of one kind that each say one argument took its next value ("lr:
// 0.1 → 0.09", then "lr: 0.09 → 0.081": the stack's facts of each compilation held against the
// one before) into one that says the values in order ("lr: 0.1 → 0.09 → 0.081"), counted and
// placed as its first. Causes that do not chain so are kept as they are.
func foldChain(cs []Cause) []Cause {
	type link struct{ arg, from, to string }
	parse := func(c Cause) (link, bool) {
		arg, rest, ok := strings.Cut(c.Change, ": ")
		from, to, ok2 := strings.Cut(rest, " → ")
		if !ok || !ok2 || c.Kind == "" || strings.Contains(to, " → ") || strings.ContainsAny(arg, " ,;") {
			return link{}, false
		}
		return link{arg, from, to}, true
	}
	var out []Cause
	chains := map[causeKey]int{} // (kind, argument) → its cause in out
	values := map[int][]string{}
	for _, c := range cs {
		l, ok := parse(c)
		key := causeKey{c.Kind, l.arg}
		i, seen := chains[key]
		if !ok || c.Once || c.Said != "" || len(c.Values) > 0 {
			out = append(out, c)
			continue
		}
		if !seen || values[i][len(values[i])-1] != l.from {
			chains[key] = len(out)
			values[len(out)] = []string{l.from, l.to}
			out = append(out, c)
			continue
		}
		m := &out[i]
		values[i] = append(values[i], l.to)
		m.Count += c.Count
		for _, s := range c.Sites {
			if !slices.Contains(m.Sites, s) && len(m.Sites) < 4 {
				m.Sites = append(m.Sites, s)
			}
		}
		vs := values[i]
		if len(vs) > 6 {
			vs = append(append(vs[:3:3], "…"), vs[len(vs)-2:]...)
		}
		m.Change = fmt.Sprintf("%s: %s", key.change, strings.Join(vs, " → "))
		if len(values[i]) > 6 {
			m.Change += fmt.Sprintf(" (%d values)", len(values[i]))
		}
	}
	return out
}

// mergeSizes folds the shape causes that only say the varying dimension took yet another size
// (a spread of lengths: 55 → 54, 54 → 56, …) into one cause that says which sizes it took.
func mergeSizes(cs []Cause, sz *Sizes) []Cause {
	if sz == nil || len(distinct(sz.Seen)) < 3 {
		return cs
	}
	var out []Cause
	merged := -1
	for _, c := range cs {
		if c.Kind != diff.CauseBatchSize && c.Kind != diff.CauseInputShape {
			out = append(out, c)
			continue
		}
		if merged < 0 {
			ds := distinct(sz.Seen)
			// (a buffer's growth keeps the kind the compilations were counted under, as a live line
			// said it before the growth showed)
			kind, ch := c.Kind, fmt.Sprintf("%s took %d sizes, %d to %d", sz.What, len(ds), ds[0], ds[len(ds)-1])
			grows := sz.Grows > 0
			if grows {
				ch = fmt.Sprintf("%s grew by %d at every compilation, %d to %d: a buffer appended to each step "+
					"(a generation cache)", sz.What, sz.Grows, ds[0], ds[len(ds)-1])
			}
			out = append(out, Cause{Kind: kind, Change: ch, grows: grows})
			merged = len(out) - 1
		}
		m := &out[merged]
		m.Count += c.Count
		for _, site := range c.Sites {
			if !slices.Contains(m.Sites, site) && len(m.Sites) < 4 {
				m.Sites = append(m.Sites, site)
			}
		}
	}
	return out
}

var reArrow = lazyre.New(`(\S+ → \S+)`)

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// change is what a cause says changed, old → new, short.
func change(c diff.Cause) string {
	if c.Short != "" {
		return c.Short
	}
	if m := reArrow.FindString(c.Summary); m != "" {
		return m
	}
	return c.Summary
}

// reShape reads a typed shape (f32[32,8]).
var reShape = lazyre.New(`^([a-z]+\d*)\[([\d,]*)\]`)

// KindFunctionRebuilt is a cause only a framework's words show: the function object is new (a
// jax.jit, a lambda or a closure made again, often in a loop), so nothing compiled for the old
// one is reused, whatever else changed.
const KindFunctionRebuilt = cause.FunctionRebuilt

// reasonCause reads a framework's explanation of a recompilation: the cause kind it shows and
// what changed, old → new. The stack's unit reads its words into facts: a function made anew
// first, then an argument's new type.
func reasonCause(u *ledger.Unit) (kind cause.Kind, ch string) {
	why, fs := u.Why, factsOf(u)
	if f, ok := triggerFact(fs); ok {
		return "", f.Change
	}
	for _, f := range fs {
		if f.Kind == KindFunctionRebuilt {
			return f.Kind, f.Change
		}
	}
	for _, f := range fs {
		if f.Change != "" && (f.Old != "" || f.New != "") {
			return f.Kind, f.Change
		}
	}
	for _, f := range fs {
		if f.Kind != "" && f.Change != "" {
			return f.Kind, f.Change
		}
	}
	line, _, _ := strings.Cut(ledger.SummarizeWhy(why), ";")
	return "", strings.TrimSpace(line)
}

// sizesOf finds the one dimension whose size varies between a program's compilations, from
// the argument shapes the framework logged (JAX's global shapes and types), the sizes its
// explanations name (dynamo) or the shapes the dumps' comparisons show changing, and proposes
// the sizes to pad it to.
func sizesOf(compiled []*ledger.Unit, byUnit map[*ledger.Unit][]diff.Cause) *Sizes {
	var seen []int
	what, growth := "", 0
	var shapes [][][]int
	for _, u := range compiled {
		shapes = append(shapes, signatureShapes(u.Signature))
	}
	if arg, dim, ok := varyingDim(shapes); ok {
		for _, s := range shapes {
			seen = append(seen, s[arg][dim])
		}
		what = fmt.Sprintf("%s, dimension %d", argName(compiled, shapes, arg), dim)
		if step, ok := padding.GrowsByStep(seen); ok {
			growth = step
			what = fmt.Sprintf("`%s` (dimension %d)", argName(compiled, shapes, arg), dim)
		} else if dim == 0 {
			what = "the batch (leading dimension)"
		}
	} else {
		// the size of one dimension before and now, per recompilation (dynamo's guards)
		for _, u := range compiled {
			if f, ok := dimFact(factsOf(u)); ok {
				if f.Dynamic && f.Kind != cause.BatchSize {
					return nil // the stack then made the dimension dynamic: one graph for every later size, no sizes to pad to
				}
				if len(seen) == 0 {
					n, _ := strconv.Atoi(f.Old)
					seen = append(seen, n)
				}
				n, _ := strconv.Atoi(f.New)
				seen = append(seen, n)
				what = "dimension " + f.Dim
				if f.Arg != "" {
					what = "`" + f.Arg + "`, dimension " + f.Dim
				}
			}
		}
	}
	if len(seen) == 0 {
		seen, what = comparedSizes(compiled, byUnit)
	}
	if len(seen) == 0 {
		seen, what = factSizes(compiled)
	}
	if len(seen) < 2 {
		return nil
	}
	var sizes []padding.Size
	for _, v := range seen {
		sizes = append(sizes, padding.Size{Value: v, Count: 1})
	}
	plans := padding.Plans(sizes, 8)
	return &Sizes{What: what, Seen: seen, Pattern: padding.Pattern(seen), Plans: plans, Best: padding.Best(plans, 1, 0), Grows: growth}
}

// dimFact is the first fact of a stack's explanation of a compilation that names one dimension's
// size before and now; ok false when none does.
func dimFact(facts []cause.Fact) (cause.Fact, bool) {
	for _, f := range facts {
		if f.Dim != "" {
			return f, true
		}
	}
	return cause.Fact{}, false
}

// oneEachStep says whether a program's compilations came one per step of its loop, where the
// log counts steps (true when it counts none: nothing says otherwise).
func oneEachStep(c *Cadence) bool {
	if c == nil || len(c.Steps) < 2 {
		return true
	}
	for i := 1; i < len(c.Steps); i++ {
		if c.Steps[i]-c.Steps[i-1] != 1 {
			return false
		}
	}
	return true
}

// argName names argument arg of a program's signatures as the framework's explanation of a
// compilation names it: the first argument it gives a new type whose shape is that argument's
// in the signature (a flattened leaf's index names nothing the user wrote); "argument N" when
// none.
func argName(compiled []*ledger.Unit, shapes [][][]int, arg int) string {
	for i, u := range compiled {
		if u.Why == "" || arg >= len(shapes[i]) {
			continue
		}
		for _, f := range factsOf(u) {
			if f.Arg != "" && f.New != "" && !strings.ContainsAny(f.Arg, " \t") && slices.Equal(dimsOf(f.New), shapes[i][arg]) {
				return f.Arg
			}
		}
	}
	return fmt.Sprintf("argument %d", arg)
}

// factSizes reads the sizes of one dimension from the stack's facts of a program's compilations
// where it logs no argument signature recomp reads (TF: the parameters of each new trace, held
// against the trace before): the first argument whose type changed in one dimension, the same
// argument and dimension every time, each change taking up the size the last one left; its size
// before (the first time) and after. Nil when the facts show no such chain.
func factSizes(compiled []*ledger.Unit) ([]int, string) {
	var seen []int
	arg, dim := "", -1
	for _, u := range compiled {
		if frameworks.BySignature(u.Producer) {
			return nil, ""
		}
		for _, f := range factsOf(u) {
			if f.Kind != diff.CauseBatchSize && f.Kind != diff.CauseInputShape || f.Old == "" || f.New == "" {
				continue
			}
			o, n := dimsOf(f.Old), dimsOf(f.New)
			d := oneDimDiffers(o, n)
			switch {
			case d < 0:
				return nil, ""
			case arg == "":
				arg, dim, seen = f.Arg, d, []int{o[d]}
			case f.Arg != arg || d != dim || o[d] != seen[len(seen)-1]:
				return nil, ""
			}
			seen = append(seen, n[d])
			break
		}
	}
	if dim == 0 {
		return seen, "the batch (leading dimension)"
	}
	return seen, fmt.Sprintf("%s, dimension %d", arg, dim)
}

// reSignatureShape reads an argument's shape in a logged argument signature: float32[8,4].
var reSignatureShape = lazyre.New(`[a-z]+\d*\[([\d,\s]*)\]`)

// comparedSizes reads the sizes of one dimension from the comparisons of a program's dumps
// (PyTorch/XLA logs no argument shapes): each compilation whose main cause is a shape change
// of one dimension ("s64[2,12] → s64[2,17]"), the same dimension each time, gives the size
// before (the first time) and after.
func comparedSizes(compiled []*ledger.Unit, byUnit map[*ledger.Unit][]diff.Cause) ([]int, string) {
	var seen []int
	dim := -1
	for _, u := range compiled {
		cs := byUnit[u]
		if len(cs) == 0 || cs[0].Kind != diff.CauseBatchSize && cs[0].Kind != diff.CauseInputShape {
			continue
		}
		old, new, ok := strings.Cut(change(cs[0]), " → ")
		if !ok {
			continue
		}
		o, n := dimsOf(old), dimsOf(new)
		if cs[0].Kind == diff.CauseBatchSize {
			a, erra := strconv.Atoi(old)
			b, errb := strconv.Atoi(new)
			if erra == nil && errb == nil { // "batch size (leading dimension) changed 32 → 4"
				o, n = []int{a}, []int{b}
			}
		}
		if o == nil || n == nil {
			continue // not sizes ("x dimension 1: 8 → 9")
		}
		d := oneDimDiffers(o, n)
		if d < 0 || dim >= 0 && d != dim {
			return nil, ""
		}
		if dim < 0 {
			dim = d
			seen = append(seen, o[d])
		}
		seen = append(seen, n[d])
	}
	if dim == 0 {
		return seen, "the batch (leading dimension)"
	}
	return seen, fmt.Sprintf("dimension %d", dim)
}

// dimsOf reads the dimensions of a typed shape ("s64[2,12]{1,0}"); nil when it is not one.
func dimsOf(shape string) []int {
	m := reShape.FindStringSubmatch(shape)
	if m == nil || m[2] == "" {
		return nil
	}
	var out []int
	for _, d := range strings.Split(m[2], ",") {
		n, err := strconv.Atoi(d)
		if err != nil {
			return nil
		}
		out = append(out, n)
	}
	return out
}

// oneDimDiffers is the one dimension in which two shapes of one rank differ, or -1.
func oneDimDiffers(a, b []int) int {
	if len(a) != len(b) || len(a) == 0 {
		return -1
	}
	at := -1
	for i := range a {
		if a[i] != b[i] {
			if at >= 0 {
				return -1
			}
			at = i
		}
	}
	return at
}

// signatureShapes reads the shapes of a logged argument signature, in order.
func signatureShapes(sig string) [][]int {
	var out [][]int
	for _, m := range reSignatureShape.FindAllStringSubmatch(sig, -1) {
		var dims []int
		for _, d := range strings.Split(m[1], ",") {
			if d = strings.TrimSpace(d); d == "" {
				continue
			}
			n, err := strconv.Atoi(d)
			if err != nil {
				dims = nil
				break
			}
			dims = append(dims, n)
		}
		out = append(out, dims)
	}
	return out
}

// varyingDim finds the first argument dimension whose size differs between the signatures
// (which must all have the same arguments and ranks).
func varyingDim(shapes [][][]int) (arg, dim int, ok bool) {
	if len(shapes) < 2 || len(shapes[0]) == 0 {
		return 0, 0, false
	}
	for _, s := range shapes[1:] {
		if len(s) != len(shapes[0]) {
			return 0, 0, false
		}
		for a := range s {
			if len(s[a]) != len(shapes[0][a]) {
				return 0, 0, false
			}
		}
	}
	for a := range shapes[0] {
		for d := range shapes[0][a] {
			for _, s := range shapes[1:] {
				if s[a][d] != shapes[0][a][d] {
					return a, d, true
				}
			}
		}
	}
	return 0, 0, false
}

// action says what to do about a program, in one line: the advice of its framework for its
// main causes (the two most frequent whose advice differs), with the sizes to pad to when a
// dimension varied.
func action(v *Verdict, dumped bool, front, stepFront *framework.FrontEnd) string {
	look := "dump the HLO (" + frameworks.DumpAdvice() + ") and run `recomp explain DIR` to see what changed"
	if dumped {
		look = "compare its versions in the dump (recomp explain) to see what changed"
	}
	fw := frameworks.ByName(v.Framework)
	var parts []string
	for i, c := range v.Causes {
		if len(parts) == 2 {
			break
		}
		kind := diff.CauseKind(c.Kind)
		if kind == "" {
			continue
		}
		if s := v.Sizes; kind == diff.CauseBatchSize && s != nil && s.Pattern != "remainder" && s.Pattern != "fixed" && s.Pattern != "" {
			// Batches of many sizes (a serving queue, a sampler): not a last partial batch to drop.
			kind = diff.CauseInputShape
		}
		adv := causeAdvice(*v, c, kind, front, stepFront, fw)
		if s := v.Sizes; s != nil && s.Grows > 0 && (kind == diff.CauseBatchSize || kind == diff.CauseInputShape) {
			adv = s.growsAdvice(fw)
		} else if s != nil && (kind == diff.CauseBatchSize || kind == diff.CauseInputShape) {
			if pad := s.padTo(); pad != "" {
				adv = pad + "; " + adv
			}
		}
		v.Causes[i].Advice = adv
		if adv != "" && !slices.Contains(parts, adv) {
			parts = append(parts, adv)
		}
	}
	if len(parts) == 0 {
		return look
	}
	return strings.Join(parts, "; and ")
}

// oncePerMode counts u among the program's compilations once per mode when it is one (with the
// change of mode it was for), and says whether it was.
func (v *Verdict) oncePerMode(u *ledger.Unit) bool {
	if u.Settled != ledger.PerMode {
		return false
	}
	v.OncePerMode++
	v.Modes = modeChanges(v.Modes, u)
	return true
}

// modeChanges adds to modes the changes of mode a compilation once per mode was for (as the
// stack said them), each once, at most 4.
func modeChanges(modes []string, u *ledger.Unit) []string {
	for _, f := range u.Facts {
		if !slices.Contains(modes, f.Change) && len(modes) < 4 {
			modes = append(modes, f.Change)
		}
	}
	return modes
}

// noGradAgain says every recompilation of a program that also compiled for training was made
// with autograd off, as the probe saw (a model compiled once per mode whose evaluation then
// compiled its partial batch): the causes are the evaluation's, and its remedies drop no data.
func noGradAgain(compiled []*ledger.Unit) bool {
	n := 0
	for _, u := range compiled {
		if u.Seq > 1 && u.Settled == "" {
			if !u.NoGrad {
				return false
			}
			n++
		}
	}
	return n > 0
}

// causeAdvice is what to do about one cause of a verdict: its own advice (a cause expected once, a
// construct named), else the step's, the front end's or the stack's for its kind, else the kind's;
// where the dump could not name the lines that changed, the stack's setting that would.
func causeAdvice(v Verdict, c Cause, kind diff.CauseKind, front, stepFront *framework.FrontEnd, fw *frameworks.Framework) string {
	step, _, _ := strings.Cut(v.Role, " (")
	// a tf.data dataset batches the data, on any backend: the front end's tf.data remedies
	stack := frameworks.AdviceStack(v.Framework, v.Data)
	adv := ""
	switch {
	case c.Once, c.advice != "":
		adv = c.advice
	case stepFront != nil && stepFront.StepAdvice(stack, step, kind) != "":
		adv = stepFront.StepAdvice(stack, step, kind) // the loop's own remedy: training, evaluation, prediction
	case v.Inference && fw != nil && fw.Advice.Inference[kind] != "":
		adv = fw.Advice.Inference[kind] // a graph with no gradient: evaluation, scoring, prediction lose no data
	case front != nil && front.CauseAdvice(stack, kind) != "":
		adv = front.CauseAdvice(stack, kind)
	case fw != nil:
		adv = fw.Advice.Causes[kind]
	}
	if adv == "" {
		adv = diff.AdviceFor(kind)
	}
	if c.unsourced && fw != nil && fw.Advice.SourceLines != "" {
		adv += "; the dump's ops carry no source lines, so the line that changed, or a loop count, cannot be named: " + fw.Advice.SourceLines
	}
	return adv
}

// indexExplained indexes the comparisons: the causes of each later compilation, the comparisons of
// each program, and the role of each compilation a comparison names (the earlier's too: a
// step's first compilation has its role, as Keras's test step first compiled in fit).
func indexExplained(explained []Explained) (map[*ledger.Unit][]diff.Cause, map[string][]Explained, map[*ledger.Unit]string) {
	byUnit := map[*ledger.Unit][]diff.Cause{}
	byProgram := map[string][]Explained{}
	roles := map[*ledger.Unit]string{}
	for _, e := range explained {
		if e.Unit != nil {
			byUnit[e.Unit] = e.Causes
			roles[e.Unit] = e.Role
		}
		byProgram[e.Program] = append(byProgram[e.Program], e)
	}
	for _, e := range explained {
		if e.Earlier != nil && roles[e.Earlier] == "" {
			roles[e.Earlier] = e.EarlierRole
		}
	}
	return byUnit, byProgram, roles
}

// stepRole names the front end's step a program is (Keras's train, test or predict step), from
// what its dumped graphs do (roles, by compilation) and the calls its compilations ran under.
func stepRole(compiled []*ledger.Unit, roles map[*ledger.Unit]string) (*framework.FrontEnd, string) {
	step, via := "", ""
	var methods []string
	for _, u := range compiled {
		if r := roles[u]; r != "" {
			if step != "" && step != r && !slices.Contains(methods, step) {
				methods = append(methods, step) // another compilation's role: its loop (Keras's test step in fit, then evaluate)
			}
			step = r
		} else if f, s := frameworks.FrontStep(u.Producer, u.Module, u.Why); s != "" && (via == "" || via == f.Name) {
			step, via = s, f.Name // the stack said which function it traced, and the front end's file defines it
		}
		if u.Via != nil && (via == "" || via == u.Via.FrontEnd) {
			via = u.Via.FrontEnd
			if !slices.Contains(methods, u.Via.Loop()) {
				methods = append(methods, u.Via.Loop())
			}
		}
	}
	step, methods = logRole(compiled, step, methods)
	if step == "" && len(methods) == 0 {
		return nil, ""
	}
	return frameworks.StepRole(via, step, methods)
}

// logRole adds what the front end's progress lines in the log say (ledger.Unit.LogStep and
// LogLoop: Keras's epochs and bars): the step where nothing else named it, and the loops of its
// compilations where the probe saw none of its calls and the log places every compilation.
func logRole(compiled []*ledger.Unit, step string, methods []string) (string, []string) {
	if len(compiled) == 0 || compiled[0].LogStep == "" || step != "" && step != compiled[0].LogStep && !strings.HasPrefix(step, compiled[0].LogStep+" (") {
		return step, methods
	}
	if step == "" {
		step = compiled[0].LogStep
	}
	if len(methods) > 0 {
		return step, methods // the probe saw the calls
	}
	var loops []string
	for _, u := range compiled {
		if u.LogLoop == "" {
			return step, methods // a compilation outside the loops the log shows: its loop is open
		}
		if !slices.Contains(loops, u.LogLoop) {
			loops = append(loops, u.LogLoop)
		}
	}
	return step, loops
}

// viaOf is the front end all the compilations ran under ("" when not all under one), and the
// data its calls were given when they all say the same (nil otherwise).
func viaOf(compiled []*ledger.Unit) (string, *ledger.Call) {
	var front string
	var call *ledger.Call
	for i, u := range compiled {
		if u.Via == nil || i > 0 && u.Via.FrontEnd != front {
			return "", nil
		}
		front = u.Via.FrontEnd
		switch {
		case u.Via.Samples == 0:
		case call == nil:
			call = u.Via
		case u.Via.Samples != call.Samples || u.Via.BatchSize != call.BatchSize:
			return front, nil
		}
	}
	return front, call
}

// fit reads the samples of a call whose batch size and remainder are the sizes compiled, and
// the batch sizes that would divide them.
func (s *Sizes) fit(call *ledger.Call) {
	if s.Pattern != "remainder" || call.BatchSize <= 0 {
		return
	}
	large, small := slices.Max(s.Seen), slices.Min(s.Seen)
	if call.BatchSize != large || call.Samples%large != small {
		return
	}
	s.Samples, s.BatchSizes = call.Samples, divisorsNear(call.Samples, large)
}

// fitCalls reads what the front end's calls were given into the sizes (none: nothing to read).
func (s *Sizes) fitCalls(call *ledger.Call, compiled []*ledger.Unit) {
	if s == nil {
		return
	}
	if call != nil {
		s.fit(call)
	}
	s.calls(compiled)
}

// calls reads a "remainder" that is no remainder: the front end's calls were given different batch
// sizes (fit's validation at 64 rows, evaluate at 32), and each size compiled is one of them.
func (s *Sizes) calls(compiled []*ledger.Unit) {
	if s.Pattern != "remainder" {
		return
	}
	var sizes []int
	for _, u := range compiled {
		if u.Via != nil && u.Via.BatchSize > 0 && !slices.Contains(sizes, u.Via.BatchSize) {
			sizes = append(sizes, u.Via.BatchSize)
		}
	}
	if len(sizes) < 2 {
		return
	}
	for _, n := range s.Seen {
		if !slices.Contains(sizes, n) {
			return
		}
	}
	s.Pattern, s.Samples, s.BatchSizes = "calls", 0, nil
}

// maxBatch bounds the batch sizes divisorsNear searches around (its work is linear in them).
const maxBatch = 1 << 20

// divisorsNear are the divisors of n nearest b from below and from above, within a factor of 2
// of it, in increasing order.
func divisorsNear(n, b int) []int {
	if b > maxBatch {
		return nil // no batch of a real run: a log's claim is not searched through
	}
	var out []int
	for d := b - 1; d >= max(2, (b+1)/2); d-- {
		if n%d == 0 {
			out = append(out, d)
			break
		}
	}
	for d := b + 1; d <= 2*b && d <= n; d++ {
		if n%d == 0 {
			out = append(out, d)
			break
		}
	}
	return out
}

// grown keeps Grows (set by sizesOf) only where the growth is a buffer the step is called with
// again: with the dump's comparisons of its recompilations, each shows the earlier version
// returned the input the later one was given (diff.Cause.FedBack); without them, no size
// compiled again (repeated), and either the logged signatures show the entry appended beside
// the buffer (appended) or the log counts steps, one compilation at each. Sizes that grow with
// nothing more said (a program fed longer and longer sequences) are no generation cache.
func (s *Sizes) grown(compiled []*ledger.Unit, byUnit map[*ledger.Unit][]diff.Cause, repeated int, c *Cadence) {
	if s == nil {
		return
	}
	step, ok := padding.GrowsByStep(s.Seen)
	if !ok {
		s.Grows = 0
		return
	}
	seq := map[string]int{}
	compared, fed := 0, 0
	for _, u := range compiled {
		if !compiledAgain(u, seq) || len(byUnit[u]) == 0 {
			continue
		}
		compared++
		if slices.ContainsFunc(byUnit[u], func(c diff.Cause) bool { return c.FedBack }) {
			fed++
		}
	}
	switch {
	case compared > 0 && fed == compared:
		s.Grows, s.fedBack = step, true
	case compared == 0 && repeated == 0 && (appended(compiled, step) || c != nil && len(c.Steps) >= 2 && oneEachStep(c)):
		s.Grows = step
	default:
		s.Grows = 0
	}
}

// appended says whether the signatures the stack logged of a program's compilations show a
// buffer and what is appended to it: one argument grows by step along one dimension, and another
// has the shape of one step's entry of it (the buffer's shape with that dimension step long, or
// without it for a single row), as a decode step is given its cache and the new token's state.
func appended(compiled []*ledger.Unit, step int) bool {
	var shapes [][][]int
	for _, u := range compiled {
		shapes = append(shapes, signatureShapes(u.Signature))
	}
	arg, dim, ok := varyingDim(shapes)
	if !ok {
		return false
	}
	last := shapes[len(shapes)-1]
	entry := slices.Clone(last[arg])
	entry[dim] = step
	row := slices.Delete(slices.Clone(last[arg]), dim, dim+1)
	for j, s := range last {
		if j != arg && (slices.Equal(s, entry) || step == 1 && len(row) > 0 && slices.Equal(s, row)) {
			return true
		}
	}
	return false
}

// growsAdvice says what to do about a buffer grown at each call: padding to buckets still
// compiles once per bucket; the stack's preallocated buffer written in place compiles once.
func (s *Sizes) growsAdvice(fw *frameworks.Framework) string {
	remedy := "allocate the buffer once at its largest size and write each step's entries in place at a position held in a " +
		"tensor, masking the positions not yet written: one shape, one compilation"
	if fw != nil && fw.Advice.GrowingCache != "" {
		remedy = fw.Advice.GrowingCache
	}
	fed := ""
	if s.fedBack {
		fed = " and the step returns it to be called with again"
	}
	return fmt.Sprintf("%s grows by %d at each call (%d → %d)%s: a buffer grown by "+
		"concatenation (a key/value cache) has a new shape at every length, and padding to buckets still compiles once per bucket; %s",
		s.What, s.Grows, s.Seen[0], s.Seen[len(s.Seen)-1], fed, remedy)
}

// padTo says which sizes to pad to, in a few words.
func (s *Sizes) padTo() string {
	if s.Pattern == "calls" {
		var bs []string
		for _, n := range distinct(s.Seen) {
			bs = append(bs, strconv.Itoa(n))
		}
		return fmt.Sprintf("its calls were given the batch sizes %s: one batch size for all of them compiles it once", strings.Join(bs, " and "))
	}
	if s.Pattern == "remainder" {
		large := slices.Max(s.Seen)
		small := slices.Min(s.Seen)
		said := fmt.Sprintf("the last batch of each pass has %d rows, the others %d", small, large)
		switch {
		case s.Samples > 0 && len(s.BatchSizes) > 0:
			var bs []string
			for _, b := range s.BatchSizes {
				n := s.Samples / b
				bs = append(bs, fmt.Sprintf("%d (%d step%s)", b, n, map[bool]string{true: "s"}[n != 1]))
			}
			said += fmt.Sprintf(": of %d samples; batch_size %s divides them", s.Samples, strings.Join(bs, " or "))
		case s.Samples > 0:
			said += fmt.Sprintf(": of %d samples, which no batch size near %d divides", s.Samples, large)
		}
		return said
	}
	if s.Best < 0 || s.Best >= len(s.Plans) {
		return ""
	}
	p := s.Plans[s.Best]
	if n := len(distinct(s.Seen)); p.Compilations >= n {
		// No bucket set within 10% padding compiles fewer times: the one size that covers
		// them all, and what it costs in padding.
		for _, q := range s.Plans {
			if q.Compilations == 1 {
				return fmt.Sprintf("pad %s to %d, the largest size (1 compilation instead of %d, %.0f%% padding; no bucket set under 10%% padding compiles fewer)",
					s.What, q.Tops[len(q.Tops)-1], n, q.Overhead)
			}
		}
		return ""
	}
	var tops []string
	for _, t := range p.Tops {
		tops = append(tops, strconv.Itoa(t))
	}
	return fmt.Sprintf("pad %s to %s (%d compilation(s) instead of %d, %.1f%% padding)", s.What, strings.Join(tops, ", "),
		p.Compilations, len(distinct(s.Seen)), p.Overhead)
}

func distinct(xs []int) []int {
	out := slices.Clone(xs)
	slices.Sort(out)
	return slices.Compact(out)
}

// cadenceOf is when a program's compilations happened in a process of steps steps (nil when the
// log counts none, or it compiled once).
func cadenceOf(compiled []*ledger.Unit, steps int) *Cadence {
	if steps == 0 || len(compiled) < 2 {
		return nil
	}
	c := &Cadence{Of: steps}
	gap := 0
	for i, u := range compiled {
		if u.Step < 1 || u.Step > steps+1 || i > 0 && u.Step < c.Steps[i-1] {
			return nil
		}
		c.Steps = append(c.Steps, u.Step)
		if i > 0 {
			gap = max(gap, u.Step-c.Steps[i-1])
		}
	}
	last := c.Steps[len(c.Steps)-1]
	if len(c.Steps) >= 3 && gap > 0 && steps-last < gap {
		even := true
		for i := 1; i < len(c.Steps); i++ {
			even = even && c.Steps[i]-c.Steps[i-1] == gap
		}
		if even {
			c.Every = gap
		}
	}
	if quiet := steps - last; c.Every == 0 && quiet > max(gap, 1) {
		c.Quiet = quiet
	}
	return c
}

// byEpoch places a cadence's compilations (of compiled, in order) in the epochs that began
// after starts steps (see ledger.Process.Epochs), and says whether it compiled as often in every
// epoch from its first compilation's to the last, or from the next one on.
func (c *Cadence) byEpoch(compiled []*ledger.Unit, starts []int) {
	if c == nil || len(starts) == 0 || len(compiled) != len(c.Steps) {
		return
	}
	n := len(starts)
	for _, s := range c.Steps {
		k := 0
		for k < n && starts[k] < s {
			k++
		}
		c.Epochs = append(c.Epochs, k)
	}
	c.perEpoch(compiled, n)
}

// epochCadence is when a program compiled by the epochs alone, where the log marks epochs and
// not the steps each compilation was at (Keras's "Epoch i/n" lines: ledger.Unit.Epoch), of n
// epochs: nil when it compiled once, or outside the epochs.
func epochCadence(compiled []*ledger.Unit, n int) *Cadence {
	if len(compiled) < 2 {
		return nil
	}
	c := &Cadence{}
	for i, u := range compiled {
		if u.Epoch < 1 || u.Epoch > n || i > 0 && u.Epoch < compiled[i-1].Epoch {
			return nil
		}
		c.Epochs = append(c.Epochs, u.Epoch)
	}
	c.perEpoch(compiled, n)
	if last := c.Epochs[len(c.Epochs)-1]; c.EveryEpoch == 0 && last < n {
		c.QuietEpochs = n - last
	}
	return c
}

// perEpoch says, of a cadence whose compilations' epochs are known (c.Epochs) among n, whether
// it compiled as often in every epoch from its first compilation's to the last, or from the next
// one on.
func (c *Cadence) perEpoch(compiled []*ledger.Unit, n int) {
	c.EpochsOf = n
	per := make([]int, n+1)
	cost := make([]time.Duration, n+1)
	for i, k := range c.Epochs {
		per[k]++
		cost[k] += compiled[i].Duration
	}
	first := c.Epochs[0]
	if first == 0 {
		return
	}
	steady := func(from int) bool {
		for k := from + 1; k <= n; k++ {
			if per[k] != per[from] {
				return false
			}
		}
		return per[from] > 0
	}
	from := first
	switch {
	case n-first >= 1 && steady(first):
	case n-first >= 2 && steady(first+1) && per[first] > per[first+1]:
		from = first + 1
	default:
		return
	}
	c.EveryEpoch, c.EpochFrom = per[from], from
	var all time.Duration
	for k := from; k <= n; k++ {
		all += cost[k]
	}
	c.EpochCost = all / time.Duration(n-from+1)
}

// cadenceIn is when a program compiled in a one-process report's steps (nil for several processes).
func cadenceIn(compiled []*ledger.Unit, rep *ledger.Report) *Cadence {
	if len(rep.Procs) != 1 {
		return nil
	}
	if p := rep.Procs[0]; p.Steps == 0 && len(p.Epochs) > 0 {
		return epochCadence(compiled, len(p.Epochs)) // epochs without the steps of each compilation (Keras's lines)
	}
	c := cadenceOf(compiled, rep.Procs[0].Steps)
	c.byEpoch(compiled, rep.Procs[0].Epochs)
	return c
}

// undecidedAction is, for a program whose recompilation the log cannot tell from set-up (and no
// dump compared), how to decide; the action otherwise.
func undecidedAction(compiled []*ledger.Unit, act string) string {
	for _, u := range compiled {
		if u.Undecided != "" {
			return u.Undecided
		}
	}
	return act
}

// settleSites names each line's top cause and example: a number's values where a program's
// number baked into the graph is the line's top cause.
func settleSites(sites map[string]*SiteRow, verdicts []Verdict) []SiteRow {
	for _, row := range sites {
		row.settle()
	}
	for _, v := range verdicts {
		numberExample(sites, v) // once each line's top cause is settled
		growthWords(sites, v)
	}
	out := make([]SiteRow, 0, len(sites))
	for _, row := range sites {
		out = append(out, *row)
	}
	return out
}

// numberExample gives the lines where a program's number baked into the graph changed the
// number's values as their example (-4 → -6 → -8), where the line's top cause is that constant.
func numberExample(sites map[string]*SiteRow, v Verdict) {
	for _, c := range v.Causes {
		if len(c.Numbers) == 0 {
			continue
		}
		for _, s := range c.Sites {
			if row := sites[s]; row != nil && row.TopCause == c.Kind {
				row.Example = strings.Join(c.Numbers, " → ")
			}
		}
	}
}

// growthWords names a growing buffer as the top cause of the lines where a program's buffer grew
// at every compilation, as the program's card does (not "batch size" for a cache's length).
func growthWords(sites map[string]*SiteRow, v Verdict) {
	for _, c := range v.Causes {
		if !c.grows {
			continue
		}
		for _, s := range c.Sites {
			if row := sites[s]; row != nil && row.TopCause == c.Kind {
				row.words = c.Label(v.Framework)
			}
		}
	}
}

// CauseAdvice is what the verdict of program says to do about its cause of kind k: the words a
// comparison of that program's dumps shows as its advice, so that the answer and the pairs under
// it say one thing. "" when no verdict names the program with a cause of that kind (then the
// comparison's own advice stands).
func (r *Result) CauseAdvice(program string, k cause.Kind) string {
	if r == nil {
		return ""
	}
	for _, v := range r.Verdicts {
		if v.Program != program {
			continue
		}
		for _, c := range v.Causes {
			if c.Kind == k && c.Advice != "" {
				return c.Advice
			}
		}
	}
	return ""
}

// retracingOf is the cause of a program nothing else explains where its stack warned that the
// function it compiles traced again on many of its recent calls (TF's retracing warning, read by
// the unit): the function, how often, in recomp's words with the stack's beside them. It says no
// more than the warning: which argument changed is for a comparison of the graphs.
func retracingOf(compiled []*ledger.Unit, rep *ledger.Report) []Cause {
	for _, f := range rep.Retracing() {
		for _, u := range compiled {
			if u.Producer == f.Producer && frameworks.SameFunction(f.Arg, u.Module) {
				return []Cause{{Change: f.Change, Said: f.Said, own: true}}
			}
		}
	}
	return nil
}
