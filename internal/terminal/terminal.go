// Package terminal says what recomp writes to: a terminal or not, how wide it is, and whether
// what goes to it is coloured (NO_COLOR as no-color.org says).
package terminal

import (
	"io"
	"os"

	"golang.org/x/term"
)

// Is reports whether f is a terminal (a console on Windows); /dev/null and other character
// devices are not.
func Is(f *os.File) bool {
	return term.IsTerminal(int(f.Fd()))
}

// Color reports whether what is written to w is coloured: w is a terminal and NO_COLOR is
// unset or empty (no-color.org: only a non-empty NO_COLOR turns colour off).
func Color(w io.Writer) bool {
	if os.Getenv("NO_COLOR") != "" {
		return false
	}
	f, ok := w.(*os.File)
	return ok && Is(f)
}

// Width is the width in columns of the terminal w writes to (0 when w is no terminal: a file
// or a pipe gets lines unwrapped).
func Width(w io.Writer) int {
	f, ok := w.(*os.File)
	if !ok || !Is(f) {
		return 0
	}
	cols, _, err := term.GetSize(int(f.Fd()))
	if err != nil {
		return 0
	}
	return cols
}
