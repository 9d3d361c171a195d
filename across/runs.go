package across

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/recomp/recomp/diff"
	"github.com/recomp/recomp/explain"
	"github.com/recomp/recomp/frameworks"
	"github.com/recomp/recomp/frameworks/framework"
	"github.com/recomp/recomp/ledger"
	"github.com/recomp/recomp/runfolder"
)

// Two runs compared: for every program run B compiled (or got from a cache), whether run A's
// cache entry served it, and if not, why, from a closed list (MissReason). The evidence,
// strongest first: the cache keys both logs name (the same key: A did not write it, it was
// evicted, or B could not read it); the parts of the keys JAX logs with
// JAX_DEBUG_LOG_MODULES=jax._src.cache_key (the computation's hash says whether the graph
// changed, the other parts which setting did); the two dumps compared (the graph changed, and
// how, or it is the same up to names and metadata); the manifests of recomp run (XLA_FLAGS and
// versions); the argument signatures the logs name.

// RunsOptions say how two runs are read and compared.
type RunsOptions struct {
	explain.Options
	// Caches are cache folders to look for the runs' entries in, besides those the manifests
	// name.
	Caches []string
}

// OpenSide finds the files of one run. path is a run folder of recomp run (run.log, dump/,
// manifest.json), a folder that holds one log and one dump folder, a dump folder, an HLO file or
// a log; logs and dump are added to what path gives (--log-a, --dump-a).
func OpenSide(path string, logs []string, dump string) (RunSide, error) {
	s := RunSide{Path: path}
	st, err := os.Stat(path)
	switch {
	case path == "-":
		s.Dump = path
	case err != nil:
		return s, err
	case st.IsDir():
		if f, ok := runfolder.Open(path); ok {
			s.Logs, s.Dump, s.Manifest, s.Traces = []string{f.Log}, f.Dump, f.Manifest, ledger.TraceFiles(f.Trace, f.TraceSince)
		} else if diff.HasDumpFiles(path) {
			s.Dump = path
		} else if l, d, skipped, ok := logAndDump(path); ok {
			s.Logs, s.Dump, s.Skipped = []string{l}, d, skipped
		} else {
			s.Dump, s.Skipped = path, skipped // LoadDump says what is wrong with it
		}
	case diff.IsHLOFile(path):
		s.Dump = path
	default:
		s.Logs = []string{path}
	}
	s.Logs = append(s.Logs, logs...)
	if dump != "" {
		if s.Dump != "" && s.Dump != dump {
			return s, fmt.Errorf("%s: has a dump of its own (%s), and --dump names %s", path, s.Dump, dump)
		}
		s.Dump = dump
	}
	return s, nil
}

// logAndDump finds the one log (*.log) and the one dump folder of a folder; skipped says which
// files named as logs were left out (not regular files).
func logAndDump(dir string) (log, dump string, skipped []string, ok bool) {
	logs, dumps, skipped, err := explain.LogsAndDumps(dir)
	if err != nil || len(logs) != 1 || len(dumps) > 1 {
		return "", "", skipped, false
	}
	if len(dumps) == 1 {
		dump = dumps[0]
	}
	return logs[0], dump, skipped, true
}

// cacheWatched says whether run B can have looked in a persistent cache: its manifest names a
// cache folder (recomp run snapshots each one a setting or --cache names), or there is no
// manifest to say. A cache key in the log is no lookup: JAX 0.12 computes and logs one for each
// compilation with no persistent cache at all.
func (r *runSide) cacheWatched() bool {
	return r.manifest == nil || len(r.manifest.Caches) > 0
}

// HasLogs says whether a side is a run with a log (not only a dump): recomp diff then compares
// the runs, not only their dumps.
func HasLogs(s RunSide) bool { return len(s.Logs) > 0 }

// runSide is one run read back.
type runSide struct {
	side     RunSide
	rep      *ledger.Report
	units    []*ledger.Unit // its compile requests in order, eager one-op programs left out
	eager    int
	dump     *diff.Dump
	dumpOf   map[*ledger.Unit]*diff.DumpFile
	manifest *runfolder.Manifest
	warnings []string
	// frames are, for a stack whose cache hits still compile what holds the graph
	// (CacheWords.HitThenCompile: dynamo's frame around the FX graph Inductor's cache served),
	// each hit's compilation: one request with the hit, served.
	frames map[*ledger.Unit]hitFrames
}

