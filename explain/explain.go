package explain

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/recomp/recomp/diff"
	"github.com/recomp/recomp/frameworks"
	"github.com/recomp/recomp/internal/input"
	"github.com/recomp/recomp/ledger"
	"github.com/recomp/recomp/logscan"
	"github.com/recomp/recomp/runfolder"
	"github.com/recomp/recomp/verdict"
)

// Options say how dumps are read and compared.
type Options struct {
	// Stage is the dump stage to compare: "before", "after", a stage name, or "" for
	// before_optimizations when the dump has it (Dumps: when both dumps have it, else
	// after_optimizations when both have that).
	Stage string
	// Text adds the text diff of each changed computation, to the first MaxTexts pairs that
	// differ (0: DefaultMaxTexts).
	Text     bool
	MaxTexts int
	// MaxFileBytes caps what one HLO file may hold, plain or inflated (0: the default).
	MaxFileBytes int64
	// Stdin is read for the path "-".
	Stdin io.Reader
	// Log takes diagnostics (nil: none).
	Log hclog.Logger
	// sourceFiles renames the source files the modules name (a run folder's own files relative
	// to where the run ran).
	sourceFiles func(string) string
}

// DefaultMaxTexts bounds the text diffs of one report.
const DefaultMaxTexts = 1000

// compare says what diff computes for each pair.
func (o *Options) compare() diff.Options {
	if !o.Text {
		return diff.Options{}
	}
	n := o.MaxTexts
	if n <= 0 {
		n = DefaultMaxTexts
	}
	return diff.Options{Text: true, MaxTexts: n}
}

// textsLeftOut is the warning that only the first MaxTexts differing pairs got a text diff.
func (o *Options) textsLeftOut(pairs []*diff.Pair) []string {
	if n := diff.TextsLeftOut(pairs); o.Text && n > 0 {
		return []string{fmt.Sprintf("text diffs of the first %d differing pairs only: %d more differ (their causes and changes are listed)", o.compare().MaxTexts, n)}
	}
	return nil
}

// Logger is where diagnostics go (a null logger when none was given).
func (o *Options) Logger() hclog.Logger {
	if o.Log == nil {
		return hclog.NewNullLogger()
	}
	return o.Log
}

// Dump explains the recompilations in one dump folder: the versions of each program, compared
// in the order they were compiled, linked with the compilations of the logs when logs are
// given (read as one process). path may be a run folder of recomp run: its dump, and its log
// unless logs are given.
func Dump(path string, logs []string, opt Options) (*Diff, error) {
	f, c, folder := runfolder.Read(path)
	if folder {
		if f.Dump == "" {
			return nil, fmt.Errorf("%s: the run folder has no dump/ (recomp run --dump none?)", path)
		}
		path = f.Dump
		// The folder's facts (manifest, probe) go with its own log only: naming that log with
		// --log changes nothing.
		folder = len(logs) == 0 || ownLog(logs, f.Log)
		if folder {
			logs = []string{f.Log}
		}
	}
	d, err := Load(path, opt)
	if err != nil {
		return nil, err
	}
	var rep *ledger.Report
	var wall time.Duration
	if len(logs) > 0 {
		var read []ledger.Log
		ro := ledger.ReadOptions{SameProcess: true, Stdin: opt.Stdin, Log: opt.Log}
		if folder { // the folder read above: its manifest's stop line, not a second look
			read = ledger.Files(logs)
			read[0].Until = StoppedLine(c.Manifest)
			ro.Stages = stagesOf(probeRecords(c)) // the processes the command started, each its own
		} else {
			rs := newRuns() // each run folder among the logs read once
			read = rs.logs(logs)
			if len(logs) == 1 {
				ro.Stages = ownStages(logs[0], rs) // a run folder's run.log, given alone
			}
		}
		s, err := ledger.ReadLogs(read, ro)
		if err != nil {
			return nil, err
		}
		rep = s.Ledger
		if folder {
			wall = folderFacts(c, rep, ledger.Options{})
		}
	}
	r, explained := explain(d, rep, opt)
	if rep != nil {
		setUpFromDump(rep, explained, ledger.Options{})
	}
	if folder {
		r.Warnings = append(c.Notes(), r.Warnings...)
	}
	if rep != nil {
		r.Verdict = verdict.Build(verdict.Input{Ledger: rep, Wall: wall, Explained: explained, Dumped: true})
	}
	return r, nil
}

