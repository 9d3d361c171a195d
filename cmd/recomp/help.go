package main

import (
	"io"
	"reflect"
	"strings"

	"github.com/alecthomas/kong"
	"github.com/recomp/recomp/frameworks"
	"github.com/recomp/recomp/internal/helptext"
	buildversion "github.com/recomp/recomp/internal/version"
)

// formatHelp is the help of outputFlag's --format until help describes each command: then it
// names the formats that command writes (helptext.FormatHelp).
const formatHelp = "Output format."

// newParser is recomp's command line, writing its help to stdout and its errors to stderr;
// exit is what kong calls where it would exit.
func newParser(c any, stdout, stderr io.Writer, exit func(int)) (*kong.Kong, error) {
	return kong.New(c,
		kong.Name("recomp"),
		kong.Description(helptext.Summary()),
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
				h, err := helptext.FormatHelp(strings.TrimPrefix(node.FullPath(), "recomp "))
				if err != nil {
					return err
				}
				f.Help = h
			}
			withDefault(f)
		}
		return next(nil)
	})
}

// withDefault adds a flag's default to its help where kong's help does not show it: behind a
// placeholder, or a negatable switch that is on.
func withDefault(f *kong.Flag) {
	switch {
	case f.IsBool() && f.Tag.Negatable != "" && f.Default == "true":
		f.Help = helptext.WithDefault(f.Help, "on")
	case f.PlaceHolder != "" && f.HasDefault && f.Default != "":
		f.Help = helptext.WithDefault(f.Help, f.Default)
	}
}

// printHelp is kong's help followed, for a command, by its example and its exit codes.
func printHelp(options kong.HelpOptions, ctx *kong.Context) error {
	if err := kong.DefaultHelpPrinter(options, ctx); err != nil {
		return err
	}
	if cmd := ctx.Selected(); cmd != nil {
		helptext.Write(ctx.Stdout, strings.TrimPrefix(cmd.FullPath(), "recomp "))
	}
	return nil
}