// hitFrames are the cache hits of one compilation (the first is the request's unit) and the
// compilation that holds their graphs.
type hitFrames struct {
	frame *ledger.Unit
	hits  []*ledger.Unit
}

// saved is what the hits saved, as the stack's records say.
func (h hitFrames) saved() time.Duration {
	var d time.Duration
	for _, u := range h.hits {
		d += u.Saved
	}
	return d
}

// hitFrame is the compilation of u's program that holds the graphs cache hits served, where
// u's stack compiles around a hit (CacheWords.HitThenCompile): the next compiled unit of its
// module family in the same process, after u and the hits of the same program right after it
// (a training step's backward graph hit after its forward); n counts those units, the
// compilation included. nil, 0 otherwise.
func hitFrame(u *ledger.Unit, next []*ledger.Unit) (frame *ledger.Unit, n int) {
	if !u.Hit || u.Compiled || !frameworks.KeyedCacheOf(u.Producer).Words().HitThenCompile {
		return nil, 0
	}
	for i, v := range next {
		switch {
		case v.Input != u.Input || v.Process != u.Process || v.Program != u.Program:
			return nil, 0
		case v.Hit && !v.Compiled:
			continue
		case v.Compiled && !v.Hit && !v.Miss: // (a compilation a miss began is that miss's)
			return v, i + 1
		}
		return nil, 0
	}
	return nil, 0
}

func readSide(s RunSide, opt RunsOptions) (*runSide, error) {
	r := &runSide{side: s, dumpOf: map[*ledger.Unit]*diff.DumpFile{}, warnings: slices.Clone(s.Skipped)}
	if s.Manifest != "" {
		m, err := runfolder.ReadManifest(s.Manifest)
		if err != nil {
			return nil, err
		}
		r.manifest = m
	}
	if len(s.Logs) > 0 {
		logs := ledger.Files(s.Logs)
		for i, l := range s.Logs { // the run folder's run.log of a run recomp stopped: up to the stop
			if r.manifest != nil && filepath.Base(l) == runfolder.LogName && filepath.Dir(l) == filepath.Dir(s.Manifest) {
				logs[i].Until = explain.StoppedLine(r.manifest)
			}
			if i == 0 && len(s.Traces) > 0 { // the run folder's trace (torch's), joined to its run.log
				logs[i].Traces = s.Traces
			}
		}
		sc, err := ledger.ReadLogs(logs, ledger.ReadOptions{SameProcess: true, Stdin: opt.Stdin, Log: opt.Log})
		if err != nil {
			return nil, err
		}
		r.rep = sc.Ledger
		for _, m := range r.rep.Modules {
			for i := 0; i < len(m.Units); i++ {
				u := m.Units[i]
				if u.Eager {
					r.eager++
					continue
				}
				r.units = append(r.units, u)
				if f, n := hitFrame(u, m.Units[i+1:]); f != nil {
					if r.frames == nil {
						r.frames = map[*ledger.Unit]hitFrames{}
					}
					r.frames[u] = hitFrames{frame: f, hits: m.Units[i : i+n]}
					i += n
				}
			}
		}
		ledger.SortUnits(r.units)
	}
	if st, err := os.Stat(s.Dump); err == nil && st.IsDir() && !diff.HasDumpFiles(s.Dump) {
		// A run that got every program from the cache dumps nothing.
		r.warnings = append(r.warnings, fmt.Sprintf("%s: no module was dumped (every program came from a cache, or the dump was off)", s.Dump))
		s.Dump, r.side.Dump = "", ""
	}
	if s.Dump != "" {
		d, err := explain.Load(s.Dump, opt.Options)
		if err != nil {
			return nil, err
		}
		r.dump = d
		if r.rep != nil {
			for f, u := range explain.LinkDumps(d, r.rep) {
				r.dumpOf[u] = f
			}
		}
	}
	return r, nil
}

