// Package textutil holds the small text helpers that recomp's packages share: shortening a
// string for display without splitting a UTF-8 character, showing the characters of
// untrusted text (a log line, a file name) that would act on a terminal instead of showing,
// and writing a count of which only the first few were listed.
package textutil

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Shorten cuts s to at most n runes, keeping its head and its tail around an ellipsis, so
// that both ends of a long name or value stay readable. It never splits a UTF-8 character.
func Shorten(s string, n int) string {
	if n < 5 || len(s) <= n || utf8.RuneCountInString(s) <= n {
		return s
	}
	head := (n - 1) * 2 / 3
	tail := n - 1 - head
	h := 0 // byte offsets, walked rune by rune: a long s is never copied whole
	for range head {
		_, size := utf8.DecodeRuneInString(s[h:])
		h += size
	}
	t := len(s)
	for range tail {
		_, size := utf8.DecodeLastRuneInString(s[:t])
		t -= size
	}
	return s[:h] + "…" + s[t:]
}

// Count writes n, a count of which only listed were kept: n itself when all were kept,
// otherwise more formatted with listed (">%d" in a table cell, "more than %d" in a sentence).
func Count(n, listed int, more string) string {
	if n > listed {
		return fmt.Sprintf(more, listed)
	}
	return strconv.Itoa(n)
}

// Visible shows the characters of untrusted text that would act instead of showing: C0
// control characters (newline and tab included: untrusted text never breaks a line), DEL, C1
// control characters (U+0080–U+009F; U+009B is a CSI to some terminals), the Unicode
// bidirectional controls (which reorder what is shown around them), and bytes that are not
// UTF-8. They are written as \n, \r, \t, \x1b, \u202e and \xff.
func Visible(s string) string { return EscapeControls(s, false) }

// EscapeControls is Visible; with keepNewlines, \n and \r are left for the caller's own
// escaping (GitHub's %0A and %0D).
func EscapeControls(s string, keepNewlines bool) string {
	i := 0
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		if mustEscape(r, n) && !(keepNewlines && (r == '\n' || r == '\r')) {
			break
		}
		i += n
	}
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	b.WriteString(s[:i])
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case !mustEscape(r, n) || keepNewlines && (r == '\n' || r == '\r'):
			b.WriteString(s[i : i+n])
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x80:
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
		i += n
	}
	return b.String()
}

func mustEscape(r rune, size int) bool {
	switch {
	case r == utf8.RuneError && size == 1:
		return true
	case r < 0x20 || r == 0x7f || r >= 0x80 && r <= 0x9f:
		return true
	}
	return IsBidiControl(r)
}

// IsBidiControl reports the characters of Unicode's Bidi_Control property (plus the marks).
func IsBidiControl(r rune) bool {
	return r == 0x061c || r == 0x200e || r == 0x200f || r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069
}

// Plural is a count with its noun: "1 step", "3 steps".
func Plural(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}

// IntList is a list of numbers, at most max of them and a count of the rest: "1, 2, … 3 more".
func IntList(xs []int, max int) string {
	var parts []string
	for i, x := range xs {
		if i == max {
			parts = append(parts, fmt.Sprintf("… %d more", len(xs)-i))
			break
		}
		parts = append(parts, strconv.Itoa(x))
	}
	return strings.Join(parts, ", ")
}
