// Package verdict turns what recomp found into what a user decides on: for each program that
// compiled again, how often, what it cost and its share of the run, the causes with old → new
// and how often each, the user's lines that made it compile, and the action — with the sizes
// to pad to when one dimension varies. It also ranks the user's lines by the compile time they
// cost, and says in one headline how much of the run went to compiling and how much of that to
// compiling again. It reads the ledger's accounting and, when a dump was explained, the causes
// package diff named; it prints nothing.
package verdict

import (
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/recomp/recomp/diff"
	"github.com/recomp/recomp/frameworks"
	"github.com/recomp/recomp/frameworks/cause"
	"github.com/recomp/recomp/frameworks/framework"
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
}

// Explained is one comparison of a program's versions in a dump.
type Explained struct {
	Program string       // the program the comparison belongs to (explain's key)
	Unit    *ledger.Unit // the log's compilation of the later version (nil when not linked)
	Causes  []diff.Cause // ranked, first is the main cause
	// Role is what the later version's graph does among programs that share a name (Keras's
	// "train step", "test step", "predict step": frameworks.Role); "" when it does not say.
	Role string
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
	// Compilations counts its compilations, AfterWarmup those after warm-up; Seconds is their
	// compile time (tracing, lowering and the compiler's), LateSeconds the part after warm-up.
	Compilations, AfterWarmup int
	Time, LateTime            time.Duration
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
}

// Cause is one reason a program compiled again, and how often it was the reason.
type Cause struct {
	Kind   string // a diff.CauseKind, or "" when only the framework's words say it
	Change string // what changed, old → new
	Count  int
	Sites  []string // the user's lines where it happened
	// Once says the cause is expected once in a run (diff.Cause.Once): state the first step
	// built. It is listed after the causes that recur, with its own advice.
	Once bool
	// Said is the framework's own words that name the cause, when the cause is a construct only
	// they show (a static argument, a pytree change).
	Said string
	// SaidBy names who said it when not the stack itself (dynamo, torch.compile's tracer).
	SaidBy string
	advice string // the comparison's own advice for a cause expected once, or the stack's for the construct it names
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
}

