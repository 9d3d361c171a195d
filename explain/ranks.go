package explain

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/recomp/recomp/diff"
	"github.com/recomp/recomp/gate"
	"github.com/recomp/recomp/internal/input"
	"github.com/recomp/recomp/internal/lazyre"
	"github.com/recomp/recomp/internal/openfile"
	"github.com/recomp/recomp/internal/option"
	"github.com/recomp/recomp/ledger"
	"github.com/recomp/recomp/runfolder"
)

// The ranks of one job: every rank (a process of a distributed run) runs the same programs in
// the same order, and a rank that compiles something the others do not slows or hangs them
// all at the next collective. Each rank's compile requests are lined up (ledger.Sequence), ranks
// that behave alike are grouped, and each rank outside the largest group is explained at the
// first request where it departs from it: which request, at which training step, compiled or
// served, and the cause against the majority's module of that program.

// RanksOptions say how the logs of a job's ranks are read.
type RanksOptions struct {
	// Read is how the logs are read (the warm-up policy is not used); each log is a process,
	// and a log in which a launcher's prefix names ranks holds one per rank.
	Read ledger.ReadOptions
	// RankFrom, when set, names a log's rank: its first group in the first line it matches.
	RankFrom *regexp.Regexp
	// Step finds the step number in a line the program prints (DefaultStep when nil).
	Step *regexp.Regexp
	// Dumps are the ranks' dump folders, matched to ranks by the rank number in their names,
	// else the k-th dump is the k-th rank (by rank number).
	Dumps []string
	// Warnings are said first in the report (RankInputs' files left out).
	Warnings []string
	Options
	// runs are the run folders the command read (nil: each is read here, once).
	runs *runs
}

// RankSettings are how a job's ranks and steps are named, as a user gives them: expressions
// that Options compiles.
type RankSettings struct {
	RankFrom string // a log's rank is the first group of the first line matching it
	Step     string // the step number is the first group of a line matching it
}

// Options compiles the settings into the options they make.
func (s RankSettings) Options() (RanksOptions, error) {
	var opt RanksOptions
	var err error
	if s.RankFrom != "" {
		if opt.RankFrom, err = regexp.Compile(s.RankFrom); err != nil {
			return opt, option.New([]string{"rank-from"}, "%[1]s: %[2]v", err)
		}
	}
	if s.Step != "" {
		if opt.Step, err = regexp.Compile(s.Step); err != nil {
			return opt, option.New([]string{"step"}, "%[1]s: %[2]v", err)
		}
		if opt.Step.NumSubexp() < 1 {
			return opt, option.New([]string{"step"}, "%[1]s %[2]q: want a group around the step number, e.g. 'step (\\d+)'", s.Step)
		}
	}
	return opt, nil
}

// RankInputs expands what was given for the ranks of a job: a folder of run folders (one per
// process: r0/, r1/, …) stands for their run.logs and dumps; a run folder for its run.log and
// dump; another folder for the logs in it (*.log, *.log.gz) and, when no dump is given, its dump
// folders. A file of such a folder named as a log that is not a regular file (a FIFO, a device)
// is left out, with a warning.
func RankInputs(paths, dumps []string) (logs, dumpDirs, warnings []string, err error) {
	for _, p := range paths {
		st, err := os.Stat(p)
		if p == input.Stdin || err != nil || !st.IsDir() {
			logs = append(logs, p)
			continue
		}
		if f, ok := runfolder.Open(p); ok {
			logs = append(logs, f.Log)
			if f.Dump != "" && len(dumps) == 0 {
				dumpDirs = append(dumpDirs, f.Dump)
			}
			continue
		}
		if runs := runfolder.Runs(p); len(runs) > 0 {
			sortFolders(runs)
			for _, f := range runs {
				logs = append(logs, f.Log)
				if f.Dump != "" && len(dumps) == 0 {
					dumpDirs = append(dumpDirs, f.Dump)
				}
			}
			continue
		}
		ls, ds, skipped, err := LogsAndDumps(p)
		if err != nil {
			return nil, nil, nil, err
		}
		warnings = append(warnings, skipped...)
		if len(ls) == 0 {
			return nil, nil, warnings, fmt.Errorf("%s: no logs (*.log) and no run folders in the folder", p)
		}
		sortNatural(ls)
		sortNatural(ds)
		logs = append(logs, ls...)
		if len(dumps) == 0 {
			dumpDirs = append(dumpDirs, ds...)
		}
	}
	return logs, append(dumpDirs, dumps...), warnings, nil
}

