package main

import (
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
	dd := diff.Dumps(da, db)
	d := &report.Diff{Command: "diff", UnpairedA: paths(dd.UnpairedA), UnpairedB: paths(dd.UnpairedB),
		Problems: append(da.Problems, db.Problems...), Warnings: append(da.Warnings, db.Warnings...)}
	for _, p := range dd.Pairs {
		d.Pairs = append(d.Pairs, pairReport(p, c.Text || c.Format == string(report.HTML)))
	}
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

func pairReport(p *diff.Pair, text bool) *report.DiffPair {
	rp := &report.DiffPair{Pair: p}
	if text && !p.Result.Identical {
		td := p.Result.Text(diff.TextOptions{})
		rp.Text = &td
	}
	return rp
}
