package runner

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// WatchdogCommand is the command that starts this program again as a watchdog (nil where there
// is none): the program's main calls Watchdog when IsWatchdog.
func WatchdogCommand() []string { return []string{"/proc/self/exe"} }

// Watchdog is the watchdog's whole work: it reads what recomp writes on in (its standard input)
// and, when that ends before recomp said "done", kills the command's processes. It returns the
// process's exit code.
func Watchdog(in io.Reader) int {
	signal.Ignore(syscall.SIGHUP, syscall.SIGINT, syscall.SIGQUIT, syscall.SIGTSTP, syscall.SIGTTIN, syscall.SIGTTOU, syscall.SIGPIPE)
	sc := bufio.NewScanner(in)
	if !sc.Scan() || sc.Text() == "done" {
		return 0 // recomp ended, or the command could not start
	}
	var pid, own int
	var start uint64
	if _, err := fmt.Sscanf(sc.Text(), "%d %d %d", &pid, &start, &own); err != nil || pid <= 1 {
		return 2
	}
	for sc.Scan() {
		if sc.Text() == "done" {
			return 0
		}
	}
	killTree(pid, start, own == 1)
	return 0
}

// watchdog is recomp's side: the watchdog process and the pipe to it.
type watchdog struct {
	cmd *exec.Cmd
	w   *os.File
}

// startWatchdog starts the watchdog (argv: WatchdogCommand); nil when it cannot be.
func startWatchdog(argv []string) *watchdog {
	if len(argv) == 0 {
		return nil
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil
	}
	defer r.Close()
	c := exec.Command(argv[0], argv[1:]...)
	c.Env = append(os.Environ(), WatchdogVar+"=1")
	c.Stdin = r
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := c.Start(); err != nil {
		w.Close()
		return nil
	}
	return &watchdog{cmd: c, w: w}
}

// arm tells the watchdog the command's pid (with its start time, so that a pid used again
// is never taken for it) and whether it leads a process group of its own.
func (d *watchdog) arm(pid int, own bool) {
	if d == nil {
		return
	}
	o := 0
	if own {
		o = 1
	}
	fmt.Fprintf(d.w, "%d %d %d\n", pid, startTime(pid), o)
}

// done tells the watchdog the command ended while recomp ran, and waits for it to exit.
func (d *watchdog) done() {
	if d == nil {
		return
	}
	io.WriteString(d.w, "done\n")
	d.w.Close()
	d.cmd.Wait()
}

// startTime is the process's start time in clock ticks since boot (field 22 of
// /proc/PID/stat), 0 when it cannot be read.
func startTime(pid int) uint64 {
	f, ok := procStat(pid)
	if !ok || len(f) < 20 {
		return 0
	}
	n, _ := strconv.ParseUint(f[19], 10, 64)
	return n
}

// procStat is /proc/PID/stat's fields after the command name (the state first: field 3).
func procStat(pid int) ([]string, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return nil, false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return nil, false
	}
	return strings.Fields(s[i+1:]), true
}

// parents maps each process to its parent.
func parents() map[int]int {
	out := map[int]int{}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if f, ok := procStat(pid); ok && len(f) > 1 {
			if pp, err := strconv.Atoi(f[1]); err == nil {
				out[pid] = pp
			}
		}
	}
	return out
}

// killTree kills the process pid (when it is still the one started at start) and every
// process below it, and with own its process group: they are stopped first, in rounds until a
// round finds no new one (a process forking meanwhile has its child found in the next round),
// then killed.
func killTree(pid int, start uint64, own bool) {
	if own {
		syscall.Kill(-pid, syscall.SIGSTOP)
	}
	found := map[int]bool{}
	if start != 0 && startTime(pid) == start {
		found[pid] = true
		syscall.Kill(pid, syscall.SIGSTOP)
		deadline := time.Now().Add(2 * time.Second)
		for grew := true; grew && time.Now().Before(deadline); {
			grew = false
			par := parents()
			for p, pp := range par {
				if found[pp] && !found[p] {
					found[p], grew = true, true
					syscall.Kill(p, syscall.SIGSTOP)
				}
			}
		}
	}
	for p := range found {
		syscall.Kill(p, syscall.SIGKILL)
	}
	if own {
		syscall.Kill(-pid, syscall.SIGKILL)
	}
}
