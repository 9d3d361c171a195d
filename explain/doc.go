// Package explain says why a run's programs were compiled again, from the files the run left:
// it joins the compilations a log names with the modules of the HLO dump by program identity
// (the i-th compilation of a function is its i-th dump), pairs each program's versions in the
// order they were compiled, and lets package diff compare them and name the causes. It also
// compares two dumps (recomp diff) and assembles the whole answer of a run folder (recomp run:
// Folder). The work across runs and ranks is package across's. explain prints nothing.
//
// The work is split by job: explain.go joins one dump with its logs (Dump, LinkDumps,
// LinkEntries) and compares dumps (Dumps, CompareDumps); logs.go reads logs into a scan (Logs)
// and probe.go attaches the probe's lines of the program's own code (pids.go hands the ledger
// the compile stages of each process: the workers a command started, which wrote one run.log);
// run.go reads a run folder back (Folder, recomp run's answer); live.go gives compilations the
// probe's line while a run goes on (LiveSites); result.go defines the results (Scan, Diff,
// Run), which package report lays out.
package explain
