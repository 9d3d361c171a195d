package textutil

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestShorten(t *testing.T) {
	for _, c := range []struct {
		in   string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"abcdefghijklmnopqrstuvwxyz", 10, "abcdef…xyz"},
		{strings.Repeat("é", 30), 10, strings.Repeat("é", 6) + "…" + strings.Repeat("é", 3)},
		{"abcdef", 3, "abcdef"},
	} {
		got := Shorten(c.in, c.n)
		if got != c.want || !utf8.ValidString(got) {
			t.Errorf("Shorten(%q, %d) = %q, want %q", c.in, c.n, got, c.want)
		}
	}
}