// Dumps compares the dumps of two runs (folders or HLO files): modules paired by family, stage
// and order, then by structure.
func Dumps(a, b string, opt Options) (*Diff, error) {
	if err := input.CheckStdin([]string{a, b}); err != nil {
		return nil, err
	}
	da, err := Load(a, opt)
	if err != nil {
		return nil, err
	}
	db, err := Load(b, opt)
	if err != nil {
		return nil, err
	}
	if da, db, err = oneStage(a, b, da, db, opt); err != nil {
		return nil, err
	}
	return CompareDumps(da, db, opt), nil
}

// CompareDumps is the report of two dumps compared (recomp diff): their modules paired and
// compared, what stayed unpaired, and both dumps' problems and warnings.
func CompareDumps(da, db *diff.Dump, opt Options) *Diff {
	dd := diff.Dumps(da, db, opt.compare())
	d := &Diff{Command: "diff", UnpairedA: paths(dd.UnpairedA), UnpairedB: paths(dd.UnpairedB),
		Problems: slices.Concat(da.Problems, db.Problems), Warnings: slices.Concat(da.Warnings, db.Warnings)}
	for _, p := range dd.Pairs {
		d.Pairs = append(d.Pairs, pairReport(p))
	}
	d.Warnings = append(d.Warnings, opt.textsLeftOut(dd.Pairs)...)
	opt.Logger().Debug("compared", "pairs", len(d.Pairs), "unpaired", len(d.UnpairedA)+len(d.UnpairedB), "problems", len(d.Problems))
	return d
}

// oneStage loads again, at the stage both have, a dump whose default stage the other lacks (a
// kept its modules before and after optimisation, b only after): two runs are compared at one
// stage, not one's unoptimised modules with the other's optimised ones. Dumps of one file, and
// dumps of a stage named, are left as they are.
func oneStage(a, b string, da, db *diff.Dump, opt Options) (*diff.Dump, *diff.Dump, error) {
	if opt.Stage != "" || len(da.Files) == 0 || len(db.Files) == 0 || len(da.Stages) == 0 || len(db.Stages) == 0 {
		return da, db, nil
	}
	sa, sb := da.Files[0].Stage, db.Files[0].Stage
	if sa == sb {
		return da, db, nil
	}
	for _, s := range []string{diff.StageBefore, diff.StageAfter} {
		if !slices.Contains(da.Stages, s) || !slices.Contains(db.Stages, s) {
			continue
		}
		o := opt
		o.Stage = s
		var err error
		if sa != s {
			da, err = Load(a, o)
		}
		if err == nil && sb != s {
			db, err = Load(b, o)
		}
		return da, db, err
	}
	return da, db, nil
}

