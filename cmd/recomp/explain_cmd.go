package main

import (
	"slices"

	"github.com/recomp/recomp/cache"
	"github.com/recomp/recomp/diff"
	"github.com/recomp/recomp/hlo"
	"github.com/recomp/recomp/report"
)

type explainCmd struct {
	outputFlag
	Text  bool     `help:"Add a unified text diff of each changed computation."`
	Stage string   `help:"Dump stage to compare: before, after, or a stage name (default: before_optimizations when present)." placeholder:"STAGE"`
	Log   []string `sep:"none" help:"Logs of the same run: link each compile request and hash to its dump (repeat for several)." placeholder:"LOG"`
	Dump  string   `arg:"" name:"DUMP_DIR" help:"The run's --xla_dump_to folder."`
}

func (c *explainCmd) Run(e *env) error {
	if err := c.check("explain"); err != nil {
		return err
	}
	dump, err := loadDump(e, c.Dump, c.Stage)
	if err != nil {
		return err
	}
	histories := diff.Explain(dump)
	d := &report.Diff{Command: "explain", Problems: dump.Problems, Warnings: dump.Warnings}
	// The i-th compilation of a family in the logs is linked with its i-th dump. TF logs a
	// cluster signature where its dumps name the module, so families meet by function key.
	compiled := map[string][]*cache.Unit{}
	if len(c.Log) > 0 {
		s, err := scanLogs(e, c.Log, scanOptions{sameProcess: true})
		if err != nil {
			return err
		}
		for _, m := range s.Ledger.Modules {
			key := hlo.FunctionKey(m.Family)
			compiled[key] = append(compiled[key], m.Compiled()...)
		}
	}
	for _, h := range histories {
		units := compiled[hlo.FunctionKey(h.Family)]
		f := report.Family{Family: h.Family, LogCompilations: len(units)}
		for _, df := range h.Files {
			f.Files = append(f.Files, df.Path)
		}
		for _, u := range units {
			if u.Hash != "" && !slices.Contains(f.LogHashes, u.Hash) {
				f.LogHashes = append(f.LogHashes, u.Hash)
			}
		}
		d.Families = append(d.Families, f)
		for i, p := range h.Steps {
			rp := pairReport(p, c.Text)
			if i < len(units) {
				rp.HashA = units[i].Hash
			}
			if i+1 < len(units) {
				rp.HashB = units[i+1].Hash
			}
			d.Pairs = append(d.Pairs, rp)
		}
	}
	e.log.Debug("explained", "families", len(d.Families), "pairs", len(d.Pairs), "problems", len(d.Problems))
	if err := c.render(e, d); err != nil {
		return err
	}
	if len(d.Problems) > 0 {
		return exitWith(exitUsage)
	}
	for _, p := range d.Pairs {
		if !p.Result.Identical {
			return exitWith(exitFound)
		}
	}
	return nil
}