// Runs compares two runs: for each compile request of B (eager one-op programs left out),
// whether A's cache served it, and if not, why; the manifests' differences; and the two dumps
// compared module by module when both runs have one.
func Runs(a, b RunSide, opt RunsOptions) (*RunsDiff, error) {
	ra, err := readSide(a, opt)
	if err != nil {
		return nil, err
	}
	rb, err := readSide(b, opt)
	if err != nil {
		return nil, err
	}
	out := &RunsDiff{A: ra.side, B: rb.side, Eager: rb.eager, Warnings: append(slices.Clone(ra.warnings), rb.warnings...)}
	if ra.manifest != nil && rb.manifest != nil {
		out.Settings, out.Versions = manifestDiffs(ra.manifest, rb.manifest)
	}
	dirs := cacheDirs(opt.Caches, ra.manifest, rb.manifest)
	out.A.Caches, out.B.Caches = dirs, dirs
	if ra.dump != nil && rb.dump != nil {
		out.Dumps = explain.CompareDumps(ra.dump, rb.dump, opt.Options)
	}
	if len(ra.units) == 0 && ra.rep != nil {
		out.Warnings = append(out.Warnings, fmt.Sprintf("%s: no compile request in run A's log", strings.Join(a.Logs, ", ")))
	}
	if rb.rep == nil {
		out.Warnings = append(out.Warnings, "run B has no log: recomp cannot say what it compiled or got from the cache (give --log-b)")
	}
	if ra.rep == nil {
		out.Warnings = append(out.Warnings, "run A has no log: recomp cannot say what it compiled or wrote (give --log-a)")
	}
	nth := map[string]int{}
	for _, u := range rb.units {
		i := nth[u.Program]
		nth[u.Program]++
		out.Programs = append(out.Programs, missVerdict(ra, rb, u, i, dirs))
	}
	opt.Logger().Debug("compared runs", "programs", len(out.Programs), "settings", len(out.Settings), "versions", len(out.Versions))
	return out, nil
}

// counterpart is A's compile request of u's program that u is compared with: the one with u's
// cache key, else with u's signature, else the i-th of the program, else its last.
func counterpart(as []*ledger.Unit, u *ledger.Unit, i int) *ledger.Unit {
	var same []*ledger.Unit
	key := frameworks.FunctionKey(u.Family)
	for _, a := range as {
		if a.Program == u.Program || (a.Family != u.Family && frameworks.FunctionKey(a.Family) == key) {
			same = append(same, a)
		}
	}
	if len(same) == 0 {
		return nil
	}
	for _, a := range same {
		if u.Hash != "" && a.Hash == u.Hash {
			return a
		}
	}
	for _, a := range same {
		if u.Signature != "" && a.Signature == u.Signature {
			return a
		}
	}
	if i < len(same) {
		return same[i]
	}
	return same[len(same)-1]
}

func missVerdict(ra, rb *runSide, u *ledger.Unit, i int, dirs []string) *ProgramVerdict {
	v := &ProgramVerdict{Program: u.Family, Module: u.Module, Signature: u.Signature, Args: explain.ShortSignature(u.Signature),
		File: u.File, Line: u.Line, KeyB: u.Hash, Served: u.Hit}
	a := counterpart(ra.units, u, i)
	if a != nil {
		v.KeyA, v.CounterpartFile, v.CounterpartLine = a.Hash, a.File, a.Line
	}
	if u.Hit {
		saved(v, ra, rb, u, dirs)
		return v
	}
	switch {
	case ra.rep == nil:
		v.Reason, v.Summary = MissUnknown, "run A has no log: nothing says what it compiled or wrote"
	case a == nil:
		v.Reason = MissNotInA
		v.Summary = fmt.Sprintf("run A never compiled %s: its cache had nothing to serve", u.Family)
	case u.Hash == "" && !u.Miss && (len(u.KeyParts) == 0 || !rb.cacheWatched()):
		v.Reason = MissNotLookedUp
		v.Summary = "run B's log shows no cache lookup for it: its persistent cache was off, or the logging of it was (" +
			frameworks.CacheAdvice() + ")"
		var g ProgramVerdict // what the graphs say, for the record
		graphVerdict(&g, ra, rb, a, u)
		v.Cause, v.CauseFrom, v.Pair = g.Cause, g.CauseFrom, g.Pair
	case counted(rb, u) && !lookedUp(rb, u):
		w := frameworks.KeyedCacheOf(u.Producer).Words()
		v.Reason = MissNotLookedUp
		v.Summary = fmt.Sprintf("run B's metrics count no lookup in its persistent cache (%s, %s, %s): the cache was off in run B",
			w.HitMetric, w.MissMetric, w.ReadFailureMetric)
	case a.Hash != "" && a.Hash == u.Hash:
		sameKey(v, rb, a, u, dirs)
	default:
		graphVerdict(v, ra, rb, a, u)
	}
	kc := frameworks.KeyedCacheOf(u.Producer)
	v.Advice = missAdvice(kc, v.Reason)
	if adv := kc.Words().PartAdvice[v.decided]; v.partKnown && adv != "" {
		v.Advice = adv // the remedy for the part that decided the miss
	}
	return v
}

