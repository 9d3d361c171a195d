// Package textutil holds the small text helpers that recomp's packages share: shortening a
// string for display without splitting a UTF-8 character.
package textutil

import "unicode/utf8"

// Shorten cuts s to at most n runes, keeping its head and its tail around an ellipsis, so
// that both ends of a long name or value stay readable. It never splits a UTF-8 character.
func Shorten(s string, n int) string {
	if n < 5 || utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	head := (n - 1) * 2 / 3
	tail := n - 1 - head
	return string(r[:head]) + "…" + string(r[len(r)-tail:])
}
