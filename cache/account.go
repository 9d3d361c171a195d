package cache

import (
	"slices"
	"time"

	"github.com/recomp/recomp/hlo"
)

// Summary counts what the ledger saw.
type Summary struct {
	CompileRequests  int
	Compilations     int
	CacheHits        int
	CacheMisses      int
	CacheWrites      int
	ExecutableLoads  int
	CompileTime      time.Duration
	LoadTime         time.Duration
	Recompilations   int // compilations of a program beyond its first, in its process; eager one-op programs not counted
	AfterWarmup      int // compilations after warm-up
	LateCompileTime  time.Duration
	LoadsAfterWarmup int
	LateLoadTime     time.Duration
	Retraces         int // retrace events: JAX tracing-cache misses, TF retracing warnings
	EagerCompilations int // compilations of eager one-op programs (counted in Compilations too)
	Events           int // events of any kind but markers: zero means the logs hold no compile evidence
}

func (s *Summary) add(o Summary) {
	s.CompileRequests += o.CompileRequests
	s.Compilations += o.Compilations
	s.CacheHits += o.CacheHits
	s.CacheMisses += o.CacheMisses
	s.CacheWrites += o.CacheWrites
	s.ExecutableLoads += o.ExecutableLoads
	s.CompileTime += o.CompileTime
	s.LoadTime += o.LoadTime
	s.Recompilations += o.Recompilations
	s.AfterWarmup += o.AfterWarmup
	s.LateCompileTime += o.LateCompileTime
	s.LoadsAfterWarmup += o.LoadsAfterWarmup
	s.LateLoadTime += o.LateLoadTime
	s.Retraces += o.Retraces
	s.EagerCompilations += o.EagerCompilations
	s.Events += o.Events
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

	first    *Unit
	hashSet  map[string]bool
	producer string
}

func (m *Module) addHash(h string) {
	if m.hashSet[h] {
		m.SameHashAgain = true
		return
	}
	if len(m.Hashes) >= MaxHashes {
		m.HashCount = MaxHashes + 1 // at least; not tracked any further
		return
	}
	m.hashSet[h] = true
	m.Hashes = append(m.Hashes, h)
	m.HashCount = len(m.Hashes)
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
	return hlo.Family(module)
}

func (l *Ledger) module(u *Unit) *Module {
	m := l.mods[u.Family]
	if m == nil {
		m = &Module{Name: u.Module, Family: u.Family, hashSet: map[string]bool{}, Eager: true, Inputs: 1, first: u}
		l.mods[u.Family] = m
		l.order = append(l.order, m)
	}
	return m
}

// account counts a closed unit.
func (l *Ledger) account(u *Unit) {
	u.Family = familyOf(u.Module)
	u.Eager = u.Producer != "" && isEagerOp(u.Producer, u.Family, u.Signature)
	u.Program = u.Family
	if u.Eager {
		u.Program += "\x00" + u.Signature
	}
	m := l.module(u)
	m.Names = addText(m.Names, u.Module)
	m.Reasons = addText(m.Reasons, u.Why)
	m.Signatures = addText(m.Signatures, u.Signature)
	if len(m.Units) < MaxUnits {
		m.Units = append(m.Units, u)
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
	if !u.Compiled {
		return
	}
	l.compiled++
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
	l.programs[u.Program]++
	u.Seq = l.programs[u.Program]
	if u.Seq > 1 && u.Family != Unnamed && !u.Eager {
		s.Recompilations++
		m.Recompilations++
		m.Recompiled, m.RecompiledIn = true, 1
		if m.FirstRecompile == nil {
			m.FirstRecompile = u
		}
	}
	l.warmup(u, m)
}
