// Package explain says why a run's programs were compiled again, from the files the run left:
// it joins the compilations a log names with the modules of the HLO dump by program identity
// (the i-th compilation of a function is its i-th dump), pairs each program's versions in the
// order they were compiled, and lets package diff compare them and name the causes. It also
// compares two dumps (recomp diff), assembles the whole answer of a run folder (recomp run:
// Folder), and lines up the ranks of one job: a launcher's run is one job, read with its logs
// (a scan's Job). The work across runs (two runs, a run time against its warm-up) is package
// across's. explain prints nothing.
//
// The work is split by job: explain.go joins one dump with its logs (Dump, LinkDumps,
// LinkEntries) and compares dumps (Dumps, CompareDumps); logs.go reads logs into a scan (Logs)
// and folders.go the command line's logs and run folders, each run folder looked at once
// (ReadScan), and probe.go attaches the probe's lines of the program's own code (pids.go hands the ledger
// the compile stages of each process: the workers a command started, which wrote one run.log);
// run.go reads a run folder back (Folder, recomp run's answer); live.go gives compilations the
// probe's line while a run goes on (LiveSites); ranks.go lines up the ranks of a job (ReadRanks,
// RanksOf: which rank departed, at which step, and why) and ranks_result.go defines its results
// (Ranks, the divergence kinds); signature.go reads the argument signatures frameworks log with
// a compile request and compares them; steps.go finds the step each log line belongs to;
// standin.go lets the probe's compile records stand for the lines of a stack whose log holds
// none (its compile logging was off), read at the end and followed live (LiveStandIns);
// result.go defines the results (Scan, Diff, Run), which package report lays out; session.go
// says what a test runner's session asks of its scan (Unblamed, Unjudged).
package explain
