package runner

import (
	"os"

	"golang.org/x/term"
)

// IsTerminal reports whether f is a terminal (a console on Windows); /dev/null and other
// character devices are not.
func IsTerminal(f *os.File) bool {
	return term.IsTerminal(int(f.Fd()))
}
