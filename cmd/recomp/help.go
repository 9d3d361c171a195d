package main

import (
	"fmt"
	"io"
	"reflect"
	"strings"

	"github.com/alecthomas/kong"
	"github.com/recomp/recomp/frameworks"
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

// The exit codes every command can end with.
const (
	exitsUsage    = "2  usage or input error (the message names the file and line)"
	exitsInternal = "3  internal error (a bug in recomp)"
)

// helps is each command's example and exit codes, by its path. The codes are those each
// command's Run returns (its exitWith calls, and run's child's own code); TestHelpExitCodesAreTheCode
// pins the list, so that a change to one is a change to the other.
var helps = map[string]commandHelp{
	"run": {"recomp run -- python train.py --epochs 3", []string{
		"0  the command succeeded (with --guard: and the gate passed)",
		"1  --guard: the gate failed",
		"2  usage or input error, a run folder without its reports, or --guard inconclusive",
		exitsInternal,
		"4  --fail-on-recompile or --compile-budget stopped the command (the run folder says where)",
		"N  the command's own exit code when it failed (128+N when signal N ended it)",
	}},
	"watch": {"recomp watch --warmup 2 --fail-on-recompile train.log", []string{
		"0  stopped with Ctrl-C (after its summary)",
		"1  --fail-on-recompile or --compile-budget: a compilation after warm-up, or the budget spent",
		"2  usage or input error, or inconclusive: logs left unread at a cap (files followed, ranks a log)",
		exitsInternal,
	}},
	"scan": {"recomp scan train.log", []string{
		"0  the logs were read (whatever they say)",
		exitsUsage, exitsInternal,
	}},
	"diff": {"recomp diff recomp-runs/run1 recomp-runs/run2", []string{
		"0  everything paired is identical (two runs: B compiled nothing A's cache did not serve)",
		"1  differences found or modules left unpaired (two runs: B compiled what A's cache did not serve)",
		"2  usage or input error, or a module that could not be read or parsed",
		exitsInternal,
	}},
	"explain": {"recomp explain dump/ --log train.log", []string{
		"0  nothing compiled again (state the first step built, compiled once, is no recompilation)",
		"1  a graph compiled again, or modules left unpaired",
		"2  usage or input error, or a module that could not be read or parsed",
		exitsInternal,
	}},
	"guard": {"recomp guard --warmup 2 --format github train.log", []string{
		"0  the gate passed",
		"1  the gate failed",
		"2  usage or input error, or inconclusive (no compile evidence, compile lines recomp could not read, an unreadable input, evidence a cap left unread) unless compilations after warm-up were counted",
		exitsInternal,
	}},
	"ranks": {"recomp ranks rank0.log rank1.log rank2.log rank3.log", []string{
		"0  no rank departed from the others",
		"1  a rank departed from the others",
		"2  usage or input error, or no rank departed but a rank's log holds no compile evidence",
		exitsInternal,
	}},
	"cache": {"recomp cache exec-cache/ --log train.log", []string{
		"0  the folders were read",
		exitsUsage, exitsInternal,
	}},
	"session open": {"recomp session open --out recomp-runs/tests -- pytest -q", []string{
		"0  the run folder was made (the folder, the probe and the variables printed as JSON)",
		exitsUsage, exitsInternal,
	}},
	"session close": {"recomp session close --exit 1 recomp-runs/tests", []string{
		"0  the run folder's final manifest was written",
		exitsUsage, exitsInternal,
	}},
	"hlo check": {"recomp hlo check module_0001.jit_step.before_optimizations.txt", []string{
		"0  every file parsed",
		"2  a file did not parse (its errors are printed as file:line:col), or a usage error",
		exitsInternal,
	}},
	"hlo fingerprint": {"recomp hlo fingerprint a.txt b.txt", []string{
		"0  a fingerprint for every file",
		"2  a file did not parse, or a usage error",
		exitsInternal,
	}},
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
		kong.Vars{"version": version(), "frameworks": strings.Join(frameworks.Names(), ",")},
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
