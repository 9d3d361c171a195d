// Package runner runs a training or serving command with the evidence recomp reads switched
// on for every XLA stack it may use, keeps what the run leaves behind in a run folder (run.log
// with the time each line arrived, the HLO dump, manifest.json; their format is runfolder's).
// It takes its writers and environment from the caller and prints nothing of its own.
//
// A Session (session.go) is one run of recomp run: Prepare makes the folder and works out the
// settings, Run runs the command into it (writing a manifest marked running first), Manifest
// says what happened. The work is split by job: run.go runs the command (pipes or a
// pseudo-terminal, signals passed on, the line log written through, the output of processes
// left behind), evidence.go is what recomp switches on for each stack (the user's own settings
// and dump folder kept), folder.go makes run folders, captures run.log, watches cache folders
// and asks the command's real Python interpreter for versions, probe.go writes the Python probe
// and says when the command's Python cannot load it, inprocess.go opens and closes the session of a process recomp did not
// start (the pytest plugin's: it sets the variables and loads the probe itself), quiet.go keeps the compile logging recomp
// switched on off the terminal, live.go lets a Live read run.log as it is written, says its notes
// between the program's lines and stops the command when it asks, and terminal.go says whether
// a file is a terminal.
//
// By system: pty_unix.go and pty_other.go open the pseudo-terminal (none outside Unix),
// pipe_linux.go and pipe_other.go size the pipes and give the command its parent-death signal
// (Linux only) where no watchdog runs, watchdog.go and watchdog_linux.go end the command and the
// processes below it when recomp ends first, even by SIGKILL (watchdog_other.go: none outside
// Linux), group_unix.go and group_other.go give a command stopped at a recompilation its
// own process group and the signals that stop it (kill only outside Unix).
package runner
