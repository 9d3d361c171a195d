package main

import (
	"slices"

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
	// The i-th compilation of a family in the logs is linked with its i-th dump. TF logs a
	// cluster signature where its dumps name the module, so families meet by function key.
	compiled := map[string][]*cache.Unit{}
	if len(c.Log) > 0 {
		inputs, err := loadLogs(c.Log, nil)
		if err != nil {
			return err
		}
		for _, u := range ledgerOf(inputs, cache.Options{}).Units {
			if u.Compiled {
				key := hlo.FunctionKey(u.Family)
				compiled[key] = append(compiled[key], u)
			}
		}
	}
	k := 0 // index into doc.Pairs, which follow the histories' steps
	for _, h := range histories {
		units := compiled[hlo.FunctionKey(h.Family)]
		fj := familyJSON{Family: h.Family, LogCompilations: len(units), LogHashes: []string{}}
		for _, f := range h.Files {
			fj.Files = append(fj.Files, f.Path)
		}
		for _, u := range units {
			if u.Hash != "" && !slices.Contains(fj.LogHashes, u.Hash) {
				fj.LogHashes = append(fj.LogHashes, u.Hash)
			}
		}
		doc.Families = append(doc.Families, fj)
		for i := range h.Steps {
			pj := &doc.Pairs[k]
			k++
			if i < len(units) {
				pj.HashA = units[i].Hash
			}
			if i+1 < len(units) {
				pj.HashB = units[i+1].Hash
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