// explain compares the versions of each program of a dump, linked with the compilations of a
// log's report (nil without logs); it also returns each comparison with the log's
// compilation of its later module, for the verdict.
func explain(dump *diff.Dump, rep *ledger.Report, opt Options) (*Diff, []verdict.Explained) {
	var links map[*diff.DumpFile]*ledger.Unit
	if rep != nil {
		links = LinkDumps(dump, rep)
		opt.Logger().Debug("linked dumps to log compilations", "linked", len(links), "files", len(dump.Files))
	}
	retraced := map[string]bool{} // auto-clustering groups whose function was traced again
	for _, u := range links {
		if u.Retraced {
			retraced[frameworks.Group(u.Module)] = true
		}
	}
	keys := programKeys(dump, links, retraced)
	histories := diff.ExplainBy(dump, func(f *diff.DumpFile) string { return keys[f] }, opt.compare())
	d := &Diff{Command: "explain", Problems: dump.Problems, Warnings: dump.Warnings}
	var explained []verdict.Explained
	byName := map[string]int{} // a family's place in d.Families: one row for its histories in every process
	for _, h := range histories {
		i, ok := byName[h.Family]
		if !ok {
			i = len(d.Families)
			byName[h.Family] = i
			d.Families = append(d.Families, Family{Family: h.Family})
		}
		f := &d.Families[i]
		for _, df := range h.Files {
			f.Files = append(f.Files, df.Path)
			if u := links[df]; u != nil {
				f.LogCompilations++
				if u.Hash != "" && !slices.Contains(f.LogHashes, u.Hash) {
					f.LogHashes = append(f.LogHashes, u.Hash)
				}
			}
		}
		for _, p := range h.Steps {
			rp := pairReport(p)
			if h.Family != p.B.Family {
				rp.Group = h.Family
			}
			if u := links[p.A]; u != nil {
				rp.HashA = u.Hash
			}
			if u := links[p.B]; u != nil {
				rp.HashB = u.Hash
				stackAdvice(p.Result, u.Producer, p.B.Inference || u.NoGrad)
				stepAdvice(p.Result, p.B.Role, u)
			} else if p.B.Role != "" { // no log: the dump's graph or source files say the step
				stepAdvice(p.Result, p.B.Role, &ledger.Unit{Family: p.B.Family, Module: p.B.ModuleName})
			}
			d.Pairs = append(d.Pairs, rp)
			if p.Result != nil {
				explained = append(explained, verdict.Explained{Program: h.Family, Unit: links[p.B], Causes: p.Result.Causes, Role: p.B.Role,
					Earlier: links[p.A], EarlierRole: p.A.Role, Inference: p.B.Inference})
			}
		}
	}
	var pairs []*diff.Pair
	for _, h := range histories {
		pairs = append(pairs, h.Steps...)
	}
	d.Warnings = append(d.Warnings, opt.textsLeftOut(pairs)...)
	opt.Logger().Debug("explained", "families", len(d.Families), "pairs", len(d.Pairs), "problems", len(d.Problems))
	return d, explained
}

// LinkDumps links each dumped module with the compilation of the log that made it, by
// identity, never by position among different programs. Both sides meet by program key
// (frameworks.FunctionKey: TF's cluster signatures and their dumps, PyTorch/XLA's graphs named
// after a Python frame in the log and SyncTensorsGraph in the dump) and, within it, by the
// identity of the one compiled function where the stack has one (frameworks.FunctionID: TF's
// traced function with its id, so a Keras train step never joins a test step's dump); then
// the i-th compilation of that identity is its i-th dump, in the order of the dump's module
// counter (which is the order of compilation in the process). A compilation the log left
// unnamed (PyTorch/XLA's first torch.compile graph) takes the key of its stack's graphs when
// the dump has one such key.
func LinkDumps(d *diff.Dump, rep *ledger.Report) map[*diff.DumpFile]*ledger.Unit {
	dumpKeys := map[*frameworks.Framework][]string{} // the program keys of the dump, by stack
	for _, f := range d.Files {
		k := frameworks.FunctionKey(f.Family)
		if fw := frameworks.KeyStack(f.Family); fw != nil && !slices.Contains(dumpKeys[fw], k) {
			dumpKeys[fw] = append(dumpKeys[fw], k)
		}
	}
	var compiled []*ledger.Unit
	for _, m := range rep.Modules {
		compiled = append(compiled, m.Compiled()...)
	}
	ledger.SortUnits(compiled)
	return linkInOrder(d, compiled, func(u *ledger.Unit) int { return u.PID }, func(u *ledger.Unit) (linkID, bool) {
		if u.Family == ledger.Unnamed {
			keys := dumpKeys[frameworks.ForProducer(u.Producer)]
			if len(keys) != 1 {
				return linkID{}, false // no graph of its stack, or several: no identity to join by
			}
			return linkID{keys[0], keys[0], 0}, true
		}
		fam := u.Family
		if u.Lambda != "" { // a lambda's program (jit__lambda [trainer.py:270]): its dumps name the module alone
			fam = strings.TrimSuffix(fam, " ["+u.Lambda+"]")
		}
		return linkID{frameworks.FunctionKey(fam), frameworks.FunctionID(u.Module), 0}, true
	})
}

// linkID is the identity a compilation and its dump are joined by: the program key and the
// identity of the one compiled function (LinkDumps), in its process (linkInOrder).
type linkID struct {
	key, fn string
	pid     int
}