// ExpandRuns replaces each folder of run folders among paths by its run folders (in natural
// order: r2 before r10); the other paths are kept as given.
func ExpandRuns(paths []string) []string {
	var out []string
	for _, p := range paths {
		runs := []runfolder.Folder(nil)
		if p != input.Stdin {
			runs = runfolder.Runs(p)
		}
		if len(runs) == 0 {
			out = append(out, p)
			continue
		}
		sortFolders(runs)
		for _, f := range runs {
			out = append(out, f.Dir)
		}
	}
	return out
}

func sortFolders(fs []runfolder.Folder) {
	dirs := make([]string, len(fs))
	byDir := make(map[string]runfolder.Folder, len(fs))
	for i, f := range fs {
		dirs[i] = f.Dir
		byDir[f.Dir] = f
	}
	sortNatural(dirs)
	for i, d := range dirs {
		fs[i] = byDir[d]
	}
}

// probeRank says a rank came from the probe's records (the process index a stack gave it),
// not from a launcher's variable.
const probeRank = "probe"

// manifestRank is the rank the launcher's environment gave a run folder's run (recorded by
// recomp run in its manifest), and the variable that gave it; else JAX's process index the
// probe recorded at the run's compilations.
func (rs *runs) manifestRank(logPath string) (rank, from string) {
	r := rs.of(logPath)
	if r == nil {
		return "", ""
	}
	if m := r.c.Manifest; m != nil {
		if rank, from := m.Rank(); rank != "" {
			return rank, from
		}
	}
	if recs, err := r.probe(); err == nil {
		if i, ok := runfolder.ProcessIndex(recs); ok {
			return strconv.Itoa(i), probeRank
		}
	}
	return "", ""
}

// reRankName finds a rank in a file or folder name: rank3.log, worker-3, process_3, dump-rank3.
var reRankName = lazyre.New(`(?i)(?:rank|proc|process|worker|task|node|host)[-_.]?(\d+)`)

// reNumbered is a name that is a word and a number, the number last: r3, gpu-7, n03, 2.
var reNumbered = lazyre.New(`^[A-Za-z]*[-_.]?(\d{1,9})$`)

// nameRank is the rank a path's base name gives ("" when none): a number after a word that
// says rank (rank3.log, worker-3), else the number that ends a short name (r3, gpu-7.log; a
// run folder's run.log is named by its folder).
func nameRank(path string) string {
	if f, ok := runfolder.Of(path); ok {
		path = f.Dir
	}
	base := filepath.Base(filepath.Clean(path))
	if m := reRankName.FindAllStringSubmatch(base, -1); len(m) > 0 {
		return trimZeros(m[len(m)-1][1])
	}
	for _, ext := range []string{".gz", ".log", ".txt"} {
		base = strings.TrimSuffix(base, ext)
	}
	if m := reNumbered.FindStringSubmatch(base); m != nil {
		return trimZeros(m[1])
	}
	return ""
}

func trimZeros(s string) string {
	t := strings.TrimLeft(s, "0")
	if t == "" {
		return "0"
	}
	return t
}

// reNumberOrNot splits a name into its runs of digits and of other characters.
var reNumberOrNot = lazyre.New(`\d+|\D+`)

// sortNatural sorts names with their numbers compared as numbers (rank2 before rank10).
func sortNatural(xs []string) {
	parts := make(map[string][]string, len(xs)) // each name split once, not at each comparison
	for _, x := range xs {
		parts[x] = reNumberOrNot.FindAllString(x, -1)
	}
	sort.SliceStable(xs, func(i, j int) bool {
		a, b := parts[xs[i]], parts[xs[j]]
		for k := 0; k < len(a) && k < len(b); k++ {
			if a[k] == b[k] {
				continue
			}
			x, e1 := strconv.Atoi(a[k])
			y, e2 := strconv.Atoi(b[k])
			if e1 == nil && e2 == nil {
				return x < y
			}
			return a[k] < b[k]
		}
		return len(a) < len(b)
	})
}