// counted says whether u's stack counts its persistent cache's lookups in a metrics report
// (PyTorch/XLA) and run B's log holds one.
func counted(rb *runSide, u *ledger.Unit) bool {
	w := frameworks.KeyedCacheOf(u.Producer).Words()
	return w.MissMetric != "" && rb.rep != nil && len(rb.rep.Summary.Metrics) > 0
}

// lookedUp says whether run B's metrics count a lookup in u's stack's persistent cache.
func lookedUp(rb *runSide, u *ledger.Unit) bool {
	w := frameworks.KeyedCacheOf(u.Producer).Words()
	for _, m := range []string{w.HitMetric, w.MissMetric, w.ReadFailureMetric} {
		if rb.rep.Summary.Metrics[m].Count > 0 {
			return true
		}
	}
	return false
}

// readFailure is run B's count of entries its stack found and could not read (PyTorch/XLA's
// PersistentCacheDeserializeFailure) as the quote of the metrics report, nil when none.
func readFailure(rb *runSide, u *ledger.Unit) *ledger.Quote {
	w := frameworks.KeyedCacheOf(u.Producer).Words()
	if w.ReadFailureMetric == "" || rb.rep == nil {
		return nil
	}
	m, ok := rb.rep.Summary.Metrics[w.ReadFailureMetric]
	if !ok || m.Count == 0 {
		return nil
	}
	return &ledger.Quote{Producer: u.Producer, File: m.File, Line: m.Line, Text: fmt.Sprintf("%s %d", w.ReadFailureMetric, m.Count)}
}

// saved says what a cache hit saved, as JAX's own compile_time_saved_sec does: the compile time
// of the entry (A's logged compile time of that key, else the whole seconds JAX stored in the
// entry) less the time B took to get it.
func saved(v *ProgramVerdict, ra, rb *runSide, u *ledger.Unit, dirs []string) {
	v.Summary = "from the cache"
	if h, ok := rb.frames[u]; ok {
		servedFrame(v, ra, u, h)
		return
	}
	for _, a := range ra.units {
		if a.Compiled && a.Hash != "" && a.Hash == u.Hash && a.Duration > 0 {
			v.Saved, v.SavedFrom = max(a.Duration-u.Duration, 0), "log"
			v.Summary = fmt.Sprintf("from the entry run A wrote (%s): run A compiled it in %s, run B got it in %s", frameworks.KeyedCacheOf(u.Producer).ShortKey(u.Hash),
				ledger.FormatDuration(a.Duration), ledger.FormatDuration(u.Duration))
			return
		}
	}
	if u.Hash == "" {
		return
	}
	kc := frameworks.KeyedCacheOf(u.Producer)
	v.Summary = fmt.Sprintf("from the entry %s (not written by run A)", kc.ShortKey(u.Hash))
	for _, d := range dirs {
		if p, ok := kc.EntryFile(d, u.Hash); !ok {
			break
		} else if t, err := kc.CompileTime(p); err == nil {
			v.Saved, v.SavedFrom = max(t-u.Duration, 0), "cache entry"
			return
		}
	}
}

