// Package across holds the work across runs and processes, on top of what explain reads of
// one run: two runs compared (Runs: why run B missed run A's cache) and a run time held
// against its warm-up (CoverageOf), with recomp guard's pipeline that gates on them and on the
// ranks of a job (EvaluateGuard; explain lines the ranks up). It returns its results; package report lays them out; it prints nothing.
//
// The work is split by job: runs.go compares two runs (OpenSide, Runs); diff.go is recomp
// diff's choice between two runs and two dumps (Diff); coverage.go holds a
// run time against its warm-up and is recomp guard's pipeline; runs_result.go defines the
// results (RunsDiff, Coverage, Guard and their parts, the miss reasons).
package across
