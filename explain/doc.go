// Package explain says why a run's programs were compiled again, from the files the run left:
// it joins the compilations a log names with the modules of the HLO dump by program identity
// (the i-th compilation of a function is its i-th dump), pairs each program's versions in the
// order they were compiled, and lets package diff compare them and name the causes. It also
// compares the dumps of two runs (recomp diff), says why run B missed run A's cache (Runs),
// lines up the compile requests of a job's ranks (ReadRanks), holds a run time against its
// warm-up (CoverageOf), and assembles the whole report of a run folder (recomp run: Folder). Its results are
// defined in result.go and runs_result.go; package report lays them out. It prints nothing.
//
// The work is split by job: explain.go joins one dump with its logs and compares dumps
// (Dump, Dumps); logs.go reads logs into a scan (Logs) and probe.go attaches the probe's lines
// of the program's own code (pids.go hands the ledger its compile stages of each process:
// the workers a command started, which wrote one run.log); run.go reads a run folder back (Folder, recomp run's answer);
// runs.go compares two runs (Runs: why B missed A's cache); ranks.go lines up the ranks of a
// job (ReadRanks, RanksOf); coverage.go holds a run time against its warm-up and is recomp
// guard's pipeline (CoverageOf, EvaluateGuard); signature.go reads argument signatures and
// steps.go the step each line belongs to. result.go and runs_result.go define the results.
// live.go gives compilations the probe's line while a run goes on (LiveSites).
package explain
