package main

import (
	"fmt"

	"github.com/recomp/recomp/diff"
	"github.com/recomp/recomp/report"
)

type diffCmd struct {
	outputFlag
	Text  bool   `help:"Add a unified text diff of each changed computation (bounded: see README)."`
	Stage string `help:"Dump stage to compare: before, after, or a stage name (default: before_optimizations when present)." placeholder:"STAGE"`
	A     string `arg:"" name:"A" help:"HLO file or XLA dump folder of the first run ('-' for stdin, .gz read transparently)."`
	B     string `arg:"" name:"B" help:"HLO file or XLA dump folder of the second run."`
}

func (c *diffCmd) Run(e *env) error {
	if err := c.check("diff"); err != nil {
		return err
	}
	if err := checkInputs([]string{c.A, c.B}); err != nil {
		return err
	}
	da, err := loadDump(e, c.A, c.Stage)
	if err != nil {
		return err
	}
	db, err := loadDump(e, c.B, c.Stage)
	if err != nil {
		return err
	}
	dd := diff.Dumps(da, db, compareOptions(c.Text, c.Format))
	d := &report.Diff{Command: "diff", UnpairedA: paths(dd.UnpairedA), UnpairedB: paths(dd.UnpairedB),
		Problems: append(da.Problems, db.Problems...), Warnings: append(da.Warnings, db.Warnings...)}
	for _, p := range dd.Pairs {
		d.Pairs = append(d.Pairs, pairReport(p))
	}
	d.Warnings = append(d.Warnings, textsLeftOut(c.Text, dd.Pairs)...)
	e.log.Debug("compared", "pairs", len(d.Pairs), "unpaired", len(d.UnpairedA)+len(d.UnpairedB), "problems", len(d.Problems))
	if err := c.render(e, d); err != nil {
		return err
	}
	return diffExit(d)
}

// diffExit is the exit code of diff and explain: 2 when a module could not be read (the
// answer may be incomplete), 1 when anything differs or stayed unpaired, 0 otherwise.
func diffExit(d *report.Diff) error {
	switch {
	case len(d.Problems) > 0:
		return exitWith(exitUsage)
	case d.Differs():
		return exitWith(exitFound)
	}
	return nil
}

func loadDump(e *env, path, stage string) (*diff.Dump, error) {
	d, err := diff.LoadDump(path, diff.LoadOptions{Stage: stage, Stdin: e.stdin, MaxFileBytes: e.maxHLO})
	if err != nil {
		return nil, usageErr("%v", err)
	}
	e.log.Debug("loaded dump", "path", path, "modules", len(d.Files), "ignored", d.Ignored, "problems", len(d.Problems),
		"stages", d.Stages)
	for _, p := range d.Problems {
		e.log.Warn("unreadable module", "problem", p.String())
	}
	return d, nil
}

func paths(files []*diff.DumpFile) []string {
	var out []string
	for _, f := range files {
		out = append(out, f.Path)
	}
	return out
}

// maxTexts bounds the text diffs of one report (--text); an HTML page shows the first 50
// differing pairs, and makes the text diffs of those only.
const maxTexts = 1000

// compareOptions are what diff and explain compute for each pair: text diffs for --text and
// for an HTML page, as many as will be shown.
func compareOptions(text bool, format string) diff.Options {
	switch {
	case text:
		return diff.Options{Text: true, MaxTexts: maxTexts}
	case format == string(report.HTML):
		return diff.Options{Text: true, MaxTexts: report.HTMLMaxCards}
	}
	return diff.Options{}
}

// textsLeftOut is the warning that --text made text diffs of the first maxTexts differing
// pairs only.
func textsLeftOut(text bool, pairs []*diff.Pair) []string {
	if n := diff.TextsLeftOut(pairs); text && n > 0 {
		return []string{fmt.Sprintf("text diffs of the first %d differing pairs only: %d more differ (their causes and changes are listed)", maxTexts, n)}
	}
	return nil
}

func pairReport(p *diff.Pair) *report.DiffPair {
	return &report.DiffPair{Pair: p, Text: p.Text}
}
