package ledger

import (
	"slices"
	"time"

	"github.com/cespare/xxhash/v2"
	"github.com/recomp/recomp/frameworks"
)

// Summary counts what the ledger saw.
type Summary struct {
	CompileRequests   int
	Compilations      int
	CacheHits         int
	CacheMisses       int
	CacheWrites       int
	ExecutableLoads   int
	CompileTime       time.Duration
	TraceTime         time.Duration // the stages before the compiler's own (JAX's tracing), where logged
	LowerTime         time.Duration // (JAX's lowering to MLIR)
	LoadTime          time.Duration
	Recompilations    int // compilations of a program beyond its first, in its process; eager one-op programs not counted
	AfterWarmup       int // compilations after warm-up
	LateCompileTime   time.Duration
	LoadsAfterWarmup  int
	LateLoadTime      time.Duration
	Retraces          int // retrace events: JAX tracing-cache misses, TF retracing warnings
	EagerCompilations int // compilations of eager one-op programs (counted in Compilations too)
	Executions        int // compiled graphs run (PyTorch/XLA Execution Analysis, TF "Already Compiled")
	Events            int // events of any kind but markers: zero means the logs hold no compile evidence
	// UnreadRecords counts the lines that look like compile records of a framework (its
	// compile vocabulary) but that recomp could not read: with any, no count here is complete
	// and the logs' silence proves nothing.
	UnreadRecords int
	// Unfinished counts the processes whose log ends inside a compilation (Process.Cut).
	Unfinished int
	// Metrics are what the frameworks report about their own compilations (PyTorch/XLA's
	// metrics report: CompileTime, CachedCompile, UncachedCompile, PersistentCache*), the last
	// report of each process, summed over processes.
	Metrics map[string]Metric
	// MetricCompileTime says CompileTime came from a framework's metric (the log gave no
	// durations of its own).
	MetricCompileTime bool
	// FamiliesNotListed counts the module families a process had beyond MaxFamilies: their
	// compile requests, compilations and recompilations (the NotListed counts) are in the
	// totals above, but they have no Module of their own.
	FamiliesNotListed       int
	RequestsNotListed       int
	CompilationsNotListed   int
	RecompilationsNotListed int
	// RetracesNotListed counts the frameworks' retracing warnings about functions beyond the
	// first 1000 a process (or the merged report) was warned about: counted in Retraces, not
	// listed one by one.
	RetracesNotListed int
	// ReportedCompilations are the compilations only a framework's metrics report counts (its
	// last report counted more than the log shows one by one): part of Compilations, in no
	// Module (the report names no graph).
	ReportedCompilations int
}

// Metric is a framework's counter (Count) or metric (Count samples, Total time).
type Metric struct {
	Count int
	Total time.Duration
	File  string
	Line  int
}

func (s *Summary) add(o Summary) {
	s.CompileRequests += o.CompileRequests
	s.Compilations += o.Compilations
	s.CacheHits += o.CacheHits
	s.CacheMisses += o.CacheMisses
	s.CacheWrites += o.CacheWrites
	s.ExecutableLoads += o.ExecutableLoads
	s.CompileTime += o.CompileTime
	s.TraceTime += o.TraceTime
	s.LowerTime += o.LowerTime
	s.LoadTime += o.LoadTime
	s.Recompilations += o.Recompilations
	s.AfterWarmup += o.AfterWarmup
	s.LateCompileTime += o.LateCompileTime
	s.LoadsAfterWarmup += o.LoadsAfterWarmup
	s.LateLoadTime += o.LateLoadTime
	s.Retraces += o.Retraces
	s.UnreadRecords += o.UnreadRecords
	s.Unfinished += o.Unfinished
	s.EagerCompilations += o.EagerCompilations
	s.Executions += o.Executions
	s.Events += o.Events
	s.MetricCompileTime = s.MetricCompileTime || o.MetricCompileTime
	s.FamiliesNotListed += o.FamiliesNotListed
	s.RequestsNotListed += o.RequestsNotListed
	s.CompilationsNotListed += o.CompilationsNotListed
	s.RecompilationsNotListed += o.RecompilationsNotListed
	s.RetracesNotListed += o.RetracesNotListed
	s.ReportedCompilations += o.ReportedCompilations
	for k, v := range o.Metrics {
		if s.Metrics == nil {
			s.Metrics = map[string]Metric{}
		}
		m := s.Metrics[k]
		m.Count += v.Count
		m.Total += v.Total
		if m.File == "" {
			m.File, m.Line = v.File, v.Line
		}
		s.Metrics[k] = m
	}
}