// linkInOrder links each dumped module with a compilation of the same identity (idOf; false
// leaves a compilation out) in the same process: the i-th compilation of an identity, in the
// order given, with its i-th dump, in the order of the dump's module counter. A dump whose
// processes have folders of their own (diff.DumpFile.PID) is joined with the compilations of
// the process of each (pidOf; nil when the compilations name none); a process the other side
// does not name is the one whose modules and compilations name none (the process that dumped
// into the folder itself, or the only one that compiled).
func linkInOrder[T any](d *diff.Dump, compiled []T, pidOf func(T) int, idOf func(T) (linkID, bool)) map[*diff.DumpFile]T {
	dumped, named := map[int]bool{}, map[int]bool{}
	for _, f := range d.Files {
		dumped[f.PID] = true
	}
	if pidOf != nil {
		for _, c := range compiled {
			named[pidOf(c)] = true
		}
	}
	byID := map[linkID][]T{}
	for _, c := range compiled {
		if k, ok := idOf(c); ok {
			if pidOf != nil && dumped[pidOf(c)] {
				k.pid = pidOf(c)
			}
			byID[k] = append(byID[k], c)
		}
	}
	links := map[*diff.DumpFile]T{}
	next := map[linkID]int{}
	for _, f := range d.Files {
		k := linkID{frameworks.FunctionKey(f.Family), frameworks.FunctionID(f.ModuleName), 0}
		if named[f.PID] {
			k.pid = f.PID
		}
		if i := next[k]; i < len(byID[k]) {
			links[f] = byID[k][i]
			next[k] = i + 1
		}
	}
	return links
}

// LinkEntries links compile requests with the dumped modules they made, by the identity
// LinkDumps joins a whole report by: the i-th compilation of a function with its i-th dump, in
// the order of the dump's module counter.
func LinkEntries(d *diff.Dump, es []ledger.Entry) map[*ledger.Entry]*diff.DumpFile {
	var compiled []*ledger.Entry
	for i := range es {
		if es[i].Compiled {
			compiled = append(compiled, &es[i])
		}
	}
	links := linkInOrder(d, compiled, nil, func(e *ledger.Entry) (linkID, bool) {
		return linkID{frameworks.FunctionKey(e.Family), frameworks.FunctionID(e.Module), 0}, true
	})
	out := make(map[*ledger.Entry]*diff.DumpFile, len(links))
	for f, e := range links {
		out[e] = f
	}
	return out
}

// programKeys groups dumps for explain: by the program the log says compiled them (with its
// role where the dump's graph says it: a Keras step), else by what the dump's name says
// (frameworks.DumpProgram). Eager one-op programs are left out; the clusters TF formed anew
// each time a function was traced again are one program. A dump whose compilation the log left
// unnamed belongs to the program compiled next in its stack when the framework says that one was
// compiled before (dynamo's "Recompiling function forward": its first compilation is the unnamed
// one); package diff checks that they are one program before it compares them.
func programKeys(d *diff.Dump, links map[*diff.DumpFile]*ledger.Unit, retraced map[string]bool) map[*diff.DumpFile]string {
	keys := make(map[*diff.DumpFile]string, len(d.Files))
	unnamed := map[string]*diff.DumpFile{} // the latest dump of a stack's key whose compilation is unnamed
	seen := map[string]bool{}              // programs linked so far
	for _, f := range d.Files {
		keys[f] = programKey(f, links, retraced)
		u := links[f]
		if u == nil {
			continue
		}
		k := frameworks.FunctionKey(f.Family)
		switch {
		case u.Family == ledger.Unnamed:
			unnamed[k] = f
		case u.SeenBefore && !seen[u.Family] && unnamed[k] != nil:
			keys[unnamed[k]] = keys[f]
			delete(unnamed, k)
		}
		seen[u.Family] = true
	}
	return keys
}

// programKey is the key of one dump (programKeys).
func programKey(f *diff.DumpFile, links map[*diff.DumpFile]*ledger.Unit, retraced map[string]bool) string {
	if u := links[f]; u != nil {
		if u.Eager {
			return ""
		}
		if g := frameworks.Group(u.Module); g != "" && retraced[g] {
			return g // the clusters of one function traced again: one program's versions
		}
		return frameworks.WithRole(u.Family, f.Role) // a Keras step: train, test, predict
	}
	return frameworks.DumpProgram(f.ModuleName, f.Role)
}