// servedFrame says what a hit saved whose stack still compiled what holds the graph (dynamo's
// frame f around the FX graph Inductor's cache served): the trace's own figure (AOTAutograd's
// time_saved_ms), else A's compilation of the key less B's of the frame.
func servedFrame(v *ProgramVerdict, ra *runSide, u *ledger.Unit, h hitFrames) {
	kc, f := frameworks.KeyedCacheOf(u.Producer), h.frame
	v.Summary = "the cache served the compiled graph"
	if u.Hash != "" {
		v.Summary += " (entry " + kc.ShortKey(u.Hash) + ")"
	}
	var a *ledger.Unit
	for _, x := range ra.units {
		if x.Compiled && !x.Hit && x.Hash != "" && x.Hash == u.Hash {
			a = x
			break
		}
	}
	switch {
	case a != nil && a.Duration > 0:
		v.Summary += fmt.Sprintf(", the entry run A wrote: run A compiled it in %s; run B still compiled the frame around it, in %s",
			ledger.FormatDuration(a.Duration), ledger.FormatDuration(f.Duration))
	case a != nil:
		v.Summary += ", the entry run A wrote; run B still compiled the frame around it"
	default:
		v.Summary += ", an entry run A did not write; run B still compiled the frame around it"
		if f.Duration > 0 {
			v.Summary += ", in " + ledger.FormatDuration(f.Duration)
		}
	}
	switch {
	case h.saved() > 0:
		v.Saved, v.SavedFrom = h.saved(), "trace"
	case a != nil && a.Duration > 0:
		v.Saved, v.SavedFrom = max(a.Duration-f.Duration, 0), "log"
	}
}

// sameKey explains a miss of the key A compiled: A did not write it, the folder lost it, or B
// could not read it.
func sameKey(v *ProgramVerdict, rb *runSide, a, u *ledger.Unit, dirs []string) {
	kc := frameworks.KeyedCacheOf(u.Producer)
	key, words := kc.ShortKey(u.Hash), kc.Words()
	failed := readFailure(rb, u)
	switch {
	case u.ReadError != nil:
		v.Reason, v.Quote = MissUnreadable, u.ReadError
		v.Summary = fmt.Sprintf("run B found the entry %s and could not read it (a deserialisation failure: %s)", key, words.Unreadable)
	case failed != nil:
		v.Reason, v.Quote = MissUnreadable, failed
		v.Summary = fmt.Sprintf("run B found the entry %s and could not read it (%s in its metrics: %s), so it compiled the graph again",
			key, failed.Text, words.Unreadable)
	case a.NotWritten != nil && readOnlyWords(a.NotWritten.Text):
		v.Reason, v.Quote = MissReadOnly, a.NotWritten
		v.Summary = fmt.Sprintf("run A compiled the same key %s and could not write it: the cache folder is read-only", key)
	case a.NotWritten != nil:
		v.Reason, v.Quote = MissNeverWritten, a.NotWritten
		v.Summary = fmt.Sprintf("run A compiled the same key %s and never wrote the entry", key)
	case a.Written || a.Hit:
		present, known := entryPresent(kc, u.Hash, dirs)
		switch {
		case known && !present:
			v.Reason = MissEvicted
			v.Summary = fmt.Sprintf("run A wrote the entry %s, and the cache folder no longer holds it: evicted (%s) or removed", key, words.Eviction)
		case known:
			v.Reason = MissUnknown
			v.Summary = fmt.Sprintf("run A wrote the entry %s and the cache folder holds it, yet run B missed it: did B look in another folder?", key)
		default:
			v.Reason = MissUnknown
			v.Summary = fmt.Sprintf("run A wrote the entry %s and run B missed it: evicted, removed, or B looked in another folder "+
				"(give the cache folder with --cache to tell)", key)
		}
	default:
		v.Reason = MissNeverWritten
		v.Summary = fmt.Sprintf("run A compiled the same key %s and its log shows no write of it (%s)", key, words.WhyNotWritten)
	}
}

func readOnlyWords(s string) bool {
	l := strings.ToLower(s)
	return strings.Contains(l, "read-only") || strings.Contains(l, "permission denied") || strings.Contains(l, "errno 13") ||
		strings.Contains(l, "errno 30")
}

// entryPresent says whether a cache folder holds a key's entry (known false without folders).
func entryPresent(kc framework.KeyedCache, key string, dirs []string) (present, known bool) {
	for _, d := range dirs {
		if st, err := os.Stat(d); err != nil || !st.IsDir() {
			continue
		}
		known = true
		if p, ok := kc.EntryFile(d, key); ok {
			if _, err := os.Stat(p); err == nil {
				return true, true
			}
		}
	}
	return false, known
}

