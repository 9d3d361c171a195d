package main

import (
	_ "embed"
	"fmt"
	"io"
	"reflect"
	"strings"

	"github.com/alecthomas/kong"
	"github.com/recomp/recomp/frameworks"
	buildversion "github.com/recomp/recomp/internal/version"
	"github.com/recomp/recomp/report"
)

// formatHelp is the help of outputFlag's --format until help describes each command: then it
// names the formats that command writes (report.Formats).
const formatHelp = "Output format."

// commandHelp is what a command's --help says after its flags: one example and the exit codes
// it can end with, each "code meaning".
type commandHelp struct {
	example string
	exits   []string
}

// helpText is each command's example and exit codes (help.txt says how it is laid out).
//
//go:embed help.txt
var helpText string

// helps is helpText by command path.
var helps = parseHelps(helpText)

// parseHelps reads help.txt: a "[command]" line, its example, then its exit codes; blank
// lines and lines starting with # are skipped.
func parseHelps(text string) map[string]commandHelp {
	helps := map[string]commandHelp{}
	cmd := ""
	for _, line := range strings.Split(text, "\n") {
		switch h := helps[cmd]; {
		case line == "" || strings.HasPrefix(line, "#"):
		case strings.HasPrefix(line, "[") && strings.HasSuffix(line, "]"):
			cmd = line[1 : len(line)-1]
			helps[cmd] = commandHelp{}
		case h.example == "":
			h.example = line
			helps[cmd] = h
		default:
			h.exits = append(h.exits, line)
			helps[cmd] = h
		}
	}
	return helps
}

// description is recomp's summary at the top of its help: it names every stack recomp reads.
func description() string {
	var titles []string
	for _, f := range frameworks.All() {
		titles = append(titles, f.Title)
	}
	last := len(titles) - 1
	return "The recompilation detective for XLA-based ML stacks: " + strings.Join(titles[:last], ", ") +
		" and " + titles[last] + "."
}

// newParser is recomp's command line, writing its help to stdout and its errors to stderr;
// exit is what kong calls where it would exit.
func newParser(c *cli, stdout, stderr io.Writer, exit func(int)) (*kong.Kong, error) {
	return kong.New(c,
		kong.Name("recomp"),
		kong.Description(description()),
		kong.Writers(stdout, stderr),
		kong.Exit(exit),
		kong.ConfigureHelp(kong.HelpOptions{Compact: true}),
		kong.Help(printHelp),
		kong.Vars{"version": buildversion.String(), "frameworks": strings.Join(frameworks.Names(), ",")},
		kong.KindMapper(reflect.String, exactString),
		kong.PostBuild(describeFlags),
	)
}

// describeFlags completes the flags' help: --format names the formats its command writes, and
// a flag whose placeholder hides its default says the default.
func describeFlags(k *kong.Kong) error {
	return kong.Visit(k.Model, func(n kong.Visitable, next kong.Next) error {
		var node *kong.Node
		switch n := n.(type) {
		case *kong.Application:
			node = n.Node
		case *kong.Node:
			node = n
		default:
			return next(nil)
		}
		for _, f := range node.Flags {
			if f.Help == formatHelp {
				fs := report.Formats(strings.TrimPrefix(node.FullPath(), "recomp "))
				if len(fs) == 0 {
					return fmt.Errorf("recomp %s has --format but writes no format", node.FullPath())
				}
				names := make([]string, len(fs))
				for i, x := range fs {
					names[i] = string(x)
				}
				f.Help = "Output format: " + strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1] + "."
			}
			withDefault(f)
		}
		return next(nil)
	})
}

// withDefault adds a flag's default to its help where kong's help does not show it: behind a
// placeholder, or a negatable switch that is on.
func withDefault(f *kong.Flag) {
	var d string
	switch {
	case f.IsBool() && f.Tag.Negatable != "" && f.Default == "true":
		d = "on"
	case f.PlaceHolder != "" && f.HasDefault && f.Default != "":
		d = f.Default
	default:
		return
	}
	if h, ok := strings.CutSuffix(f.Help, "."); ok {
		f.Help = h + " (default: " + d + ")."
	} else {
		f.Help += " (default: " + d + ")"
	}
}

// printHelp is kong's help followed, for a command, by its example and its exit codes.
func printHelp(options kong.HelpOptions, ctx *kong.Context) error {
	if err := kong.DefaultHelpPrinter(options, ctx); err != nil {
		return err
	}
	cmd := ctx.Selected()
	if cmd == nil {
		return nil
	}
	h, ok := helps[strings.TrimPrefix(cmd.FullPath(), "recomp ")]
	if !ok {
		return nil
	}
	w := ctx.Stdout
	fmt.Fprintf(w, "\nExample:\n  %s\n\nExit codes:\n", h.example)
	for _, e := range h.exits {
		fmt.Fprintf(w, "%s\n", wrapExit(e, 80))
	}
	return nil
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