// Load reads a dump folder or an HLO file; a module that cannot be read is a Problem of the
// dump, and is logged.
func Load(path string, opt Options) (*diff.Dump, error) {
	d, err := diff.LoadDump(path, diff.LoadOptions{Stage: opt.Stage, Stdin: opt.Stdin, MaxFileBytes: opt.MaxFileBytes,
		SourceFiles: opt.sourceFiles})
	if err != nil {
		return nil, err
	}
	log := opt.Logger()
	log.Debug("loaded dump", "path", path, "modules", len(d.Files), "ignored", d.Ignored, "problems", len(d.Problems),
		"stages", d.Stages)
	for _, p := range d.Problems {
		log.Warn("unreadable module", "problem", p.String())
	}
	return d, nil
}

func paths(files []*diff.DumpFile) []string {
	var out []string
	for _, f := range files {
		out = append(out, f.Path)
	}
	return out
}

func pairReport(p *diff.Pair) *DiffPair {
	return &DiffPair{Pair: p, Text: p.Text}
}

// stackAdvice gives a comparison's causes the advice of the stack that compiled the program, where
// it has its own for the cause (a cause expected once keeps the comparison's own advice): a
// PyTorch/XLA program is not told about tf.function or jax.jit. A later graph that computes no
// gradient (inference) gets the stack's remedy that loses no data, as the verdict does.
func stackAdvice(r *diff.Result, p logscan.Producer, inference bool) {
	fw := frameworks.ForProducer(p)
	if r == nil || fw == nil {
		return
	}
	for i, c := range r.Causes {
		adv := fw.Advice.Causes[c.Kind]
		if a := fw.Advice.Inference[c.Kind]; inference && a != "" {
			adv = a
		}
		if adv != "" && !c.OwnAdvice() {
			r.Causes[i].Advice = adv
		}
	}
}

// stepAdvice gives a comparison's causes the advice of the front end's step the program is (Keras's
// evaluation and prediction keep every sample; only training drops its last partial batch), from
// what the later graph does (role) and the front end's call its compilation ran under.
func stepAdvice(r *diff.Result, role string, u *ledger.Unit) {
	if r == nil {
		return
	}
	via, methods := "", []string(nil)
	if u.Via != nil {
		via, methods = u.Via.FrontEnd, []string{u.Via.Loop()}
	}
	if role == "" { // the stack's explanation names the function, and the front end defines it
		if f, s := frameworks.FrontStep(u.Producer, u.Module, u.Why); s != "" && (via == "" || via == f.Name) {
			role, via = s, f.Name
		}
	}
	f, step := frameworks.StepRole(via, role, methods)
	if f == nil {
		return
	}
	step, _, _ = strings.Cut(step, " (")
	stack := ""
	if fw := frameworks.ForProducer(u.Producer); fw != nil {
		stack = fw.Name
	} else if fw := frameworks.KeyStack(u.Family); fw != nil { // a dump without its log
		stack = fw.Name
	}
	if u.Via != nil { // a tf.data dataset batches the data, on any backend: the front end's tf.data remedies
		stack = frameworks.AdviceStack(stack, u.Via.Data)
	}
	for i, c := range r.Causes {
		if adv := f.StepAdvice(stack, step, c.Kind); adv != "" && !c.OwnAdvice() {
			r.Causes[i].Advice = adv
		}
	}
}

// ownLog says whether every log named is the run folder's own log (the same file).
func ownLog(logs []string, own string) bool {
	st, err := os.Stat(own)
	if err != nil {
		return false
	}
	for _, l := range logs {
		if o, err := os.Stat(l); err != nil || !os.SameFile(st, o) {
			return false
		}
	}
	return true
}

// setUpFromDump takes back the recompilations the dump shows to be set-up: a program's second
// compilation whose every cause against the first is expected once (state the first step built,
// an optimiser's), for logs that do not show each graph's executions (PyTorch/XLA's
// PT_XLA_DEBUG_LEVEL=1, as recomp run sets it).
func setUpFromDump(rep *ledger.Report, explained []verdict.Explained, opt ledger.Options) {
	for _, e := range explained {
		if e.Unit == nil || len(e.Causes) == 0 {
			continue
		}
		once := true
		for _, c := range e.Causes {
			once = once && c.Once
		}
		if once {
			rep.SetUp(e.Unit, opt)
		}
	}
}