// SiteRow is one user's line and what its calls cost in compilations.
type SiteRow struct {
	Site                      string
	Compilations, AfterWarmup int
	Time                      time.Duration
	TopCause                  string
	Example                   string // an old → new of the top cause
	topOnce                   bool   // the top cause is expected once (diff.Cause.Once)
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
	byUnit := map[*ledger.Unit][]diff.Cause{}
	byProgram := map[string][]Explained{}
	roles := map[*ledger.Unit]string{}
	for _, e := range in.Explained {
		if e.Unit != nil {
			byUnit[e.Unit] = e.Causes
			roles[e.Unit] = e.Role
		}
		byProgram[e.Program] = append(byProgram[e.Program], e)
	}
	r.Processes = len(rep.Procs)
	for _, p := range rep.Procs {
		if p.Cost > r.Slowest {
			r.Slowest, r.SlowestProcess = p.Cost, p.Name
		}
	}
	sites := map[string]*SiteRow{}
	for _, m := range rep.Modules {
		compiled := m.Compiled()
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
			// The first cause met names the line; a cause that recurs replaces one expected once.
			if kind, ch, _, ok := constructCause(u.Why); ok && again && (row.TopCause == "" || row.topOnce) &&
				(len(byUnit[u]) == 0 || overrides(kind, byUnit[u][0].Kind)) {
				row.TopCause, row.Example, row.topOnce = kind, ch, false
			} else if cs := byUnit[u]; len(cs) > 0 && (row.TopCause == "" || row.topOnce && !cs[0].Once) {
				row.TopCause, row.Example, row.topOnce = string(cs[0].Kind), change(cs[0]), cs[0].Once
			} else if (row.TopCause == "" || row.topOnce) && u.Why != "" && again {
				row.topOnce = false
				row.TopCause, row.Example = reasonCause(u.Why)
			}
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
	for _, row := range sites {
		r.Sites = append(r.Sites, *row)
	}
	slices.SortFunc(r.Sites, func(a, b SiteRow) int { return cmp.Or(cmp.Compare(b.Time, a.Time), cmp.Compare(a.Site, b.Site)) })
	slices.SortStableFunc(r.Verdicts, func(a, b Verdict) int { return cmp.Compare(b.Time, a.Time) })
	return r
}

// causeTally counts a program's causes, in the order they were first named.
type causeTally struct {
	byKey map[string]*Cause
	order []string
}

// add counts one compilation of cause kind with change ch at the program's line site (from,
// when set, is the cause package diff named), and returns the cause.
func (t *causeTally) add(kind, ch, site string, from *diff.Cause) *Cause {
	key := kind + "\x00" + ch
	c := t.byKey[key]
	if c == nil {
		c = &Cause{Kind: kind, Change: ch}
		if from != nil && from.Once {
			c.Once, c.advice = true, from.Advice
		}
		t.byKey[key] = c
		t.order = append(t.order, key)
	}
	c.Count++
	if site != "" && !slices.Contains(c.Sites, site) && len(c.Sites) < 4 {
		c.Sites = append(c.Sites, site)
	}
	return c
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
	causes := &causeTally{byKey: map[string]*Cause{}}
	add := causes.add
	seq := map[string]int{}
	linked := 0
	for _, u := range compiled {
		v.Time += cost(u)
		if u.AfterWarmup {
			v.AfterWarmup++
			v.LateTime += cost(u)
		}
		again := compiledAgain(u, seq)
		site := ""
		if u.Site.User() {
			site = u.Site.String()
		}
		kind, ch, said, named := constructCause(u.Why)
		named = named && again
		if cs := byUnit[u]; len(cs) > 0 {
			linked++
			if named && overrides(kind, cs[0].Kind) {
				c := add(kind, ch, site, nil)
				c.Said, c.SaidBy = said, saidBy(kind)
				continue
			}
			c := add(string(cs[0].Kind), change(cs[0]), site, &cs[0])
			if fw := frameworks.ForProducer(u.Producer); fw != nil && fw.Construct != nil && !c.Once {
				if what, adv, ok := fw.Construct(c.Kind, c.Change); ok {
					c.Change, c.advice = what, adv
				}
			}
			continue
		}
		switch {
		case named:
			c := add(kind, ch, site, nil)
			c.Said, c.SaidBy = said, saidBy(kind)
		case again && u.Why != "":
			kind, ch := reasonCause(u.Why)
			add(kind, ch, site, nil)
		}
	}
	if linked == 0 { // a dump explained without the log's compilations linked to it
		for _, e := range explained {
			if len(e.Causes) > 0 {
				add(string(e.Causes[0].Kind), change(e.Causes[0]), "", &e.Causes[0])
			}
		}
	}
	v.Causes = causes.list()
	if in.Wall > 0 {
		v.Share = v.Time.Seconds() / in.Wall.Seconds()
	}
	v.Variants, v.Repeated = variants(compiled)
	v.Sizes = sizesOf(compiled, byUnit)
	v.Causes = mergeSizes(v.Causes, v.Sizes)
	slices.SortStableFunc(v.Causes, func(a, b Cause) int {
		return cmp.Or(cmp.Compare(boolInt(a.Once), boolInt(b.Once)), cmp.Compare(b.Count, a.Count))
	})
	front, call := viaOf(compiled)
	v.Sizes.fitCalls(call, compiled)
	v.Action = action(v, in.Dumped, frameworks.FrontEnd(front), stepFront)
	return v
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
		if c.Kind != string(diff.CauseBatchSize) && c.Kind != string(diff.CauseInputShape) {
			out = append(out, c)
			continue
		}
		if merged < 0 {
			ds := distinct(sz.Seen)
			out = append(out, Cause{Kind: c.Kind, Change: fmt.Sprintf("%s took %d sizes, %d to %d", sz.What, len(ds), ds[0], ds[len(ds)-1])})
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

var reArrow = regexp.MustCompile(`(\S+ → \S+)`)

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

// typed is a type as JAX prints one: a shaped array (f32[4,55,8], whose commas are not the
// sentence's), or any other word.
const typed = `[a-z]+\d*\[[\d,\s]*\](?:\{[^}]*\})?|[^\s,;]+`

// Framework explanations recomp reads old → new from: JAX's "* at x, now f32[24,8] and before
// f32[32,8]" (0.5+), its 0.4 "* at x, seen f32[32,8], but now given f32[24,8]", dynamo's
// "size mismatch at index 1. expected 16, actual 24".
var (
	reJAXNowBefore = regexp.MustCompile(`\* at ([^,]+), now (` + typed + `) and before (` + typed + `)`)
	reJAXSeenNow   = regexp.MustCompile(`\* at ([^,]+), seen (` + typed + `), but now given (` + typed + `)`)
	reDynamoSize   = regexp.MustCompile(`size mismatch at index (\d+)\. expected (\d+), actual (\d+)`)
	reShape        = regexp.MustCompile(`^([a-z]+\d*)\[([\d,]*)\]`)
)

// KindFunctionRebuilt is a cause only a framework's words show: the function object is new (a
// jax.jit, a lambda or a closure made again, often in a loop), so nothing compiled for the old
// one is reused, whatever else changed.
const KindFunctionRebuilt = string(cause.FunctionRebuilt)

// reNeverSeenFn reads JAX's "never seen function: NAME id=N defined at FILE:LINE".
var reNeverSeenFn = regexp.MustCompile(`never seen function:?\s+(\S+)(?: id=\d+)? defined at (\S+)`)

// reasonCause reads a framework's explanation of a recompilation: the cause kind it shows and
// what changed, old → new.
func reasonCause(why string) (kind, ch string) {
	if strings.Contains(why, "re-defined") || strings.Contains(why, "seen another function defined on the same line") {
		if m := reNeverSeenFn.FindStringSubmatch(why); m != nil {
			return KindFunctionRebuilt, fmt.Sprintf("%s made anew (defined at %s)", m[1], baseSite(m[2]))
		}
		return KindFunctionRebuilt, "the function is made anew"
	}
	if m := reJAXNowBefore.FindStringSubmatch(why); m != nil {
		return shapeCause(m[1], m[3], m[2])
	}
	if m := reJAXSeenNow.FindStringSubmatch(why); m != nil {
		return shapeCause(m[1], m[2], m[3])
	}
	if m := reDynamoSize.FindStringSubmatch(why); m != nil {
		kind := string(diff.CauseInputShape)
		if m[1] == "0" {
			kind = string(diff.CauseBatchSize)
		}
		return kind, fmt.Sprintf("dimension %s: %s → %s", m[1], m[2], m[3])
	}
	line, _, _ := strings.Cut(ledger.SummarizeWhy(why), ";")
	return "", strings.TrimSpace(line)
}

// baseSite is FILE:LINE with the file's folder left out.
func baseSite(s string) string {
	if i := strings.LastIndexByte(s, '/'); i >= 0 {
		return s[i+1:]
	}
	return s
}

// shapeCause names what changed between two typed shapes of an argument.
func shapeCause(arg, old, new string) (string, string) {
	o, n := reShape.FindStringSubmatch(old), reShape.FindStringSubmatch(new)
	ch := fmt.Sprintf("%s: %s → %s", strings.TrimSpace(arg), old, new)
	switch {
	case o == nil || n == nil:
		return "", ch
	case o[1] != n[1]:
		return string(diff.CauseDtype), ch
	}
	od, nd := strings.Split(o[2], ","), strings.Split(n[2], ",")
	if len(od) == len(nd) && len(od) > 0 && od[0] != nd[0] && slices.Equal(od[1:], nd[1:]) {
		return string(diff.CauseBatchSize), ch
	}
	return string(diff.CauseInputShape), ch
}

// sizesOf finds the one dimension whose size varies between a program's compilations, from
// the argument shapes the framework logged (JAX's global shapes and types), the sizes its
// explanations name (dynamo) or the shapes the dumps' comparisons show changing, and proposes
// the sizes to pad it to.
func sizesOf(compiled []*ledger.Unit, byUnit map[*ledger.Unit][]diff.Cause) *Sizes {
	var seen []int
	what := ""
	var shapes [][][]int
	for _, u := range compiled {
		shapes = append(shapes, signatureShapes(u.Signature))
	}
	if arg, dim, ok := varyingDim(shapes); ok {
		for _, s := range shapes {
			seen = append(seen, s[arg][dim])
		}
		what = fmt.Sprintf("argument %d, dimension %d", arg, dim)
		if dim == 0 {
			what = "the batch (leading dimension)"
		}
	} else {
		// dynamo: "expected 16, actual 24" per recompilation
		for _, u := range compiled {
			if m := reDynamoSize.FindStringSubmatch(u.Why); m != nil {
				if len(seen) == 0 {
					n, _ := strconv.Atoi(m[2])
					seen = append(seen, n)
				}
				n, _ := strconv.Atoi(m[3])
				seen = append(seen, n)
				what = "dimension " + m[1]
			}
		}
	}
	if len(seen) == 0 {
		seen, what = comparedSizes(compiled, byUnit)
	}
	if len(seen) < 2 {
		return nil
	}
	var sizes []padding.Size
	for _, v := range seen {
		sizes = append(sizes, padding.Size{Value: v, Count: 1})
	}
	plans := padding.Plans(sizes, 8)
	return &Sizes{What: what, Seen: seen, Pattern: padding.Pattern(seen), Plans: plans, Best: padding.Best(plans, 1, 0)}
}

var reShapedArray = regexp.MustCompile(`(?:ShapedArray\()?[a-z]+\d*\[([\d,\s]*)\]`)

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
	for _, m := range reShapedArray.FindAllStringSubmatch(sig, -1) {
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
func action(v Verdict, dumped bool, front, stepFront *framework.FrontEnd) string {
	look := "dump the HLO (" + frameworks.DumpAdvice() + ") and run `recomp explain DIR` to see what changed"
	if dumped {
		look = "compare its versions in the dump (recomp explain) to see what changed"
	}
	fw := frameworks.ByName(v.Framework)
	var parts []string
	for _, c := range v.Causes {
		if len(parts) == 2 {
			break
		}
		kind := diff.CauseKind(c.Kind)
		if kind == "" {
			continue
		}
		adv := ""
		step, _, _ := strings.Cut(v.Role, " (")
		switch {
		case c.Once, c.advice != "":
			adv = c.advice
		case stepFront != nil && stepFront.Steps[step][kind] != "":
			adv = stepFront.Steps[step][kind] // the loop's own remedy: training, evaluation, prediction
		case front != nil && front.Causes[kind] != "":
			adv = front.Causes[kind]
		case fw != nil:
			adv = fw.Advice.Causes[kind]
		}
		if adv == "" {
			adv = diff.AdviceFor(kind)
		}
		if s := v.Sizes; s != nil && (kind == diff.CauseBatchSize || kind == diff.CauseInputShape) {
			if pad := s.padTo(); pad != "" {
				adv = pad + "; " + adv
			}
		}
		if adv != "" && !slices.Contains(parts, adv) {
			parts = append(parts, adv)
		}
	}
	if len(parts) == 0 {
		return look
	}
	return strings.Join(parts, "; and ")
}

// stepRole names the front end's step a program is (Keras's train, test or predict step), from
// what its dumped graphs do (roles, by compilation) and the calls its compilations ran under.
func stepRole(compiled []*ledger.Unit, roles map[*ledger.Unit]string) (*framework.FrontEnd, string) {
	step, via := "", ""
	var methods []string
	for _, u := range compiled {
		if r := roles[u]; r != "" {
			step = r
		}
		if u.Via != nil && (via == "" || via == u.Via.FrontEnd) {
			via = u.Via.FrontEnd
			if !slices.Contains(methods, u.Via.Method) {
				methods = append(methods, u.Via.Method)
			}
		}
	}
	if step == "" && len(methods) == 0 {
		return nil, ""
	}
	return frameworks.StepRole(via, step, methods)
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
