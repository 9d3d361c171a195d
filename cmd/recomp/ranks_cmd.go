package main

import (
	"github.com/recomp/recomp/explain"
	"github.com/recomp/recomp/ledger"
)

type ranksCmd struct {
	outputFlag
	rankFlags
	Dump  []string `help:"A rank's dump folder, matched to its rank by the number in its name (dump-rank3), else the k-th dump is the k-th rank (a folder given as LOG brings its own)." placeholder:"DIR"`
	Stage string   `help:"Dump stage to compare: before, after, or a stage name." placeholder:"STAGE"`
	Logs  []string `arg:"" name:"LOG" help:"The ranks' logs (one per rank, or one a launcher tagged with ranks), run folders, a folder of run folders (one per rank), or a folder of *.log files and dump folders ('-' for stdin, .gz read transparently)."`
}

// rankFlags are shared by ranks and guard --ranks-consistent.
type rankFlags struct {
	RankFrom string `name:"rank-from" help:"Name each log's rank by the first group of the first line matching REGEX (e.g. 'process_index=(\\d+)'); by default a launcher's prefix on the lines, the launcher's environment recomp run recorded (RANK, OMPI_COMM_WORLD_RANK, PMI_RANK, SLURM_PROCID, LOCAL_RANK), JAX's process index recomp run's probe recorded, or the file or run folder name (rank3.log, r3) names it." placeholder:"REGEX"`
	Step     string `help:"Find the step number in the lines the program prints by the first group of REGEX (default: step N, iteration N)." placeholder:"REGEX"`
}

func (c *ranksCmd) Run(e *env) error {
	if err := c.check("ranks"); err != nil {
		return err
	}
	opt, err := explain.RankSettings(c.rankFlags).Options()
	if err != nil {
		return usage(err)
	}
	opt.Options = explain.Options{Stdin: e.stdin, Log: e.log, Stage: c.Stage}
	opt.Read = ledger.ReadOptions{Stdin: e.stdin, Log: e.log}
	r, err := explain.ReadRankInputs(c.Logs, c.Dump, opt)
	if err != nil {
		return usage(err)
	}
	return c.answer(e, r)
}
