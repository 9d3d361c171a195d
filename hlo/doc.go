// Package hlo reads the HLO text that XLA prints (the long, short and hybrid print forms),
// prints it back in one canonical form, and computes a normalised fingerprint that ignores
// everything that changes between two compilations of the same graph (names, .N suffixes,
// metadata, comments, module ids) and sees everything else.
//
// Parse follows XLA's text grammar (hlo_parser.cc): besides the print forms it reads what
// XLA's parser reads (a single instruction, instructions nested as operands or written without
// a shape, computations written inline) and refuses what that grammar refuses. It keeps going
// after an error, like go/parser: it returns the partial module together with an ErrorList of
// positioned errors (file:line:col: expected X, found Y). Unknown opcodes and attributes are
// kept as they are, and what only XLA's checks of meaning refuse is accepted.
//
// The work is split by job: ast.go is the syntax tree; parser.go reads modules, computations
// and instructions, grammar.go the shapes and layouts, literal.go the constants (and
// literal_stream.go writes and hashes their canonical form without building them), meta.go the
// metadata and key=value attributes, and slab.go allocates the parser's nodes; errors.go is the
// positioned ErrorList; infer.go infers the shapes an instruction does not write; print.go
// prints the canonical form; fingerprint.go computes the normalised fingerprints; synthetic.go
// writes large synthetic modules for benchmarks; files.go reads and parses a list of files one
// by one (ParseFiles).
package hlo
