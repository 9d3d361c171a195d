// Package gate decides whether a run passes recomp's CI gate: nothing may compile after
// warm-up (beyond a tolerance), and optionally no executable may be loaded again. A gate that
// saw no evidence (no compile line at all, an input it could not read, a warm-up marker that
// never matched) does not pass: it is inconclusive. The package also reads and writes the
// baseline file of known-good module families and graph hashes.
//
// gate.go holds the gate proper: its Options, Failures and Result, Evaluate and EvaluateScan
// over one scan (compilations and executable loads after warm-up), EvidenceDoubts (what leaves
// the evidence incomplete) and decide, which turns a result's counts into its verdict and
// reason. coverage.go holds the gates across runs and ranks: a run time judged against its
// warm-up (EvaluateCoverage, guard --covered-by) and ranks whose compile requests depart from
// the majority's (AddDivergences, guard --ranks-consistent). baseline.go reads and writes the
// baseline file and the inputs it records.
package gate
