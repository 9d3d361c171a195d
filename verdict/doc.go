// Package verdict turns what recomp found into what a user decides on: for each program that
// compiled again, how often, what it cost and its share of the run, the causes with old → new
// and how often each, the user's lines that made it compile, and the action — with the sizes
// to pad to when one dimension varies. It also ranks the user's lines by the compile time they
// cost, and says in one headline how much of the run went to compiling and how much of that to
// compiling again. It reads the ledger's accounting and, when a dump was explained, the causes
// package diff named; it prints nothing.
//
// The work is split by job: verdict.go builds the verdict (Build: each program's causes, cost,
// sizes to pad to and action; the user's lines ranked by compile time); construct.go reads the
// constructs in the user's program that only the framework's words, the probe or the pattern of
// signatures and graphs show (a static argument and its values, a pytree change, a Python value
// read at trace time, a function made anew) and counts the variants; live.go gives recomp run's
// live lines their words (LiveOf, the cause by the verdict's own tally); words.go is the one home of the
// sentences about a run's compilations (the cost headline, each program's line and card line,
// each cause's words, the sizes' note) that every report and the live lines lay out; answer.go
// the answer's lines where no program compiled again or the logs cannot tell (no all-clear
// without evidence), and a run with no compile line.
package verdict
