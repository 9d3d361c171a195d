//go:build linux

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/recomp/recomp/runner"
)

// Class 6a: recomp killed with SIGKILL (which it cannot catch) ends the command and the
// processes it started, a grandchild that never writes included; with a process group of its
// own (--fail-on-recompile) also one that left the tree but not the group.
func TestRunKilledTakesItsProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("builds recomp")
	}
	bin := filepath.Join(t.TempDir(), "recomp")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	for _, c := range []struct {
		name  string
		flags []string
		// script starts its processes and writes their pids, one a line, into the file $1.
		script string
	}{
		{"shared group", nil, `sleep 300 & echo $! >> "$1"; sh -c 'sleep 301 & echo $! >> "$1"; wait' sh "$1" & echo $$ >> "$1"; wait`},
		{"own group", []string{"--fail-on-recompile"}, `(sleep 302 &  echo $! >> "$1"); sleep 303 & echo $! >> "$1"; echo $$ >> "$1"; wait`},
	} {
		t.Run(c.name, func(t *testing.T) {
			work := t.TempDir()
			pids := filepath.Join(work, "pids")
			args := append(append([]string{"run", "--no-live", "--out", filepath.Join(work, "run")}, c.flags...), "--", "sh", "-c", c.script, "sh", pids)
			cmd := exec.Command(bin, args...)
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer cmd.Process.Kill()
			var procs []int
			for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline) && len(procs) < 3; time.Sleep(50 * time.Millisecond) {
				b, _ := os.ReadFile(pids)
				procs = procs[:0]
				for _, f := range strings.Fields(string(b)) {
					if p, err := strconv.Atoi(f); err == nil {
						procs = append(procs, p)
					}
				}
			}
			if len(procs) < 3 {
				t.Fatalf("the command started %v", procs)
			}
			defer func() {
				for _, p := range procs {
					syscall.Kill(p, syscall.SIGKILL)
				}
			}()
			if watchdogOf(bin) == 0 {
				t.Error("no watchdog runs beside the command")
			}
			cmd.Process.Signal(syscall.SIGKILL)
			cmd.Wait()
			deadline := time.Now().Add(10 * time.Second)
			for _, p := range procs {
				for running(p) && time.Now().Before(deadline) {
					time.Sleep(20 * time.Millisecond)
				}
				if running(p) {
					b, _ := os.ReadFile("/proc/" + strconv.Itoa(p) + "/cmdline")
					t.Errorf("pid %d (%q) outlived recomp", p, strings.ReplaceAll(string(b), "\x00", " "))
				}
			}
			// The watchdog (recomp itself) is gone too.
			for running(watchdogOf(bin)) && time.Now().Before(deadline) {
				time.Sleep(20 * time.Millisecond)
			}
			if p := watchdogOf(bin); running(p) {
				t.Errorf("the watchdog (pid %d) outlived its work", p)
			}
		})
	}
}

// A run that ends leaves no watchdog behind.
func TestRunLeavesNoWatchdog(t *testing.T) {
	if testing.Short() {
		t.Skip("builds recomp")
	}
	bin := filepath.Join(t.TempDir(), "recomp")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	if out, err := exec.Command(bin, "run", "--out", filepath.Join(t.TempDir(), "run"), "--", "true").CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if p := watchdogOf(bin); p != 0 {
		t.Errorf("a watchdog (pid %d) is left", p)
	}
}

// watchdogOf is a running process of the program bin started as a watchdog (0: none).
func watchdogOf(bin string) int {
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if exe, _ := os.Readlink("/proc/" + e.Name() + "/exe"); exe != bin {
			continue
		}
		env, _ := os.ReadFile("/proc/" + e.Name() + "/environ")
		if strings.Contains("\x00"+string(env), "\x00"+runner.WatchdogVar+"=1\x00") && running(pid) {
			return pid
		}
	}
	return 0
}
