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

func TestVisible(t *testing.T) {
	for in, want := range map[string]string{
		"plain name_1.2":          "plain name_1.2",
		"a\nb\rc\td":              `a\nb\rc\td`,
		"\x1b[31mred\x00\x7f":     `\x1b[31mred\x00\x7f`,
		"c1 \u009b2J":             `c1 \u009b2J`,
		"bidi \u202eevil\u2066":   `bidi \u202eevil\u2066`,
		"bad \xff\xfe utf8":       `bad \xff\xfe utf8`,
		"é → ü \ue001 \U000F0001": "é → ü \ue001 \U000F0001", // private use is shown as it is: it acts on nothing
	} {
		if got := Visible(in); got != want {
			t.Errorf("Visible(%q) = %q, want %q", in, got, want)
		}
	}
	if got := EscapeControls("a\nb\x1b", true); got != "a\nb\\x1b" {
		t.Errorf("escapeControls keeping newlines: %q", got)
	}
}

func TestCount(t *testing.T) {
	for _, c := range []struct {
		n, listed int
		more      string
		want      string
	}{
		{3, 4, ">%d", "3"},
		{4, 4, ">%d", "4"},
		{9, 4, ">%d", ">4"},
		{9, 4, "more than %d", "more than 4"},
		{0, 0, "more than %d", "0"},
	} {
		if got := Count(c.n, c.listed, c.more); got != c.want {
			t.Errorf("Count(%d, %d, %q) = %q, want %q", c.n, c.listed, c.more, got, c.want)
		}
	}
}
