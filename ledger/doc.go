// Package ledger keeps the books on compilation: a Ledger folds the events of logscan into
// compile requests, real compilations, executable-cache hits, misses and writes, and
// executable loads, per module family, decides which of them came after warm-up, and names
// what looks wrong.
//
// A Ledger is one process: the events of one log, in order. Several logs are several
// processes (ranks, hosts, runs) unless the caller feeds them to one Ledger; their Reports are
// combined by Merge, which compares module families within a process, never across. A Ledger
// keeps per-family aggregates and bounded lists, never every event: memory does not grow with
// the length of the log.
//
// ReadLogs is the whole pipeline in one call: it reads logs (files, standard input, gzip, run
// folders) in parallel into a Ledger per process and merges their Reports into a Scan.
//
// The work is split by job: join.go joins the events of one compilation into a Unit, account.go
// counts units and loads per family, warmup.go decides what came after warm-up, settle.go takes
// back a second compilation that was set-up (state the first step built), hostread.go counts the
// program's lines that read a tensor on the host mid-step, onestep.go counts several programs
// as one (a front end's step traced again as a function of its own), progress.go follows a
// front end's progress lines (Keras's epochs and bars: the loop and epoch of each compilation,
// and the step of a program whose name does not say it), report.go merges
// processes, findings.go names what a user should look at, and read.go reads logs into ledgers.
//
// Files beside those: ledger.go is the Ledger and its entry point Add, unit.go the joined
// compile request (Unit, its call site and cache-key parts), sequence.go a process's compile
// sequence (what ranks and coverage line up), read.go also defines Scan, what ReadLogs
// returns, metrics.go reconciles what a framework's metrics report counts (PyTorch/XLA's
// CompileTime, CachedCompile) with the log's own records, and processes.go tells apart the
// processes that wrote one log (workers under one terminal) by the compile stages a probe saw
// each report (StageRecord). live.go is a Ledger fed as its log is written (Live: recomp run's
// live lines and recomp watch), through the same Scanner and the same accounting as ReadLogs.
// silenced.go says which stacks were judged on the probe's records because their log held none
// of their compilations (Silenced, JudgedElsewhere). trace.go joins a run folder's trace files
// (torch's structured trace) to its log, so that a compilation both record counts once.
package ledger