// graphVerdict explains a miss of another key than A's: the graph changed, or something else
// in the key did.
func graphVerdict(v *ProgramVerdict, ra, rb *runSide, a, u *ledger.Unit) {
	// The stack's cache-key log on both sides (JAX's): the computation's hash says whether the
	// graph changed, the other parts which setting did.
	kc := frameworks.KeyedCacheOf(u.Producer)
	words := kc.Words()
	if valued(a.KeyParts) && valued(u.KeyParts) {
		partsVerdict(v, kc, a, u)
		return
	}
	if len(a.KeyParts) > 0 && len(u.KeyParts) > 0 {
		var differ []string
		comp := false
		for _, pb := range u.KeyParts {
			for _, pa := range a.KeyParts {
				if pa.Name == pb.Name && pa.Hash != pb.Hash {
					if kc.Part(pb.Name) == framework.KeyGraph {
						comp = true
					} else {
						differ = append(differ, pb.Name)
					}
				}
			}
		}
		if comp {
			v.Reason = MissGraphDiffers
			v.Summary = "the cache key's computation part differs (" + words.KeyLog + "): the graph changed"
			graphCause(v, ra, rb, a, u)
			return
		}
		if len(differ) > 0 {
			v.Reason = MissKeyOutsideGraph
			v.Component = strings.Join(differ, ", ")
			for _, d := range differ {
				if kc.Part(d) == framework.KeyFlags {
					v.Changed = append(v.Changed, flagChanges(a.KeyFlags, u.KeyFlags)...)
				}
			}
			v.Changed = append(v.Changed, manifestChanges(kc, ra, rb, differ)...)
			v.Summary = "the graph is the same (the cache key's computation part is equal in " + words.KeyLog
			if da, db := ra.dumpOf[a], rb.dumpOf[u]; da != nil && db != nil && diff.Compare(da.Module, db.Module).Identical {
				v.Summary += ", and the dumps agree"
			}
			v.Summary += "); the key's " + v.Component + " part changed"
			if len(v.Changed) > 0 {
				v.Summary += ": " + strings.Join(v.Changed, "; ")
			}
			return
		}
	}
	if da, db := ra.dumpOf[a], rb.dumpOf[u]; da != nil && db != nil {
		res := diff.Compare(da.Module, db.Module)
		if !res.Identical {
			v.Reason = MissGraphDiffers
			v.Summary = "the graphs differ"
			setPair(v, da, db, res)
			return
		}
		v.Reason = MissKeyOutsideGraph
		v.Changed = manifestChanges(kc, ra, rb, nil)
		v.Summary = "the graph is the same up to names and metadata (the dumps compared), and the cache key changed outside it"
		if len(v.Changed) > 0 {
			v.Component = changedComponent(kc, v.Changed)
			v.Summary += ": " + strings.Join(v.Changed, "; ")
		} else {
			v.Summary += ": " + words.OutsideGraph
			if words.KeyLogSetting != "" {
				v.Summary += " (" + words.KeyLogSetting + " names the part: recomp run sets it)"
			}
		}
		return
	}
	if c, ok := explain.CompareSignatures(a.Signature, u.Signature); ok {
		v.Reason = MissGraphDiffers
		v.Summary = "the program was called with other arguments: " + c.Summary
		v.Cause = c.Cause()
		v.CauseFrom = "signature"
		return
	}
	v.Reason = MissUnknown
	v.Summary = "the cache keys differ and nothing says why: dump the HLO of both runs (" + frameworks.DumpAdvice() + ")"
	if words.KeyLogSetting != "" {
		v.Summary += ", or run them under recomp run (it dumps and logs the parts of " + words.Keys + ")"
	}
}

// valued says whether a key's parts come with their values (torch's trace lists each FX-graph
// key's components), not only their hashes (JAX's cache-key log).
func valued(parts []ledger.KeyPart) bool {
	return len(parts) > 0 && slices.ContainsFunc(parts, func(p ledger.KeyPart) bool { return p.Value != "" })
}

// maxChanged bounds the changed parts a verdict lists.
const maxChanged = 8

