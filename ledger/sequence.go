package ledger

import (
	"strconv"

	"github.com/cespare/xxhash/v2"
)

// MaxSequence bounds the compile requests a Sequence lists; all of them go into its Digest.
const MaxSequence = 1000

// Sequence is one process's compile requests in the order it made them, each compiled or
// served from a cache: the ranks of one job run the same programs in the same order, and a
// rank whose sequence differs is the one that compiled something the others did not. Eager
// one-op programs (set-up work outside jit, often done by one rank only) are counted apart and
// left out of the comparison.
type Sequence struct {
	// Process names the process (its log, with the rank a launcher's prefix named); File is
	// its log and Rank the rank the prefix named ("" when none did).
	Process, File, Rank string
	// Units are the first MaxSequence requests (eager one-op programs left out); Count counts
	// them all.
	Units []*Unit
	Count int
	// Digest is a hash of the whole sequence (each request's program, variant and whether it
	// compiled): equal digests, equal sequences, whichever machine computed them.
	Digest uint64
	// Eager counts the eager one-op programs left out.
	Eager int

	h *xxhash.Digest
}

// SeqKey is what a request is compared by across processes: its program, its variant
// (Unit.Variant) and whether it compiled or was served.
func SeqKey(u *Unit) string {
	s := u.Program + "\x00" + u.Variant()
	if u.Compiled {
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
	_, _ = s.h.WriteString(SeqKey(u))
	_, _ = s.h.WriteString("\x01")
	s.Count++
	s.Digest = s.h.Sum64()
	if len(s.Units) < MaxSequence {
		s.Units = append(s.Units, u)
	}
}

// DigestString is the digest as the reports print it (16 hex digits).
func (s *Sequence) DigestString() string {
	d := strconv.FormatUint(s.Digest, 16)
	for len(d) < 16 {
		d = "0" + d
	}
	return d
}
