// Package logscan turns the text that XLA-based stacks print (TensorFlow and its Graphcore IPU
// fork, Poplar, PopLibs, PopART, PopTorch, poprun, JAX, PyTorch/XLA) into typed compile, cache
// and executable-load events.
//
// A Scanner reads one log as a stream of bytes and is used like bufio.Scanner:
//
//	s := logscan.NewScanner(r, "run.log", logscan.Options{Grammar: frameworks.Grammar()})
//	for s.Scan() {
//		ev := s.Event()
//		...
//	}
//	if err := s.Err(); err != nil { ... }
//
// It works on bytes with a literal prefilter: only lines that contain one of a few rare anchor
// strings are parsed at all, so memory stays bounded whatever the size of the log or the length
// of a line. Bad lines never stop a scan; they become Warnings with a file and line.
//
// The work is split by job: event.go is the typed Event and its kinds; scanner.go is the
// Scanner (options, per-process state, Scan/Event/Err), and readahead.go its read-ahead goroutine
// (Options.ReadAhead: the next part of the input read and prefiltered while one is parsed);
// short.go has the portable search find anchors much shorter than the rest with the sweep words;
// prefilter.go finds the candidate lines
// by their anchors, and apart the lines holding only a sweep word (Scanner.sweepRegion), in one
// pass (and counts the lines, in parallel), with the vector search of teddy.go where
// the CPU has one (teddy_amd64.go and .s: AVX2; teddy_arm64.go and .s: NEON; teddy_other.go: none,
// also with -tags purego) and its portable shift table elsewhere; bytefreq.go ranks bytes by how
// common they are in logs, for teddy.go to pick each anchor's rarest bytes; record.go cuts a line into records (timestamps, launcher prefixes such as
// mpirun's and Kubernetes', several records glued on one line); held.go holds a record while
// its continuation lines arrive; classify.go turns a record into events by the stacks' rules,
// which framework.go compiles into a Grammar (pairs.go rules out the rules whose literal a
// message cannot hold, by the byte pairs it holds); marker.go finds the warm-up marker (--after) and
// sniffs binary input; synthetic.go writes large synthetic logs for benchmarks.
package logscan
