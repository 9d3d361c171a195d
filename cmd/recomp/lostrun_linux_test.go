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

	"github.com/recomp/recomp/runfolder"
)

// Round 3 (issue 28), class 2: a run is never lost.

// A full disk during recomp run (a real one: a 256 KiB tmpfs) keeps the run folder: the part of
// run.log that fit, the command's exit code, and the failure, in the manifest and on stderr.
func TestRunOnAFullDisk(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("mounting a tmpfs needs root")
	}
	mnt := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", mnt).CombinedOutput(); err != nil {
		t.Skipf("no tmpfs: %v %s", err, out)
	}
	defer exec.Command("umount", mnt).Run()
	dir := filepath.Join(mnt, "run")
	script := `i=0; while [ $i -lt 20000 ]; do echo "step $i loss 0.5 padding padding padding"; i=$((i+1)); done; exit 5`
	code, _, stderr := runIn(t, "", "run", "--out", dir, "--", "sh", "-c", script)
	if code != 5 {
		t.Errorf("exit %d, want the command's 5:\n%s", code, stderr)
	}
	log, err := os.ReadFile(filepath.Join(dir, "run.log"))
	if err != nil || !strings.Contains(string(log), " step 0 loss 0.5") {
		t.Fatalf("the part of run.log that fit is gone: %v (%d bytes)", err, len(log))
	}
	m, err := runfolder.ReadManifest(filepath.Join(dir, "manifest.json"))
	if err != nil {
		t.Fatalf("no manifest: %v", err)
	}
	if m.Running || m.ExitCode != 5 || !strings.Contains(m.LogError, "no space left") || m.LogLostBytes <= 0 {
		t.Errorf("manifest: running %v, exit %d, log error %q, lost %d", m.Running, m.ExitCode, m.LogError, m.LogLostBytes)
	}
	if !strings.Contains(stderr, "run.log is incomplete") {
		t.Errorf("stderr says nothing of the full disk:\n%s", stderr)
	}

	_, out, _ := runIn(t, "", "scan", "--format", "json", dir)
	if !strings.Contains(out, "run.log is incomplete") {
		t.Errorf("scan of the folder says nothing of the full disk:\n%s", out)
	}
}

// Reports recomp could not write (here: the command left a folder where report.json goes) are
// said, and not announced as written; the exit code says the run's record is incomplete.
func TestRunReportsNotWritten(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	code, _, stderr := runIn(t, "", "run", "--out", dir, "--", "mkdir", filepath.Join(dir, "report.json"))
	if code != exitUsage || !strings.Contains(stderr, "the reports could not be written") || strings.Contains(stderr, "reports in ") {
		t.Errorf("exit %d, stderr:\n%s", code, stderr)
	}
}

// recomp killed with SIGKILL: run.log holds what the command printed up to then (nothing held
// back in a buffer), the command does not outlive recomp, and the folder read back says the run
// was cut.
func TestRunKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("builds recomp")
	}
	bin := filepath.Join(t.TempDir(), "recomp")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	work := t.TempDir()
	dir := filepath.Join(work, "run")
	pidFile := filepath.Join(work, "pid")
	// 2000 lines (about 90 KiB with their stamps), then the shell becomes a long sleep.
	script := `i=0; while [ $i -lt 2000 ]; do echo "step $i loss 0.5"; i=$((i+1)); done; echo $$ > ` + pidFile + `; exec sleep 60`
	cmd := exec.Command(bin, "run", "--out", dir, "--", "sh", "-c", script)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	var pid int
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		b, _ := os.ReadFile(pidFile)
		if p, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
			pid = p
			break
		}
	}
	if pid == 0 {
		t.Fatal("the command never started")
	}
	// recomp writes what it reads as it reads it: the last line reaches run.log while recomp
	// runs (waited for: a loaded machine is slow), not when it exits. A recomp that held the
	// output back would never show it before the kill.
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if b, _ := os.ReadFile(filepath.Join(dir, "run.log")); strings.Contains(string(b), " step 1999 loss 0.5\n") {
			break
		}
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	log, _ := os.ReadFile(filepath.Join(dir, "run.log"))
	if !strings.Contains(string(log), " step 1999 loss 0.5\n") {
		t.Errorf("run.log lost the command's output when recomp was killed (%d bytes kept)", len(log))
	}
	alive := true
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if !running(pid) {
			alive = false
			break
		}
	}
	if alive {
		syscall.Kill(pid, syscall.SIGKILL)
		t.Errorf("the command (pid %d) outlived recomp", pid)
	}
	for _, args := range [][]string{{"scan", "--format", "json", dir}, {"guard", "--format", "json", dir}} {
		_, out, stderr := runIn(t, "", args...)
		if !strings.Contains(out, "the run was cut") {
			t.Errorf("recomp %s on the folder of a killed run says nothing of it:\n%s\n%s", args[0], out, stderr)
		}
	}
}

// running says whether a process is alive (a zombie, killed and not yet reaped, is not).
func running(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}
