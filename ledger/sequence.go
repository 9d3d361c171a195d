package ledger

import (
	"strconv"
	"sync"
	"time"

	"github.com/cespare/xxhash/v2"
)

// MaxSequence bounds the compile requests a Sequence lists; all of them go into its Digest and
// counts.
const MaxSequence = 1000

// Sequence is one process's compile requests in the order it made them, each compiled or
// served from a cache: the ranks of one job run the same programs in the same order, and a
// rank whose sequence differs is the one that compiled something the others did not. Eager
// one-op programs (set-up work outside jit, often done by one rank only) are counted apart and
// left out of the comparison. A Sequence holds compact entries with interned strings, not the
// Units: a thousand ranks' sequences stay small.
type Sequence struct {
	// Process names the process (its log, with the rank a launcher's prefix named); File is
	// its log and Rank the rank the prefix named ("" when none did).
	Process, File, Rank string
	// Entries are the first MaxSequence requests (eager one-op programs left out); Count counts
	// them all, Compilations and Hits those compiled and served, CompileTime their compile
	// time, First the start of the first compilation (zero without a clock).
	Entries      []Entry
	Count        int
	Compilations int
	Hits         int
	CompileTime  time.Duration
	First        time.Time
	DateKnown    bool
	// Digest is a hash of the whole sequence (each request's program, variant and whether it
	// compiled): equal digests, equal sequences, whichever machine computed them.
	Digest uint64
	// Eager counts the eager one-op programs left out.
	Eager int

	h      *xxhash.Digest
	intern *interner
}

// Entry is one compile request of a Sequence.
type Entry struct {
	Program, Family, Module string
	// Signature is the argument signature the framework logged, Hash the graph hash or cache key.
	Signature, Hash string
	Compiled        bool // false: served from a cache
	File            string
	Line, LastLine  int
	// Site is the line of the program's own code that made it compile, when the log says
	// (Unit.Site); "" when not.
	Site      string
	Begin     time.Time // zero when the log has no clock
	DateKnown bool
	Duration  time.Duration
}

// Variant is what tells two requests of one program apart across processes (Unit.Variant).
func (e *Entry) Variant() string {
	if e.Signature != "" {
		return e.Signature
	}
	return e.Hash
}

// SeqKey is what a request is compared by across processes: its program, its variant and
// whether it compiled or was served.
func SeqKey(e *Entry) string {
	s := e.Program + "\x00" + e.Variant()
	if e.Compiled {
		return s + "\x00compiled"
	}
	return s + "\x00served"
}

func (s *Sequence) add(u *Unit) {
	if u.Eager {
		s.Eager++
		return
	}
	if s.h == nil {
		s.h = xxhash.New()
	}
	// The digest takes SeqKey's bytes, written in pieces: no key is built for each request.
	_, _ = s.h.WriteString(u.Program)
	_, _ = s.h.WriteString("\x00")
	_, _ = s.h.WriteString(u.Variant())
	if u.Compiled {
		_, _ = s.h.WriteString("\x00compiled\x01")
	} else {
		_, _ = s.h.WriteString("\x00served\x01")
	}
	s.Count++
	s.Digest = s.h.Sum64()
	if u.Compiled {
		s.Compilations++
		s.CompileTime += u.Duration
		if !u.Begin.IsZero() && (s.First.IsZero() || u.Begin.Before(s.First)) {
			s.First, s.DateKnown = u.Begin, u.DateKnown
		}
	} else {
		s.Hits++
	}
	if len(s.Entries) >= MaxSequence {
		return // counted and digested; only the listed entries are interned
	}
	in := s.intern
	e := Entry{Program: in.get(u.Program), Family: in.get(u.Family), Module: in.get(u.Module), Signature: in.get(u.Signature),
		Hash: in.get(u.Hash), Compiled: u.Compiled, File: in.get(u.File), Line: u.Line, LastLine: u.LastLine, Begin: u.Begin,
		DateKnown: u.DateKnown, Duration: u.Duration}
	if u.Site.User() {
		e.Site = in.get(u.Site.String())
	}
	s.Entries = append(s.Entries, e)
}

// DigestString is the digest as the reports print it (16 hex digits).
func (s *Sequence) DigestString() string {
	d := strconv.FormatUint(s.Digest, 16)
	for len(d) < 16 {
		d = "0" + d
	}
	return d
}

// interner shares the strings of the sequences of the logs one ReadLogs reads (the program
// names, signatures and file names a thousand ranks repeat), up to a bound.
type interner struct {
	mu sync.Mutex
	m  map[string]string
}

const maxInterned = 1 << 16

func newInterner() *interner { return &interner{m: map[string]string{}} }

func (in *interner) get(s string) string {
	if in == nil || s == "" {
		return s
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	if t, ok := in.m[s]; ok {
		return t
	}
	if len(in.m) < maxInterned {
		s = string([]byte(s)) // not a slice of a larger line the log's reading kept
		in.m[s] = s
	}
	return s
}
