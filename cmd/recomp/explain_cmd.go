package main

import (
	"slices"

	"github.com/recomp/recomp/cache"
	"github.com/recomp/recomp/diff"
	"github.com/recomp/recomp/hlo"
	"github.com/recomp/recomp/report"
	"github.com/recomp/recomp/runner"
)

type explainCmd struct {
	outputFlag
	Text  bool     `help:"Add a unified text diff of each changed computation."`
	Stage string   `help:"Dump stage to compare: before, after, or a stage name (default: before_optimizations when present)." placeholder:"STAGE"`
	Log   []string `sep:"none" help:"Logs of the same run: link each compilation and hash to its dump (repeat for several)." placeholder:"LOG"`
	Dump  string   `arg:"" name:"DUMP_DIR" help:"The run's --xla_dump_to folder, or a run folder of recomp run."`
}

func (c *explainCmd) Run(e *env) error {
	if err := c.check("explain"); err != nil {
		return err
	}
	dumpDir, logs := c.Dump, c.Log
	if f, ok := runner.OpenFolder(c.Dump); ok { // a run folder: its dump, and its log unless others are given
		if f.Dump == "" {
			return usageErr("%s: the run folder has no dump/ (recomp run --dump none?)", c.Dump)
		}
		dumpDir = f.Dump
		if len(logs) == 0 {
			logs = []string{f.Log}
		}
	}
	d, err := explainDump(e, dumpDir, c.Stage, logs, compareOptions(c.Text, c.Format))
	if err != nil {
		return err
	}
	if err := c.render(e, d); err != nil {
		return err
	}
	return diffExit(d)
}

// explainDump compares the versions of each program of a dump folder, linked with the logs'
// compilations when logs are given.
func explainDump(e *env, dumpDir, stage string, logs []string, opt diff.Options) (*report.Diff, error) {
	dump, err := loadDump(e, dumpDir, stage)
	if err != nil {
		return nil, err
	}
	var links map[*diff.DumpFile]*cache.Unit
	if len(logs) > 0 {
		s, err := scanLogs(e, logs, scanOptions{sameProcess: true})
		if err != nil {
			return nil, err
		}
		links = linkDumps(dump, s.Ledger)
		e.log.Debug("linked dumps to log compilations", "linked", len(links), "files", len(dump.Files))
	}
	retraced := map[string]bool{} // auto-clustering groups whose function was traced again
	for _, u := range links {
		if u.Retraced {
			retraced[cache.ClusterGroup(u.Module)] = true
		}
	}
	histories := diff.ExplainBy(dump, func(f *diff.DumpFile) string { return programKey(f, links, retraced) }, opt)
	d := &report.Diff{Command: "explain", Problems: dump.Problems, Warnings: dump.Warnings}
	for _, h := range histories {
		f := report.Family{Family: h.Family}
		for _, df := range h.Files {
			f.Files = append(f.Files, df.Path)
			if u := links[df]; u != nil {
				f.LogCompilations++
				if u.Hash != "" && !slices.Contains(f.LogHashes, u.Hash) {
					f.LogHashes = append(f.LogHashes, u.Hash)
				}
			}
		}
		d.Families = append(d.Families, f)
		for _, p := range h.Steps {
			rp := pairReport(p)
			if h.Family != p.B.Family {
				rp.Group = h.Family
			}
			if u := links[p.A]; u != nil {
				rp.HashA = u.Hash
			}
			if u := links[p.B]; u != nil {
				rp.HashB = u.Hash
			}
			d.Pairs = append(d.Pairs, rp)
		}
	}
	var pairs []*diff.Pair
	for _, h := range histories {
		pairs = append(pairs, h.Steps...)
	}
	d.Warnings = append(d.Warnings, textsLeftOut(opt.MaxTexts == maxTexts, pairs)...)
	e.log.Debug("explained", "families", len(d.Families), "pairs", len(d.Pairs), "problems", len(d.Problems))
	return d, nil
}

// linkDumps links each dumped module with the compilation of the log that made it: the i-th
// compilation of a function with the i-th dump of it, in the order of the dump's module
// counter (which is the order of compilation). Families meet by hlo.FunctionKey, so TF's
// cluster signatures meet their dumps and PyTorch/XLA's unnamed graphs (named after the Python
// frame in the log, SyncTensorsGraph in the dump) meet in the order they were compiled.
func linkDumps(d *diff.Dump, rep *cache.Report) map[*diff.DumpFile]*cache.Unit {
	units := map[string][]*cache.Unit{}
	var order []string
	for _, m := range rep.Modules {
		for _, u := range m.Compiled() {
			k := hlo.FunctionKey(u.Family)
			if units[k] == nil {
				order = append(order, k)
			}
			units[k] = append(units[k], u)
		}
	}
	// The compilations of one key come from several families (a frame identity each): order
	// them as the log did.
	for _, k := range order {
		slices.SortStableFunc(units[k], func(a, b *cache.Unit) int {
			if a.Input != b.Input {
				return a.Input - b.Input
			}
			return a.Line - b.Line
		})
	}
	links := map[*diff.DumpFile]*cache.Unit{}
	next := map[string]int{}
	for _, f := range d.Files {
		k := hlo.FunctionKey(f.Family)
		if i := next[k]; i < len(units[k]) {
			links[f] = units[k][i]
			next[k] = i + 1
		}
	}
	return links
}

// programKey groups dumps for explain: by the program the log says compiled them, else by
// what the dump's name says (cache.DumpProgram). Eager one-op programs are left out; the
// clusters TF formed anew each time a function was traced again are one program.
func programKey(f *diff.DumpFile, links map[*diff.DumpFile]*cache.Unit, retraced map[string]bool) string {
	if u := links[f]; u != nil {
		if u.Eager {
			return ""
		}
		if g := cache.ClusterGroup(u.Module); g != "" && retraced[g] {
			return g // the clusters of one function traced again: one program's versions
		}
		if u.Program != u.Family {
			return u.Family + " [" + u.Signature + "]" // a Keras step: train, test, predict
		}
		return u.Family
	}
	return cache.DumpProgram(f.ModuleName)
}