// partsVerdict explains a miss from the parts of both keys with their values, side by side:
// the parts that differ, in framework.KeyPartOrder (a version, the device, the config, the
// environment, the inputs, the graph), the first deciding. The graph or its inputs changed:
// graph_differs; anything else: key_changed_outside_graph, named with its two values.
func partsVerdict(v *ProgramVerdict, kc framework.KeyedCache, a, u *ledger.Unit) {
	type change struct {
		part       framework.KeyPart
		name, a, b string
	}
	inA := map[string]ledger.KeyPart{}
	for _, p := range a.KeyParts {
		inA[p.Name] = p
	}
	var changes []change
	seen := map[string]bool{}
	for _, p := range u.KeyParts {
		seen[p.Name] = true
		if q, ok := inA[p.Name]; !ok || q.Hash != p.Hash {
			changes = append(changes, change{kc.Part(p.Name), p.Name, q.Value, p.Value})
		}
	}
	for _, q := range a.KeyParts {
		if !seen[q.Name] {
			changes = append(changes, change{kc.Part(q.Name), q.Name, q.Value, ""})
		}
	}
	rank := func(c change) int { return slices.Index(framework.KeyPartOrder, c.part) }
	slices.SortStableFunc(changes, func(x, y change) int { return rank(x) - rank(y) })
	words := kc.Words()
	if len(changes) == 0 {
		v.Reason = MissUnknown
		v.Summary = "the parts of both keys in " + words.KeyLog + " agree, yet the keys differ"
		return
	}
	first := changes[0].part
	partName := func(p framework.KeyPart) string {
		if p == framework.KeyFlags && words.FlagsPart != "" {
			return words.FlagsPart
		}
		return p.String()
	}
	var names, others []string
	graph := false // the graph or its inputs changed too
	for _, c := range changes {
		if len(v.Changed) < maxChanged {
			v.Changed = append(v.Changed, fmt.Sprintf("%s: %s → %s", c.name, orNone(c.a), orNone(c.b)))
		}
		graph = graph || c.part == framework.KeyGraph || c.part == framework.KeyInputs
		if c.part == first {
			names = append(names, c.name)
		} else if p := partName(c.part); !slices.Contains(others, p) {
			others = append(others, p)
		}
	}
	if len(changes) > maxChanged {
		v.Changed = append(v.Changed, fmt.Sprintf("and %d more parts", len(changes)-maxChanged))
	}
	v.Component = strings.Join(names[:min(len(names), 3)], ", ")
	if len(names) > 3 {
		v.Component += fmt.Sprintf(" and %d more", len(names)-3)
	}
	v.decided, v.partKnown = first, true
	said := fmt.Sprintf("the key's %s part differs (%s): %s", partName(first), words.KeyLog, v.Changed[0])
	if len(others) > 0 {
		said += "; its " + strings.Join(others, ", ") + " part" + map[bool]string{true: "s", false: ""}[len(others) > 1] + " differ" +
			map[bool]string{true: "", false: "s"}[len(others) > 1] + " too"
	}
	if first == framework.KeyGraph || first == framework.KeyInputs {
		v.Reason = MissGraphDiffers
		v.Summary = "the graph or its inputs changed: " + said
		return
	}
	v.Reason = MissKeyOutsideGraph
	v.Summary = said
	if !graph {
		v.Summary = "the graph and its inputs are the same; " + said
	}
}

// graphCause names how a changed graph changed: from the dumps, else from the signatures.
func graphCause(v *ProgramVerdict, ra, rb *runSide, a, u *ledger.Unit) {
	if da, db := ra.dumpOf[a], rb.dumpOf[u]; da != nil && db != nil {
		setPair(v, da, db, diff.Compare(da.Module, db.Module))
		return
	}
	if c, ok := explain.CompareSignatures(a.Signature, u.Signature); ok {
		v.Cause = c.Cause()
		v.CauseFrom = "signature"
	}
}

func setPair(v *ProgramVerdict, da, db *diff.DumpFile, res *diff.Result) {
	var c *diff.Cause
	if v.Pair, c = explain.ComparedPair(da, db, res); c != nil {
		v.Cause, v.CauseFrom = c, "dump"
		v.Summary += ": " + string(c.Kind) + ": " + c.Summary
	}
}

