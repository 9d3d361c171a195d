// Package live is what recomp run and recomp watch do while a program runs: each compilation
// after warm-up said as it happens (Lines: the verdict's words, at most one line per program
// every few seconds, coloured or not), when to stop the command (StopPolicy), recomp run's
// course from flags to an explained run folder (Run), and recomp watch's loop over logs another
// process writes (Watcher). The commands keep their flags, the report's rendering and the exit
// code.
package live
