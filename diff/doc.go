// Package diff explains why a graph was compiled again. It reads XLA dump folders (or single
// HLO files), pairs the modules of two runs (or the consecutive compilations of one module in
// one run), compares paired modules structurally (instruction names, numbering and order do
// not matter), and classifies the changes into causes with evidence and advice.
//
// The work is split by job: dump.go reads a dump folder (file names, stages, problems) and
// sniff.go tells HLO files and dump folders from other inputs; pair.go pairs the modules of two
// dumps (by family, stage and order, then by structure) and runs the comparisons; match.go
// matches the instructions of two computations; compare.go compares a pair structurally into
// Changes (tally.go counts them, literal.go reads the constants it shows); causes.go ranks the
// changes into Causes with evidence and gives each kind its advice (AdviceFor); textdiff.go
// writes the text diff of a changed computation.
package diff