// flagChanges lists the flags hashed into one key and not the other.
func flagChanges(a, b []string) []string {
	var out []string
	for _, f := range b {
		if !slices.Contains(a, f) {
			out = append(out, "XLA flag "+f+" added in run B")
		}
	}
	for _, f := range a {
		if !slices.Contains(b, f) {
			out = append(out, "XLA flag "+f+" removed in run B")
		}
	}
	return out
}

// manifestChanges lists what the manifests say changed that bears on the key's parts (all of
// them when parts is nil): XLA_FLAGS and the compile flags, and the framework versions.
func manifestChanges(kc framework.KeyedCache, ra, rb *runSide, parts []string) []string {
	if ra.manifest == nil || rb.manifest == nil {
		return nil
	}
	settings, versions := manifestDiffs(ra.manifest, rb.manifest)
	want := func(p framework.KeyPart) bool {
		return parts == nil || slices.ContainsFunc(parts, func(s string) bool { return kc.Part(s) == p })
	}
	var out []string
	if want(framework.KeyFlags) {
		for _, d := range settings {
			if slices.Contains(frameworks.CompileFlags(), d.Name) {
				out = append(out, fmt.Sprintf("%s: %s → %s (manifests)", d.Name, orNone(d.A), orNone(d.B)))
			}
		}
	}
	if want(framework.KeyVersions) {
		for _, d := range versions {
			out = append(out, fmt.Sprintf("%s %s → %s (manifests)", d.Name, orNone(d.A), orNone(d.B)))
		}
	}
	return out
}

func changedComponent(kc framework.KeyedCache, changed []string) string {
	var parts []string
	for _, c := range changed {
		switch {
		case strings.HasPrefix(c, "XLA flag "), slices.ContainsFunc(frameworks.CompileFlags(), func(f string) bool { return strings.HasPrefix(c, f+": ") }):
			parts = append(parts, kc.Words().FlagsPart)
		default:
			parts = append(parts, "versions")
		}
	}
	slices.Sort(parts)
	return strings.Join(slices.Compact(parts), ", ")
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// manifestDiffs compares the settings and versions of two manifests, each setting without
// what names its own run folder (runfolder.Setting.Comparable).
func manifestDiffs(a, b *runfolder.Manifest) (settings, versions []Difference) {
	sa, sb := map[string]string{}, map[string]string{}
	for _, s := range a.Settings {
		sa[s.Name] = s.Comparable()
	}
	for _, s := range b.Settings {
		sb[s.Name] = s.Comparable()
	}
	for _, k := range unionKeys(sa, sb) {
		if sa[k] != sb[k] {
			settings = append(settings, Difference{Name: k, A: sa[k], B: sb[k]})
		}
	}
	for _, k := range unionKeys(a.Versions, b.Versions) {
		if a.Versions[k] != b.Versions[k] {
			versions = append(versions, Difference{Name: k, A: a.Versions[k], B: b.Versions[k]})
		}
	}
	return settings, versions
}

func unionKeys(a, b map[string]string) []string {
	var out []string
	for k := range a {
		out = append(out, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// cacheDirs are the cache folders given and those the manifests name (relative ones from the
// run's working folder).
func cacheDirs(given []string, ms ...*runfolder.Manifest) []string {
	out := slices.Clone(given)
	for _, m := range ms {
		if m == nil {
			continue
		}
		for _, c := range m.Caches {
			d := c.Dir
			if !filepath.IsAbs(d) && m.WorkDir != "" {
				d = filepath.Join(m.WorkDir, d)
			}
			if !slices.Contains(out, d) {
				out = append(out, d)
			}
		}
	}
	return out
}

// missAdvice is what to do about each reason: the keyed cache's own advice, else recomp's.
func missAdvice(kc framework.KeyedCache, r MissReason) string {
	if a := kc.Words().Advice[string(r)]; a != "" {
		return a
	}
	switch r {
	case MissGraphDiffers:
		return "the program changed between the runs: the cause says how; an entry can only serve the same graph"
	case MissReadOnly:
		return "make the cache folder writable for the run that fills it"
	case MissNotInA:
		return "run A never compiled it: warm the cache with every program and shape the later run needs"
	case MissNotLookedUp:
		return "turn the persistent cache on in run B (" + frameworks.CacheAdvice() + ")"
	}
	return ""
}
