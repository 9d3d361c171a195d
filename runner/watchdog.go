package runner

import "os"

// The watchdog ends the command, and every process below it, when recomp ends before the
// command did, however it ends: a SIGKILL (the OOM killer, a scheduler's time limit) gives
// recomp no chance to pass anything on, and the parent-death signal alone reaches only the
// command, not the processes it started (a shell's python, a trainer's data-loader workers).
// It is recomp itself, started again (WatchdogCommand) before the command, in a process group
// of its own so that no Ctrl-C or hang-up of the job reaches it, reading a pipe whose other end
// only recomp holds. recomp writes the command's pid on it once the command started, and
// "done" once the command ended and Run returns; the pipe closing before "done" means recomp
// ended early: the watchdog then stops (SIGSTOP) the command and every process whose parent
// chain leads to it, again until no new one appears, kills them all (SIGKILL) and, when the
// command had a process group of its own, the whole group too. A process the command left
// behind before it ended (an orphan of an exited parent, outside that group) is not found.
//
// By system: watchdog_linux.go is the watchdog; watchdog_other.go has none (no parent-death
// signal either).

// WatchdogVar, set in its environment, makes a recomp process the watchdog (IsWatchdog).
const WatchdogVar = "RECOMP_WATCHDOG"

// IsWatchdog says this process was started as a command's watchdog: the program's main must
// then call Watchdog and exit with its code, before anything else.
func IsWatchdog() bool { return os.Getenv(WatchdogVar) == "1" }