// Module is the account of one module family.
type Module struct {
	Name            string // the first exact name seen
	Names           []string
	Family          string
	CompileRequests int
	Compilations    int
	CacheHits       int
	CacheMisses     int
	CompileTime     time.Duration
	TraceTime       time.Duration
	LowerTime       time.Duration
	// Hashes are the distinct graph hashes it compiled with, in order (the first MaxHashes);
	// HashCount counts them (at least MaxHashes when there were more).
	Hashes    []string
	HashCount int
	// Recompiled says that a program of this family was compiled more than once in one process;
	// Recompilations counts the compilations beyond each program's first, RecompiledIn the
	// inputs in which that happened.
	Recompiled     bool
	Recompilations int
	RecompiledIn   int
	Inputs         int  // inputs in which it was compiled or served
	SameHashAgain  bool // compiled again with a hash it had already been compiled with
	// Eager says every compilation of the family was an eager one-op program.
	Eager bool
	// Units are its first MaxUnits units, in input order; FirstRecompile is the first
	// compilation that recompiled one of its programs.
	Units          []*Unit
	FirstRecompile *Unit
	// Reasons are the frameworks' explanations (Unit.Why) of its compilations, distinct, in
	// order; Signatures the argument signatures they logged (Unit.Signature).
	Reasons    []string
	Signatures []string

	first *Unit
	// hashSet holds the 64-bit xxhash of each of Hashes: small keys in one block, where a
	// family compiled thousands of graphs (the strings' own memory is spread wide).
	hashSet map[uint64]struct{}
	// hashBits, once the family has hashFilterFrom hashes, has a bit set for each of hashSet's
	// keys (hashBit): a hash whose bit is clear is new without a look in hashSet, which for a
	// family of thousands of hashes costs a cache miss or more (most of a dense log's compile
	// requests bring a new hash).
	hashBits []uint64
}

// The filter before a family's hash set: from how many hashes on, and its size in bits (8 KB:
// 1 in 16 of new hashes looked up when the family has MaxHashes).
const (
	hashFilterFrom = 512
	hashFilterBits = 1 << 16
)

// hashBit is the word of hashBits and the bit in it that stand for the hash k.
func hashBit(k uint64) (int, uint64) {
	return int(k>>6) & (hashFilterBits/64 - 1), 1 << (k & 63)
}

// mayHave is false when the family surely has no hash k.
func (m *Module) mayHave(k uint64) bool {
	if m.hashBits == nil {
		return true
	}
	w, b := hashBit(k)
	return m.hashBits[w]&b != 0
}

func (m *Module) hasHash(h string) bool {
	k := xxhash.Sum64String(h)
	if !m.mayHave(k) {
		return false
	}
	_, ok := m.hashSet[k]
	return ok
}

func (m *Module) addHash(h string) {
	k := xxhash.Sum64String(h)
	if m.mayHave(k) {
		if _, ok := m.hashSet[k]; ok {
			m.SameHashAgain = true
			return
		}
	}
	if len(m.Hashes) >= MaxHashes {
		m.HashCount = MaxHashes + 1 // at least; not tracked any further
		return
	}
	m.hashSet[k] = struct{}{}
	m.Hashes = append(m.Hashes, h)
	m.HashCount = len(m.Hashes)
	switch {
	case m.hashBits != nil:
		w, b := hashBit(k)
		m.hashBits[w] |= b
	case len(m.Hashes) == hashFilterFrom:
		m.hashBits = make([]uint64, hashFilterBits/64)
		for k := range m.hashSet {
			w, b := hashBit(k)
			m.hashBits[w] |= b
		}
	}
}

func addText(list []string, s string) []string {
	if s == "" || len(list) >= maxTexts || slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}

func familyOf(module string) string {
	if module == "" {
		return Unnamed
	}
	return frameworks.Family(module)
}

