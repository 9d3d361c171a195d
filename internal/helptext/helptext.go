// Package helptext is what recomp's --help says besides its flags: the summary naming every
// stack, each command's example and exit codes (help.txt) laid out after its flags, and a
// flag's default said in its help. The command line (kong) stays in cmd/recomp.
package helptext

import (
	_ "embed"
	"fmt"
	"io"
	"strings"

	"github.com/recomp/recomp/frameworks"
	"github.com/recomp/recomp/report"
)

// Command is what a command's --help says after its flags: one example and the exit codes it
// can end with, each "code meaning".
type Command struct {
	Example string
	Exits   []string
}

// text is each command's example and exit codes (help.txt says how it is laid out).
//
//go:embed help.txt
var text string

// Commands is help.txt by command path ("run", "hlo check").
var Commands = parse(text)

// parse reads help.txt: a "[command]" line, its example, then its exit codes; blank lines and
// lines starting with # are skipped.
func parse(text string) map[string]Command {
	helps := map[string]Command{}
	cmd := ""
	for _, line := range strings.Split(text, "\n") {
		switch h := helps[cmd]; {
		case line == "" || strings.HasPrefix(line, "#"):
		case strings.HasPrefix(line, "[") && strings.HasSuffix(line, "]"):
			cmd = line[1 : len(line)-1]
			helps[cmd] = Command{}
		case h.Example == "":
			h.Example = line
			helps[cmd] = h
		default:
			h.Exits = append(h.Exits, line)
			helps[cmd] = h
		}
	}
	return helps
}

// Summary is recomp's description at the top of its help: it names every stack recomp reads.
func Summary() string {
	var titles []string
	for _, f := range frameworks.All() {
		titles = append(titles, f.Title)
	}
	last := len(titles) - 1
	return "The recompilation detective for XLA-based ML stacks: " + strings.Join(titles[:last], ", ") +
		" and " + titles[last] + "."
}

// Write writes what the command's help says after its flags: its example and its exit codes,
// each meaning wrapped to 80 columns. A command help.txt does not name gets nothing.
func Write(w io.Writer, command string) {
	h, ok := Commands[command]
	if !ok {
		return
	}
	fmt.Fprintf(w, "\nExample:\n  %s\n\nExit codes:\n", h.Example)
	for _, e := range h.Exits {
		fmt.Fprintf(w, "%s\n", wrapExit(e, 80))
	}
}

// wrapExit lays out an exit code's line: indented two spaces, its meaning wrapped to width
// under its first word.
func wrapExit(e string, width int) string {
	var b strings.Builder
	col := 0
	for i, word := range strings.Fields(e) {
		switch {
		case i == 0:
			b.WriteString("  " + word + " ")
			col = 3 + len(word)
		case col+1+len(word) > width && col > 5:
			b.WriteString("\n     " + word)
			col = 5 + len(word)
		default:
			b.WriteString(" " + word)
			col += 1 + len(word)
		}
	}
	return b.String()
}

// WithDefault is a flag's help saying its default d: "… (default: d)."
func WithDefault(help, d string) string {
	if h, ok := strings.CutSuffix(help, "."); ok {
		return h + " (default: " + d + ")."
	}
	return help + " (default: " + d + ")"
}

// FormatHelp is --format's help under a command: the formats it writes (report.Formats).
func FormatHelp(command string) (string, error) {
	fs := report.Formats(command)
	if len(fs) == 0 {
		return "", fmt.Errorf("recomp %s has --format but writes no format", command)
	}
	names := make([]string, len(fs))
	for i, x := range fs {
		names[i] = string(x)
	}
	return "Output format: " + strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1] + ".", nil
}
