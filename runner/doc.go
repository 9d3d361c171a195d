// Package runner runs a training or serving command with the evidence recomp reads switched
// on for every XLA stack it may use, keeps what the run leaves behind in a run folder (run.log
// with the time each line arrived, the HLO dump, manifest.json; their format is runfolder's).
// It takes its writers and environment from the caller and prints nothing of its own.
//
// The work is split by job: session.go is one run of recomp run (Prepare, Run, Manifest);
// evidence.go the settings that switch each stack's evidence on; run.go runs the command (its
// output to the terminal unchanged and to run.log line by line, signals passed on); quiet.go
// keeps the compile logging recomp switched on off the terminal; live.go lets a Live read
// run.log as it is written, says its notes between the program's lines and stops the command
// when it asks (group_unix.go and group_other.go: the command's own process group and the
// signals that stop it); folder.go makes the run folder and the manifest, finds the cache
// folders and the Python packages' versions, and prunes the dump; probe.go writes the Python
// probe. pty_unix.go and pty_other.go give the command a pseudo-terminal where there is one,
// pipe_linux.go and pipe_other.go size its pipes, terminal.go says whether a file is a terminal.
package runner
