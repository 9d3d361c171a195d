package ledger

import (
	"fmt"
	"testing"

	"github.com/cespare/xxhash/v2"
)

// A Sequence's digest is the hash of every request's SeqKey, each followed by \x01, past the
// MaxSequence it lists; only the listed entries are interned.
func TestSequenceDigest(t *testing.T) {
	in := newInterner()
	s := &Sequence{intern: in}
	want := xxhash.New()
	n := MaxSequence + 500
	for i := range n {
		u := &Unit{Program: fmt.Sprintf("p%d", i%3), Family: "f", Module: "m", Hash: fmt.Sprintf("0x%x", i), File: "a.log",
			Line: i + 1, Compiled: i%4 != 0}
		if i%5 == 0 {
			u.Signature = fmt.Sprintf("f32[%d]", i)
		}
		s.add(u)
		e := Entry{Program: u.Program, Signature: u.Signature, Hash: u.Hash, Compiled: u.Compiled}
		want.WriteString(SeqKey(&e) + "\x01")
	}
	s.add(&Unit{Program: "convert", Eager: true, Compiled: true})
	if s.Digest != want.Sum64() {
		t.Errorf("digest %x, want %x", s.Digest, want.Sum64())
	}
	if s.Count != n || len(s.Entries) != MaxSequence || s.Eager != 1 || s.Compilations+s.Hits != n {
		t.Errorf("count %d, entries %d, eager %d, compiled %d, hits %d", s.Count, len(s.Entries), s.Eager, s.Compilations, s.Hits)
	}
	if e := s.Entries[MaxSequence-1]; e.Hash != fmt.Sprintf("0x%x", MaxSequence-1) || e.Line != MaxSequence {
		t.Errorf("last entry %+v", e)
	}
	// the hashes beyond the listed entries are not interned
	if _, ok := in.m[fmt.Sprintf("0x%x", n-1)]; ok {
		t.Error("an unlisted request's hash was interned")
	}
	if _, ok := in.m["0x0"]; !ok {
		t.Error("a listed request's hash was not interned")
	}
}
