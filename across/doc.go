// Package across holds the work across runs and processes, on top of what explain reads of
// one run: two runs compared (Runs: why run B missed run A's cache), the ranks of one job
// lined up (ReadRanks, RanksOf: which rank departed, at which step, and why), and a run time
// held against its warm-up (CoverageOf), with recomp guard's pipeline that gates on them
// (EvaluateGuard). It returns its results; package report lays them out; it prints nothing.
//
// The work is split by job: runs.go compares two runs (OpenSide, Runs); ranks.go lines up the
// ranks of a job; coverage.go holds a run time against its warm-up and is recomp guard's
// pipeline; signature.go reads the argument signatures frameworks log with a compile request
// and compares them; steps.go finds the step each log line belongs to; runs_result.go defines
// the results (RunsDiff, Ranks, Coverage, Guard and their parts, the miss reasons and the
// divergence kinds).
package across
