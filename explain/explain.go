// Package explain says why a run's programs were compiled again, from the files the run left:
// it joins the compilations a log names with the modules of the HLO dump by program identity
// (the i-th compilation of a function is its i-th dump), pairs each program's versions in the
// order they were compiled, and lets package diff compare them and name the causes. It also
// compares the dumps of two runs (recomp diff), says why run B missed run A's cache (Runs),
// lines up the compile requests of a job's ranks (Ranks), holds a run time against its warm-up
// (Coverage), and assembles the whole report of a run folder (recomp run). It returns report
// models; it prints nothing.
package explain

import (
	"fmt"
	"io"
	"slices"

	"github.com/hashicorp/go-hclog"
	"github.com/recomp/recomp/diff"
	"github.com/recomp/recomp/frameworks"
	"github.com/recomp/recomp/internal/input"
	"github.com/recomp/recomp/ledger"
	"github.com/recomp/recomp/report"
	"github.com/recomp/recomp/runner"
)

// Options say how dumps are read and compared.
type Options struct {
	// Stage is the dump stage to compare: "before", "after", a stage name, or "" for
	// before_optimizations when the dump has it.
	Stage string
	// Text adds the text diff of each changed computation.
	Text bool
	// Stdin is read for the path "-".
	Stdin io.Reader
	// Log takes diagnostics (nil: none).
	Log hclog.Logger
}

func (o *Options) logger() hclog.Logger {
	if o.Log == nil {
		return hclog.NewNullLogger()
	}
	return o.Log
}

// Dump explains the recompilations in one dump folder: the versions of each program, compared
// in the order they were compiled, linked with the compilations of the logs when logs are
// given (read as one process). path may be a run folder of recomp run: its dump, and its log
// unless logs are given.
func Dump(path string, logs []string, opt Options) (*report.Diff, error) {
	if f, ok := runner.OpenFolder(path); ok {
		if f.Dump == "" {
			return nil, fmt.Errorf("%s: the run folder has no dump/ (recomp run --dump none?)", path)
		}
		path = f.Dump
		if len(logs) == 0 {
			logs = []string{f.Log}
		}
	}
	d, err := load(path, opt)
	if err != nil {
		return nil, err
	}
	var rep *ledger.Report
	if len(logs) > 0 {
		s, err := ledger.ReadLogs(ledger.Files(logs), ledger.ReadOptions{SameProcess: true, Stdin: opt.Stdin, Log: opt.Log})
		if err != nil {
			return nil, err
		}
		rep = s.Ledger
	}
	return explain(d, rep, opt), nil
}

// Dumps compares the dumps of two runs (folders or HLO files): modules paired by family, stage
// and order, then by structure.
func Dumps(a, b string, opt Options) (*report.Diff, error) {
	if err := input.CheckStdin([]string{a, b}); err != nil {
		return nil, err
	}
	da, err := load(a, opt)
	if err != nil {
		return nil, err
	}
	db, err := load(b, opt)
	if err != nil {
		return nil, err
	}
	dd := diff.Dumps(da, db)
	d := &report.Diff{Command: "diff", UnpairedA: paths(dd.UnpairedA), UnpairedB: paths(dd.UnpairedB),
		Problems: append(da.Problems, db.Problems...), Warnings: append(da.Warnings, db.Warnings...)}
	for _, p := range dd.Pairs {
		d.Pairs = append(d.Pairs, pairReport(p, opt.Text))
	}
	opt.logger().Debug("compared", "pairs", len(d.Pairs), "unpaired", len(d.UnpairedA)+len(d.UnpairedB), "problems", len(d.Problems))
	return d, nil
}

// explain compares the versions of each program of a dump, linked with the compilations of a
// log's report (nil without logs).
func explain(dump *diff.Dump, rep *ledger.Report, opt Options) *report.Diff {
	var links map[*diff.DumpFile]*ledger.Unit
	if rep != nil {
		links = linkDumps(dump, rep)
		opt.logger().Debug("linked dumps to log compilations", "linked", len(links), "files", len(dump.Files))
	}
	retraced := map[string]bool{} // auto-clustering groups whose function was traced again
	for _, u := range links {
		if u.Retraced {
			retraced[frameworks.Group(u.Module)] = true
		}
	}
	histories := diff.ExplainBy(dump, func(f *diff.DumpFile) string { return programKey(f, links, retraced) })
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
			rp := pairReport(p, opt.Text)
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
	opt.logger().Debug("explained", "families", len(d.Families), "pairs", len(d.Pairs), "problems", len(d.Problems))
	return d
}

// linkDumps links each dumped module with the compilation of the log that made it: the i-th
// compilation of a function with the i-th dump of it, in the order of the dump's module
// counter (which is the order of compilation). Families meet by frameworks.FunctionKey, so TF's
// cluster signatures meet their dumps and PyTorch/XLA's unnamed graphs (named after the Python
// frame in the log, SyncTensorsGraph in the dump) meet in the order they were compiled.
func linkDumps(d *diff.Dump, rep *ledger.Report) map[*diff.DumpFile]*ledger.Unit {
	units := map[string][]*ledger.Unit{}
	var order []string
	for _, m := range rep.Modules {
		for _, u := range m.Compiled() {
			k := frameworks.FunctionKey(u.Family)
			if units[k] == nil {
				order = append(order, k)
			}
			units[k] = append(units[k], u)
		}
	}
	// The compilations of one key come from several families (a frame identity each): order
	// them as the log did.
	for _, k := range order {
		slices.SortStableFunc(units[k], func(a, b *ledger.Unit) int {
			if a.Input != b.Input {
				return a.Input - b.Input
			}
			return a.Line - b.Line
		})
	}
	links := map[*diff.DumpFile]*ledger.Unit{}
	next := map[string]int{}
	for _, f := range d.Files {
		k := frameworks.FunctionKey(f.Family)
		if i := next[k]; i < len(units[k]) {
			links[f] = units[k][i]
			next[k] = i + 1
		}
	}
	return links
}

// programKey groups dumps for explain: by the program the log says compiled them, else by
// what the dump's name says (frameworks.DumpProgram). Eager one-op programs are left out; the
// clusters TF formed anew each time a function was traced again are one program.
func programKey(f *diff.DumpFile, links map[*diff.DumpFile]*ledger.Unit, retraced map[string]bool) string {
	if u := links[f]; u != nil {
		if u.Eager {
			return ""
		}
		if g := frameworks.Group(u.Module); g != "" && retraced[g] {
			return g // the clusters of one function traced again: one program's versions
		}
		if u.Program != u.Family {
			return u.Family + " [" + u.Signature + "]" // a Keras step: train, test, predict
		}
		return u.Family
	}
	return frameworks.DumpProgram(f.Module.Name)
}

// load reads a dump folder or an HLO file; a module that cannot be read is a Problem of the
// dump, and is logged.
func load(path string, opt Options) (*diff.Dump, error) {
	d, err := diff.LoadDump(path, diff.LoadOptions{Stage: opt.Stage, Stdin: opt.Stdin})
	if err != nil {
		return nil, err
	}
	log := opt.logger()
	log.Debug("loaded dump", "path", path, "modules", len(d.Files), "ignored", d.Ignored, "problems", len(d.Problems),
		"stages", d.Stages)
	for _, p := range d.Problems {
		log.Warn("unreadable module", "problem", p.String())
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