// module is the account of u's family. Beyond MaxFamilies families it is the one account of
// all the others (l.other), which is never listed: its counts become the Summary's NotListed
// counts, and the families in it are counted by a hash of their names.
func (l *Ledger) module(u *Unit) *Module {
	m := l.mods[u.Family]
	if m != nil {
		return m
	}
	if len(l.order) >= MaxFamilies {
		l.otherFams[xxhash.Sum64String(u.Family)] = struct{}{}
		if l.other == nil {
			l.other = newModule(u)
		}
		return l.other
	}
	m = newModule(u)
	l.mods[u.Family] = m
	l.order = append(l.order, m)
	return m
}

func newModule(u *Unit) *Module {
	return &Module{Name: u.Module, Family: u.Family, hashSet: map[uint64]struct{}{}, Eager: true, Inputs: 1, first: u}
}

// account counts a closed unit.
func (l *Ledger) account(u *Unit) {
	u.Family = familyOf(u.Module)
	u.Eager = !u.User && frameworks.Eager(u.Producer, u.Family, u.Signature)
	u.Program = programOf(u)
	if !u.Eager {
		u.Family = u.Program // programs that share a name are families of their own (Keras's train and test steps)
	}
	m := l.module(u)
	m.Names = addText(m.Names, u.Module)
	m.Reasons = addText(m.Reasons, u.Why)
	m.Signatures = addText(m.Signatures, u.Signature)
	listed := len(m.Units) < MaxUnits && l.listed < MaxListedUnits
	if listed {
		m.Units = append(m.Units, u)
		l.listed++
	}
	s := &l.sum
	if u.Requested {
		s.CompileRequests++
		m.CompileRequests++
	}
	if u.Hit {
		s.CacheHits++
		m.CacheHits++
	}
	if u.Miss {
		s.CacheMisses++
		m.CacheMisses++
	}
	s.TraceTime += u.TraceTime
	s.LowerTime += u.LowerTime
	m.TraceTime += u.TraceTime
	m.LowerTime += u.LowerTime
	l.seq.add(u)
	if u.Compiled {
		l.hostRead(u.Producer, u.Why, u.Site.String(), u.File, u.Line, false)
	}
	if !u.Compiled {
		return
	}
	if !u.Eager {
		l.compiled++ // what --warmup counts: the program's own compilations
	}
	s.Compilations++
	s.CompileTime += u.Duration
	m.Compilations++
	m.CompileTime += u.Duration
	m.Eager = m.Eager && u.Eager
	if u.Eager {
		s.EagerCompilations++
	}
	if u.Hash != "" {
		m.addHash(u.Hash)
	}
	l.tick++
	u.tick = l.tick
	l.prog.compiled(u, listed)
	p := xxhash.Sum64String(u.Program) // (the programs of 200 000 families, without their names)
	l.programs[p]++
	u.Seq = int(l.programs[p])
	// A graph whose program the log does not name is exempt only when it has no hash either
	// (PopTorch's bars, PopART): with a hash, a second graph may be the first recompiled.
	recompiled := (u.Seq > 1 || u.SeenBefore) && !u.Eager && (u.Family != Unnamed || u.Hash != "")
	if g := frameworks.Group(u.Module); g != "" && u.Seq == 1 && l.reused[g] {
		// TF auto-clustering names the clusters of a traced graph cluster_0, cluster_1, …:
		// a new cluster of a group whose graph was already running is the function traced
		// again, not another part of it.
		recompiled = true
		u.Retraced = true
	}
	if recompiled {
		s.Recompilations++
		m.Recompilations++
		m.Recompiled, m.RecompiledIn = true, 1
		if m.FirstRecompile == nil {
			m.FirstRecompile = u
		}
	}
	l.warmup(u, m)
	if l.onCompiled != nil {
		l.onCompiled(u)
	}
}

// programOf is what a recompilation is counted against: the family, except for programs that
// share a family without being one program. Eager one-op programs differ by their signature;
// a stack may tell others apart its own way (Keras's train, test and predict steps).
func programOf(u *Unit) string {
	if u.Eager {
		return u.Family + "\x00" + u.Signature
	}
	if p, ok := frameworks.Program(u.Family, u.Module, u.Signature); ok {
		return p
	}
	if u.Lambda != "" {
		return frameworks.LambdaProgram(u.Family, u.Lambda)
	}
	return u.Family
}