// rankFromLog is the first group of the first line of a log that re matches within its first
// maxLineHead bytes ("" when none does, or the log cannot be read again: standard input).
func rankFromLog(path string, re *regexp.Regexp) string {
	if path == input.Stdin {
		return ""
	}
	f, err := input.Open(path, nil)
	if err != nil {
		return ""
	}
	defer f.Close()
	rank := ""
	eachLineHead(f, func(_ int, head []byte) bool {
		m := re.FindSubmatch(head)
		switch {
		case m == nil:
			return true
		case len(m) > 1:
			rank = trimZeros(string(m[1]))
		default:
			rank = string(m[0])
		}
		return false
	})
	return rank
}

// ReadRankInputs is ReadRanks of what a command line names: the logs and dump folders paths and
// dumps stand for (RankInputs), the files left out among opt.Warnings.
func ReadRankInputs(paths, dumps []string, opt RanksOptions) (*Ranks, error) {
	logs, dumpDirs, skipped, err := RankInputs(paths, dumps)
	if err != nil {
		return nil, err
	}
	if err := input.CheckStdin(logs); err != nil {
		return nil, err
	}
	opt.Warnings, opt.Dumps = append(opt.Warnings, skipped...), dumpDirs
	return ReadRanks(LogsOf(logs), opt)
}

// ReadRanks reads the logs of one job's ranks and lines up their compile sequences.
func ReadRanks(logs []ledger.Log, opt RanksOptions) (*Ranks, error) {
	ro := opt.Read
	ro.SameProcess = false
	if ro.Log == nil {
		ro.Log = opt.Log
	}
	s, err := ledger.ReadLogs(logs, ro)
	if err != nil {
		return nil, err
	}
	return RanksOf(s, opt), nil
}

// RanksOf lines up the compile sequences of the processes of a scan (each log, or each rank a
// launcher's prefix named, a process of its own).
func RanksOf(s *ledger.Scan, opt RanksOptions) *Ranks {
	out := &Ranks{Scan: &Scan{Scan: *s}, Warnings: slices.Clone(opt.Warnings)}
	step := opt.Step
	if step == nil {
		step = DefaultStep.Regexp()
	}
	rs := opt.runs
	if rs == nil {
		rs = newRuns()
	}
	// Name each process's rank.
	byLog := map[string]string{}            // --rank-from per log
	manifestRanks := map[string][2]string{} // log -> rank, what named it
	for _, sq := range s.Ledger.Sequences {
		logPath := stripRank(sq.File)
		if _, ok := manifestRanks[logPath]; !ok {
			r, from := rs.manifestRank(logPath)
			manifestRanks[logPath] = [2]string{r, from}
		}
	}
	seen := map[string]int{}
	for i, sq := range s.Ledger.Sequences {
		logPath := stripRank(sq.File)
		ri := &RankInfo{Process: sq.Process, Log: logPath, Name: rs.userName(logPath), Sequence: sq}
		if sq.Rank != "" {
			ri.Name += " [rank " + sq.Rank + "]"
		}
		switch {
		case sq.Rank != "":
			ri.Rank, ri.RankFrom = sq.Rank, "launcher"
		case opt.RankFrom != nil:
			r, ok := byLog[logPath]
			if !ok {
				r = rankFromLog(logPath, opt.RankFrom)
				byLog[logPath] = r
			}
			if r != "" {
				ri.Rank, ri.RankFrom = r, "--rank-from"
			}
		}
		if mr := manifestRanks[logPath]; ri.Rank == "" && mr[0] != "" {
			ri.Rank, ri.RankFrom = mr[0], "environment"
			if mr[1] == probeRank {
				ri.RankFrom = "probe"
			}
		}
		if ri.Rank == "" {
			if r := nameRank(rs.userName(logPath)); r != "" {
				ri.Rank, ri.RankFrom = r, "file name"
			}
		}
		if ri.Rank == "" {
			ri.Rank, ri.RankFrom = "#"+strconv.Itoa(i), "order"
		}
		base := ri.Rank
		if n := seen[base]; n > 0 {
			other := out.Ranks[slices.IndexFunc(out.Ranks, func(x *RankInfo) bool { return x.Rank == base })]
			ri.Rank = fmt.Sprintf("%s.%d", base, n)
			out.Warnings = append(out.Warnings, fmt.Sprintf("%s: rank %s is named twice (also %s): this one is told apart as %s",
				sq.Process, base, other.Process, ri.Rank))
		}
		seen[base]++
		if i < len(s.Ledger.Procs) && s.Ledger.Procs[i].Evidence == 0 {
			ri.NoEvidence = true
			out.Warnings = append(out.Warnings, fmt.Sprintf("%s: no compile evidence in its log (its compile logging was off?): its requests cannot be compared", sq.Process))
		}
		ri.Compilations, ri.Hits, ri.CompileTime, ri.FirstCompile, ri.DateKnown = sq.Compilations, sq.Hits, sq.CompileTime, sq.First, sq.DateKnown
		out.Ranks = append(out.Ranks, ri)
	}
	sortRanks(out.Ranks)
	group(out)
	diverge(out, opt, step)
	skew(out)
	for _, g := range s.Parts {
		// One rank's log rotated into parts: its parts were lined up as ranks of their own.
		out.Split = append(out.Split, slices.Clone(g))
		out.SplitNotes = append(out.SplitNotes, fmt.Sprintf("%s look like one rank's log in %d parts (rotated while it was written): lined up as ranks of their own, "+
			"they are not compared as one rank; join them into one file, oldest first, and give that", strings.Join(g, ", "), len(g)))
	}
	out.Warnings = append(out.Warnings, out.SplitNotes...)
	opt.Logger().Debug("ranks", "ranks", len(out.Ranks), "groups", len(out.Groups), "divergences", len(out.Divergences))
	return out
}

