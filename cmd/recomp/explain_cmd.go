package main

import (
	"github.com/recomp/recomp/cache"
	"github.com/recomp/recomp/diff"
	"github.com/recomp/recomp/hlo"
)

type explainCmd struct {
	Format string   `enum:"text,json,markdown" default:"text" help:"Output format: text, json or markdown."`
	Text   bool     `help:"Add a unified text diff of each changed computation."`
	Stage  string   `help:"Dump stage to compare: before, after, or a stage name (default: before_optimizations when present)." placeholder:"STAGE"`
	Log    []string `help:"Logs of the same run: link each compile request and hash to its dump." placeholder:"LOG"`
	Dump   string   `arg:"" name:"DUMP_DIR" help:"The run's --xla_dump_to folder."`
}

func (c *explainCmd) Run(e *env) error {
	d, err := diff.LoadDump(c.Dump, diff.LoadOptions{Stage: c.Stage})
	if err != nil {
		return usageErr("%v", err)
	}
	histories := diff.Explain(d)
	var pairs []*diff.Pair
	for _, h := range histories {
		pairs = append(pairs, h.Steps...)
	}
	doc := diffDocument(pairs, nil, nil, c.Text)
	var rep *cache.Report
	if len(c.Log) > 0 {
		inputs, err := loadLogs(c.Log, nil)
		if err != nil {
			return err
		}
		rep = ledgerOf(inputs, cache.Options{})
	}
	// Every family of the dump is listed; families compiled once have nothing to explain.
	byFam := map[string][]*diff.DumpFile{}
	var order []string
	for _, f := range d.Files {
		if byFam[f.Family] == nil {
			order = append(order, f.Family)
		}
		byFam[f.Family] = append(byFam[f.Family], f)
	}
	for _, fam := range order {
		fj := familyJSON{Family: fam, LogHashes: []string{}}
		for _, f := range byFam[fam] {
			fj.Files = append(fj.Files, f.Path)
		}
		if rep != nil {
			for _, m := range rep.Modules {
				if hlo.FunctionKey(m.Family) == hlo.FunctionKey(fam) {
					fj.LogCompilations = m.Compilations
					fj.LogHashes = nonNil(m.Hashes)
				}
			}
		}
		doc.Families = append(doc.Families, fj)
	}
	// Link the i-th compilation of a family in the log with its i-th dump.
	if rep != nil {
		compiled := map[string][]string{}
		for _, u := range rep.Units {
			if u.Compiled {
				key := hlo.FunctionKey(u.Family)
				compiled[key] = append(compiled[key], u.Hash)
			}
		}
		files := map[string][]string{}
		for _, fj := range doc.Families {
			files[fj.Family] = fj.Files
		}
		for i := range doc.Pairs {
			pj := &doc.Pairs[i]
			hashes := compiled[hlo.FunctionKey(pj.Family)]
			if ia := indexOf(files[pj.Family], pj.A); ia >= 0 && ia < len(hashes) {
				pj.HashA = hashes[ia]
			}
			if ib := indexOf(files[pj.Family], pj.B); ib >= 0 && ib < len(hashes) {
				pj.HashB = hashes[ib]
			}
		}
	}
	if err := renderDiff(e, c.Format, "recomp explain", doc); err != nil {
		return err
	}
	for _, p := range doc.Pairs {
		if !p.Identical {
			return found
		}
	}
	return nil
}

func indexOf(xs []string, x string) int {
	for i, y := range xs {
		if y == x {
			return i
		}
	}
	return -1
}
