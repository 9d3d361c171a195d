package openfile

import (
	"bytes"
	"testing"
)

// trimSpaceRight cuts what bytes.TrimRight(b, " \t\r\n") cuts, and nothing else.
func TestTrimSpaceRight(t *testing.T) {
	for _, s := range []string{"", " ", "{}", "{} \n\t\r ", "\n\n", "{\"a\": 1}\n" + string(bytes.Repeat([]byte{' '}, 1000)), "x\v ", " x", "\u00a0 ", "{}\x00 "} {
		if got, want := trimSpaceRight([]byte(s)), bytes.TrimRight([]byte(s), " \t\r\n"); !bytes.Equal(got, want) {
			t.Errorf("%q: got %q, want %q", s, got, want)
		}
	}
	for pad := range 40 { // the eight-byte steps' edges, with a tab or a newline among the spaces
		for _, in := range []string{"", "\t", "\n \r"} {
			s := "{}" + in + string(bytes.Repeat([]byte{' '}, pad))
			if got := trimSpaceRight([]byte(s)); string(got) != "{}" {
				t.Errorf("%q: got %q, want {}", s, got)
			}
			s = "{}" + string(bytes.Repeat([]byte{' '}, pad)) + in + "x" + string(bytes.Repeat([]byte{' '}, pad))
			if got, want := trimSpaceRight([]byte(s)), bytes.TrimRight([]byte(s), " \t\r\n"); !bytes.Equal(got, want) {
				t.Errorf("%q: got %q, want %q", s, got, want)
			}
		}
	}
}

// A start manifest's padding, cut by each: go test -bench TrimSpace ./internal/openfile.
func BenchmarkTrimSpaceRight(b *testing.B) {
	m := append([]byte(`{"version": 1}`+"\n"), bytes.Repeat([]byte{' '}, 64<<10)...)
	b.Run("loop", func(b *testing.B) {
		b.SetBytes(int64(len(m)))
		for b.Loop() {
			if len(trimSpaceRight(m)) != 14 {
				b.Fatal("not cut")
			}
		}
	})
	b.Run("bytes.TrimRight", func(b *testing.B) {
		b.SetBytes(int64(len(m)))
		for b.Loop() {
			if len(bytes.TrimRight(m, " \t\r\n")) != 14 {
				b.Fatal("not cut")
			}
		}
	})
}