// DivergenceFailures are the gate failures of ranks that departed from the majority.
func DivergenceFailures(r *Ranks) []gate.Failure {
	var out []gate.Failure
	for _, d := range r.Divergences {
		out = append(out, gate.Failure{Kind: gate.FailDivergence, Module: d.Module, Family: d.Program, File: d.File, Line: d.Line,
			Message: fmt.Sprintf("rank %s departed from the %s at its request %d: %s", d.Rank, r.Reference(), d.Index, d.Kind), Reason: d.Summary})
	}
	return out
}

// sortRanks orders ranks by number (then by name).
func sortRanks(rs []*RankInfo) {
	sort.SliceStable(rs, func(i, j int) bool { return rankLess(rs[i].Rank, rs[j].Rank) })
}

func rankLess(a, b string) bool {
	x, e1 := strconv.ParseFloat(strings.TrimPrefix(a, "#"), 64)
	y, e2 := strconv.ParseFloat(strings.TrimPrefix(b, "#"), 64)
	if e1 == nil && e2 == nil && x != y {
		return x < y
	}
	return a < b
}

// group puts ranks with equal sequences together; the largest group is the majority (on a tie,
// the group of the lowest rank).
func group(out *Ranks) {
	byDigest := map[uint64]*RankGroup{}
	for _, r := range out.Ranks {
		g := byDigest[r.Sequence.Digest]
		if g == nil {
			g = &RankGroup{Digest: r.Sequence.DigestString(), Requests: r.Sequence.Count}
			byDigest[r.Sequence.Digest] = g
			out.Groups = append(out.Groups, g)
		}
		g.Ranks = append(g.Ranks, r.Rank)
	}
	sort.SliceStable(out.Groups, func(i, j int) bool { return len(out.Groups[i].Ranks) > len(out.Groups[j].Ranks) })
	if len(out.Groups) > 0 {
		out.Groups[0].Majority = true
	}
	index := map[string]int{}
	for i, g := range out.Groups {
		index[g.Digest] = i
	}
	for _, r := range out.Ranks {
		r.Group = index[r.Sequence.DigestString()]
	}
}

