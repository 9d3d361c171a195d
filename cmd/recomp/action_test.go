package main

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// The GitHub Action's scripts (action/run.sh, action/install.sh), run as the runner runs them:
// inputs as INPUT_* variables, with a recomp on PATH that records how it was called.

// fakeRecomp puts on PATH a recomp that appends its arguments (one call a line, the arguments
// separated by 0x1f) to the file it returns, and exits with $FAKE_EXIT.
func fakeRecomp(t *testing.T) (path, calls string) {
	t.Helper()
	bin := t.TempDir()
	calls = filepath.Join(t.TempDir(), "calls")
	script := "#!/usr/bin/env bash\n( IFS=$'\\x1f'; printf '%s\\n' \"$*\" ) >> \"$FAKE_CALLS\"\nexit \"${FAKE_EXIT:-0}\"\n"
	if err := os.WriteFile(filepath.Join(bin, "recomp"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return bin + string(os.PathListSeparator) + os.Getenv("PATH"), calls
}

func actionScript(t *testing.T, name string, dir string, env ...string) (string, error) {
	t.Helper()
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	root, _ := filepath.Abs("../..")
	cmd := exec.Command("bash", filepath.Join(root, "action", name))
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func readCalls(t *testing.T, calls string) [][]string {
	b, _ := os.ReadFile(calls)
	var out [][]string
	for _, l := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		if l != "" {
			out = append(out, strings.Split(l, "\x1f"))
		}
	}
	return out
}

// A logs: or args: value is split into words as the shell reads quotes, and nothing in it runs:
// a branch name may hold $(...) (git allows it) and reach logs: through a workflow expression.
func TestActionRunsNoInput(t *testing.T) {
	path, calls := fakeRecomp(t)
	dir := t.TempDir()
	for _, n := range []string{"c1.log", "c2.log"} {
		os.WriteFile(filepath.Join(dir, n), []byte("x\n"), 0o644)
	}
	logs := `logs/$(touch PWNED)/x.log "a b.log" 'it''s.log' c*.log ` + "`touch PWNED2`.log"
	out, err := actionScript(t, "run.sh", dir, "PATH="+path, "FAKE_CALLS="+calls, "INPUT_LOGS="+logs,
		`INPUT_ARGS=--after 'Epoch 2/' --max-recompiles $(touch PWNED3)`, "GITHUB_STEP_SUMMARY="+filepath.Join(dir, "summary.md"))
	if err != nil {
		t.Fatalf("run.sh: %v\n%s", err, out)
	}
	for _, n := range []string{"PWNED", "PWNED2", "PWNED3"} {
		if _, err := os.Stat(filepath.Join(dir, n)); err == nil {
			t.Errorf("an input ran: %s made", n)
		}
	}
	got := readCalls(t, calls)
	want := []string{"guard", "--format", "markdown", "--after", "Epoch 2/", "--max-recompiles", "$(touch", "PWNED3)",
		"logs/$(touch", "PWNED)/x.log", "a b.log", "its.log", "c1.log", "c2.log", "`touch", "PWNED2`.log"}
	if len(got) != 2 || strings.Join(got[0], "|") != strings.Join(want, "|") {
		t.Fatalf("recomp called as\n%q\nwant first\n%q", got, want)
	}
	// An unmatched quote is an error, not a guess.
	out, err = actionScript(t, "run.sh", dir, "PATH="+path, "FAKE_CALLS="+calls, `INPUT_LOGS=a.log "b.log`)
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 || !strings.Contains(out, "unmatched quote") {
		t.Errorf("unmatched quote: %v\n%s", err, out)
	}
}

// The job summary holds this run's report only: a run folder left by an earlier run (recomp run
// refuses it) does not lend its old report.md.
func TestActionSummaryOnlyFromThisRun(t *testing.T) {
	path, calls := fakeRecomp(t)
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, "recomp-run"), 0o755)
	os.WriteFile(filepath.Join(dir, "recomp-run", "report.md"), []byte("OLD REPORT\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "recomp-run", "run.log"), []byte("x\n"), 0o644)
	summary := filepath.Join(dir, "summary.md")
	out, err := actionScript(t, "run.sh", dir, "PATH="+path, "FAKE_CALLS="+calls, "FAKE_EXIT=2", "INPUT_COMMAND=true",
		"GITHUB_STEP_SUMMARY="+summary)
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 {
		t.Fatalf("run.sh: %v, want exit 2\n%s", err, out)
	}
	if b, _ := os.ReadFile(summary); strings.Contains(string(b), "OLD REPORT") {
		t.Errorf("the job summary got an earlier run's report:\n%s", b)
	}
}

// install.sh leaves no temporary folder behind, installed or not.
func TestActionInstallRemovesItsTempFolders(t *testing.T) {
	if runtime.GOOS != "linux" || (runtime.GOARCH != "amd64" && runtime.GOARCH != "arm64") {
		t.Skip("a release name for linux/amd64 or arm64 only")
	}
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("no curl")
	}
	rel := t.TempDir()
	name := "recomp-linux-" + runtime.GOARCH
	bin := []byte("#!/bin/sh\necho recomp 0.0.0-test\n")
	os.WriteFile(filepath.Join(rel, name), bin, 0o755)
	sum := sha256.Sum256(bin)
	for _, c := range []struct {
		sums string
		ok   bool
	}{{hex.EncodeToString(sum[:]) + "  " + name + "\n", true}, {strings.Repeat("0", 64) + "  " + name + "\n", false}} {
		os.WriteFile(filepath.Join(rel, "SHA256SUMS"), []byte(c.sums), 0o644)
		tmp, runnerTemp := t.TempDir(), t.TempDir()
		out, err := actionScript(t, "install.sh", t.TempDir(), "TMPDIR="+tmp, "RUNNER_TEMP="+runnerTemp,
			"RECOMP_RELEASE_URL=file://"+rel, "INPUT_INSTALL=release", "INPUT_VERSION=0.0.0", "GITHUB_PATH=", "GITHUB_OUTPUT=")
		if (err == nil) != c.ok {
			t.Fatalf("install.sh (checksum ok %v): %v\n%s", c.ok, err, out)
		}
		if left, _ := os.ReadDir(tmp); len(left) > 0 {
			t.Errorf("install.sh (checksum ok %v) left %d temporary folders in TMPDIR: %s", c.ok, len(left), left[0].Name())
		}
	}
}