// diverge finds, for each rank outside the majority, the first request at which its sequence
// departs from the majority's, and explains it; it also lists the requests ranks compiled while
// the majority got them from the cache.
func diverge(out *Ranks, opt RanksOptions, step *regexp.Regexp) {
	if len(out.Groups) < 2 {
		return
	}
	var refRank *RankInfo
	for _, r := range out.Ranks {
		if r.Group == 0 {
			refRank = r
			break
		}
	}
	ref := out.Reference()
	dumps := rankDumps(out, opt)
	refUnits := refRank.Sequence.Entries
	var todo []pendingStep
	for _, r := range out.Ranks {
		if r.Group == 0 {
			continue
		}
		units := r.Sequence.Entries
		if d, u := firstDivergence(r, refRank, ref, dumps); d != nil {
			r.Divergence = d
			out.Divergences = append(out.Divergences, d)
			if u != nil {
				todo = append(todo, pendingStep{d, u})
			}
		}
		if r.Divergence == nil {
			// equal as far as listed, different beyond: say so
			d := &Divergence{Rank: r.Rank, Index: ledger.MaxSequence + 1, Step: -1, Kind: DivergeLater,
				Summary: fmt.Sprintf("rank %s's requests agree with the %s's for the first %d; they differ later (%d requests, the %s %d)",
					r.Rank, ref, ledger.MaxSequence, r.Sequence.Count, ref, refRank.Sequence.Count)}
			r.Divergence = d
			out.Divergences = append(out.Divergences, d)
		}
		out.CacheMisses = append(out.CacheMisses, rankCacheMisses(r, units, refUnits)...)
	}
	setSteps(todo, step)
}

// pendingStep is a divergence whose step is still to be read from its log, and its request.
type pendingStep struct {
	d *Divergence
	u *ledger.Entry
}

// firstDivergence is the first request at which rank r's sequence departs from the reference
// rank's, explained (nil when none does as far as listed), and the rank's request there (nil
// when the rank stopped short).
func firstDivergence(r, refRank *RankInfo, ref string, dumps map[string]*rankDump) (*Divergence, *ledger.Entry) {
	units, refUnits := r.Sequence.Entries, refRank.Sequence.Entries
	n := max(len(units), len(refUnits))
	for i := 0; i < n; i++ {
		var u, m *ledger.Entry
		if i < len(units) {
			u = &units[i]
		}
		if i < len(refUnits) {
			m = &refUnits[i]
		}
		if u != nil && m != nil && ledger.SeqKey(u) == ledger.SeqKey(m) {
			continue
		}
		d := &Divergence{Rank: r.Rank, Index: i + 1, Step: -1, Kind: divergenceKind(u, m)}
		if u == nil { // the rank stopped short: the majority's request is the event
			d.Program, d.Module, d.Majority, d.MajorityArgs = m.Family, m.Module, m.Variant(), ShortSignature(m.Signature)
			d.Summary = fmt.Sprintf("rank %s made %d request(s); the %s's request %d is %s %s, which rank %s never made",
				r.Rank, len(units), ref, i+1, verb(m), m.Family, r.Rank)
			return d, nil
		}
		d.Program, d.Module, d.Variant, d.Compiled, d.File, d.Line, d.Site = u.Family, u.Module, u.Variant(), u.Compiled, u.File, u.Line, u.Site
		d.Args = ShortSignature(u.Signature)
		against := majorityUnit(refUnits, u, i)
		if against != nil {
			d.Majority, d.MajorityArgs = against.Variant(), ShortSignature(against.Signature)
		}
		explainDivergence(d, u, against, r, refRank, ref, dumps)
		return d, u
	}
	return nil, nil
}

// divergenceKind is how a rank's request u departs from the majority's m (either may be nil,
// not both).
func divergenceKind(u, m *ledger.Entry) DivergenceKind {
	switch {
	case u != nil && m != nil && u.Program == m.Program && u.Variant() == m.Variant():
		if !u.Compiled {
			return DivergeCacheHit
		}
		return DivergeCacheMiss
	case u != nil && m != nil && u.Program == m.Program:
		return DivergeVariant
	case u != nil && m != nil:
		return DivergeProgram
	case u != nil:
		return DivergeExtra
	}
	return DivergeMissing
}

// rankCacheMisses are the requests rank r compiled while the majority got them from a cache,
// up to its divergence (and that one, when it is a cache miss).
func rankCacheMisses(r *RankInfo, units, refUnits []ledger.Entry) []RankMiss {
	var out []RankMiss
	limit := min(len(units), len(refUnits))
	if r.Divergence != nil && r.Divergence.Index-1 < limit {
		limit = r.Divergence.Index - 1
	}
	for i := 0; i < limit; i++ {
		if units[i].Compiled && !refUnits[i].Compiled {
			out = append(out, RankMiss{Rank: r.Rank, Program: units[i].Family, File: units[i].File, Line: units[i].Line})
		}
	}
	if d := r.Divergence; d != nil && d.Kind == DivergeCacheMiss {
		out = append(out, RankMiss{Rank: r.Rank, Program: d.Program, File: d.File, Line: d.Line})
	}
	return out
}

// setSteps reads the step of each pending divergence from its log, one pass per log.
func setSteps(todo []pendingStep, step *regexp.Regexp) {
	byFile := map[string][]pendingStep{}
	for _, p := range todo {
		byFile[p.u.File] = append(byFile[p.u.File], p)
	}
	for f, ps := range byFile {
		var lines []int
		for _, p := range ps {
			lines = append(lines, p.u.LastLine)
		}
		steps := StepsAfter(stripRank(f), lines, step)
		for _, p := range ps {
			if s, ok := steps[p.u.LastLine]; ok {
				p.d.Step = s
			}
		}
	}
}

// stripRank is the log a process name's file is: "rank.log [rank 3]" reads rank.log.
func stripRank(f string) string {
	if i := strings.LastIndex(f, " [rank "); i > 0 && strings.HasSuffix(f, "]") {
		return f[:i]
	}
	return f
}

func verb(u *ledger.Entry) string {
	if u.Compiled {
		return "a compilation of"
	}
	return "a cache hit of"
}

// majorityUnit is the majority's request of u's program that u is held against: at the same
// point when it is that program, else the last one before it, else the first after it.
func majorityUnit(ref []ledger.Entry, u *ledger.Entry, i int) *ledger.Entry {
	if i < len(ref) && ref[i].Program == u.Program {
		return &ref[i]
	}
	for j := min(i, len(ref)) - 1; j >= 0; j-- {
		if ref[j].Program == u.Program {
			return &ref[j]
		}
	}
	for j := i + 1; j < len(ref); j++ {
		if ref[j].Program == u.Program {
			return &ref[j]
		}
	}
	return nil
}

// explainDivergence says what a divergent request is and names its cause against the majority's
// module of the program: from the two ranks' dumps when both are given, else from their
// signatures.
func explainDivergence(d *Divergence, u, against *ledger.Entry, r, refRank *RankInfo, ref string, dumps map[string]*rankDump) {
	what := "compiled"
	if !u.Compiled {
		what = "got from the cache"
	}
	switch d.Kind {
	case DivergeCacheMiss:
		d.Summary = fmt.Sprintf("rank %s compiled %s where the %s got it from the cache", r.Rank, u.Family, ref)
		return
	case DivergeCacheHit:
		d.Summary = fmt.Sprintf("rank %s got %s from the cache where the %s compiled it", r.Rank, u.Family, ref)
		return
	case DivergeExtra:
		d.Summary = fmt.Sprintf("rank %s %s %s at its request %d, a request the %s never made", r.Rank, what, u.Family, d.Index, ref)
	default:
		d.Summary = fmt.Sprintf("rank %s %s %s at its request %d, where the %s made another", r.Rank, what, u.Family, d.Index, ref)
	}
	if against == nil {
		d.Summary += fmt.Sprintf(" (the %s never compiled %s)", ref, u.Family)
		return
	}
	if da, db := dumps[refRank.Rank].file(against), dumps[r.Rank].file(u); da != nil && db != nil {
		var c *diff.Cause
		if d.Pair, c = ComparedPair(da, db, diff.Compare(da.Module, db.Module)); c != nil {
			d.Cause, d.CauseFrom = c, "dump"
		}
		return
	}
	if c, ok := CompareSignatures(against.Signature, u.Signature); ok {
		d.Cause = c.Cause()
		d.CauseFrom = "signature"
	}
}

// rankDump is one rank's dump, linked to its compile requests.
type rankDump struct {
	dump  *diff.Dump
	links map[*ledger.Entry]*diff.DumpFile
}

func (rd *rankDump) file(u *ledger.Entry) *diff.DumpFile {
	if rd == nil || u == nil {
		return nil
	}
	return rd.links[u]
}

// rankDumps reads the dumps of the ranks that need them (the majority's reference and the
// divergent ranks), matched to ranks by the rank number in their names, else by order.
func rankDumps(out *Ranks, opt RanksOptions) map[string]*rankDump {
	res := map[string]*rankDump{}
	if len(opt.Dumps) == 0 {
		return res
	}
	byRank := map[string]string{}
	ofFolder := map[string]string{} // a run folder's dump -> the rank of its run.log
	for _, r := range out.Ranks {
		if f, ok := runfolder.Of(r.Log); ok && f.Dump != "" {
			ofFolder[f.Dump] = r.Rank
		}
	}
	for i, d := range opt.Dumps {
		r, ok := ofFolder[d]
		if !ok {
			r = nameRank(d)
		}
		if r == "" && i < len(out.Ranks) {
			r = out.Ranks[i].Rank
		}
		if _, dup := byRank[r]; dup {
			out.Warnings = append(out.Warnings, fmt.Sprintf("%s: a second dump for rank %s, left out", d, r))
			continue
		}
		byRank[r] = d
	}
	need := map[string]bool{}
	for _, r := range out.Ranks {
		if r.Group != 0 {
			need[r.Rank] = true
		}
	}
	for _, r := range out.Ranks {
		if r.Group == 0 {
			need[r.Rank] = true
			break
		}
	}
	for _, r := range out.Ranks {
		path, ok := byRank[r.Rank]
		if !need[r.Rank] || !ok {
			continue
		}
		d, err := Load(path, opt.Options)
		if err != nil {
			out.Warnings = append(out.Warnings, fmt.Sprintf("%s: %v", path, err))
			continue
		}
		res[r.Rank] = &rankDump{dump: d, links: LinkEntries(d, r.Sequence.Entries)}
	}
	return res
}

// skew finds the largest spread of compile start times between ranks for a request they all
// made, while their sequences agree.
func skew(out *Ranks) {
	var withClock []*RankInfo
	for _, r := range out.Ranks {
		if es := r.Sequence.Entries; len(es) > 0 && !es[0].Begin.IsZero() {
			withClock = append(withClock, r)
		}
	}
	if len(withClock) < 2 {
		return
	}
	n := len(withClock[0].Sequence.Entries)
	for _, r := range withClock {
		n = min(n, len(r.Sequence.Entries))
		if r.Divergence != nil {
			n = min(n, r.Divergence.Index-1)
		}
	}
	var best *Skew
	for i := 0; i < n; i++ {
		e0 := &withClock[0].Sequence.Entries[i]
		lo, hi := e0, e0
		loR, hiR := withClock[0], withClock[0]
		ok := e0.Compiled
		for _, r := range withClock[1:] {
			e := &r.Sequence.Entries[i]
			if e.Begin.IsZero() || e.Program != e0.Program || !e.Compiled {
				ok = false
				break
			}
			if e.Begin.Before(lo.Begin) {
				lo, loR = e, r
			}
			if e.Begin.After(hi.Begin) {
				hi, hiR = e, r
			}
		}
		if !ok {
			continue
		}
		if spread := hi.Begin.Sub(lo.Begin); best == nil || spread > best.Spread {
			best = &Skew{Spread: spread, Index: i + 1, Program: e0.Family, Earliest: loR.Rank, Latest: hiR.Rank,
				DateKnown: e0.DateKnown, RanksWithClock: len(withClock)}
		}
	}
	out.Skew = best
}

// LogsAndDumps lists the logs (*.log, *.log.gz) and the dump folders a folder holds, in the
// order of their names. A file named as a log that is not a regular file (a FIFO would block,
// /dev/zero never end) is left out, with a warning in skipped.
func LogsAndDumps(dir string) (logs, dumps, skipped []string, err error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, nil, nil, err
	}
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		switch {
		case e.IsDir() && diff.HasDumpFiles(p):
			dumps = append(dumps, p)
		case !e.IsDir() && (strings.HasSuffix(e.Name(), ".log") || strings.HasSuffix(e.Name(), ".log.gz")):
			if !e.Type().IsRegular() {
				if ok, why := openfile.Regular(p); !ok {
					skipped = append(skipped, why)
					continue
				}
			}
			logs = append(logs, p)
		}
	}
	return logs, dumps, skipped, nil
}

// ComparedPair is the comparison of two modules recomp paired itself (a request and the one it
// is held against), and its main cause (nil when it names none).
func ComparedPair(da, db *diff.DumpFile, res *diff.Result) (*DiffPair, *diff.Cause) {
	p := &DiffPair{Pair: &diff.Pair{A: da, B: db, PairedBy: diff.PairedByArgument, Result: res}}
	if len(res.Causes) == 0 {
		return p, nil
	}
	c := res.Causes[0]
	return p, &c
}
