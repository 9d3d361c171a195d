package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	buildversion "github.com/recomp/recomp/internal/version"
	"github.com/recomp/recomp/report"
)

// Reliability under hostile input and careless use (issue 11): each test here failed before
// its fix.

const goodLog = "Begin XLA compilation: cluster_1.4  (Hash: 0xaaa) for ordinal  0\nBegin compiling Poplar engine cluster_1.4\nEnd compiling Poplar engine.\n"

func runIn(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := runWith(args, strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

// --write-baseline never writes over an input, however the two are spelled.
func TestWriteBaselineNeverOverwritesAnInput(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	if err := os.WriteFile("run.log", []byte(goodLog), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Symlink("run.log", "link.log")
	abs, _ := filepath.Abs("run.log")
	for _, target := range []string{"./run.log", abs, "link.log", "sub/../run.log"} {
		os.Mkdir("sub", 0o755)
		code, _, stderr := runIn(t, "", "guard", "--write-baseline", target, "run.log")
		if code != exitUsage || !strings.Contains(stderr, "would overwrite an input") {
			t.Errorf("--write-baseline %s run.log: exit %d, %q", target, code, stderr)
		}
		if b, _ := os.ReadFile("run.log"); string(b) != goodLog {
			t.Fatalf("--write-baseline %s destroyed the input log", target)
		}
	}
	code, out, _ := runIn(t, "", "guard", "--write-baseline", "base.json", "run.log")
	if code != 0 || !strings.Contains(out, "wrote a baseline of 1 module families") {
		t.Fatalf("exit %d: %s", code, out)
	}
	if st, _ := os.Stat("base.json"); st.Mode().Perm() != 0o644 {
		t.Errorf("baseline mode %v", st.Mode())
	}
	if left, _ := filepath.Glob(".base.json.tmp-*"); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

// A gate whose evidence is missing does not pass: an empty log, a truncated .gz, a warm-up
// marker that never matched. It exits 2 and says why in every format.
func TestGuardWithoutEvidenceIsInconclusive(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.log")
	os.WriteFile(empty, []byte("training...\nloss 0.1\n"), 0o644)
	var zb bytes.Buffer
	zw := gzip.NewWriter(&zb)
	zw.Write([]byte(strings.Repeat(goodLog, 200)))
	zw.Close()
	trunc := filepath.Join(dir, "trunc.log.gz")
	os.WriteFile(trunc, zb.Bytes()[:zb.Len()/2], 0o644)
	good := filepath.Join(dir, "good.log")
	os.WriteFile(good, []byte(goodLog), 0o644)
	for _, c := range []struct {
		args []string
		why  string
	}{
		{[]string{empty}, "no compile evidence"},
		{[]string{trunc}, "read error"},
		{[]string{"--after", "Epoch 2/", good}, "warm-up marker matched no line"},
	} {
		for _, format := range []string{"text", "json", "github", "junit", "markdown"} {
			args := append([]string{"guard", "--format", format}, c.args...)
			code, out, _ := runIn(t, "", args...)
			if code != exitUsage || !strings.Contains(out, c.why) {
				t.Errorf("recomp %s: exit %d, want 2 and %q in:\n%s", strings.Join(args, " "), code, c.why, out)
			}
			switch format {
			case "json":
				var doc report.ScanJSON
				if err := json.Unmarshal([]byte(out), &doc); err != nil || doc.Gate == nil || doc.Gate.Passed || !doc.Gate.Inconclusive {
					t.Errorf("%v: gate %+v (%v)", c.args, doc.Gate, err)
				}
			case "junit":
				if err := xml.Unmarshal([]byte(out), new(junitSuites)); err != nil || !strings.Contains(out, `<error message="inconclusive`) {
					t.Errorf("%v: junit %v\n%s", c.args, err, out)
				}
			case "github":
				if !strings.HasPrefix(out, "::error ") {
					t.Errorf("%v: github %q", c.args, out)
				}
			}
		}
	}
	if code, _, _ := runIn(t, "", "guard", "--allow-no-evidence", empty); code != 0 {
		t.Errorf("--allow-no-evidence: exit %d", code)
	}
}

// Logs are separate processes (ranks) unless told otherwise.
func TestLogsAreProcesses(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "rank0.log"), filepath.Join(dir, "rank1.log")
	os.WriteFile(a, []byte(goodLog), 0o644)
	os.WriteFile(b, []byte(goodLog), 0o644)
	if code, out, _ := runIn(t, "", "guard", a, b); code != 0 {
		t.Errorf("two ranks that each compiled once: exit %d\n%s", code, out)
	}
	if code, _, _ := runIn(t, "", "guard", "--same-process", a, b); code != 1 {
		t.Errorf("--same-process: exit %d, want 1", code)
	}
}

// A FIFO (or device) named like a module file in a dump folder is skipped with a warning, not
// opened (which would block for ever).
func TestDumpFolderSkipsFIFOs(t *testing.T) {
	dir := t.TempDir()
	src, _ := os.ReadFile("testdata/fixtures/step.hlo")
	os.WriteFile(filepath.Join(dir, "module_0001.jit_step.before_optimizations.txt"), src, 0o644)
	os.WriteFile(filepath.Join(dir, "module_0003.jit_step.before_optimizations.txt"), src, 0o644)
	if err := syscall.Mkfifo(filepath.Join(dir, "module_0002.jit_step.before_optimizations.txt"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	done := make(chan struct{})
	var code int
	var out string
	go func() {
		code, out, _ = runIn(t, "", "explain", dir)
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("explain blocked on a FIFO")
	}
	if code != 0 || !strings.Contains(out, "skipped: not a regular file") {
		t.Errorf("exit %d:\n%s", code, out)
	}
}

// diff and explain read '-' and gzip like every other command; '-' can be read once.
func TestDiffReadsStdinAndGzip(t *testing.T) {
	src, _ := os.ReadFile("testdata/fixtures/step.hlo")
	dir := t.TempDir()
	gz := filepath.Join(dir, "step.hlo.gz")
	var zb bytes.Buffer
	zw := gzip.NewWriter(&zb)
	zw.Write(src)
	zw.Close()
	os.WriteFile(gz, zb.Bytes(), 0o644)
	if code, out, stderr := runIn(t, string(src), "diff", "-", gz); code != 0 || !strings.Contains(out, "1 identical") {
		t.Errorf("diff - %s: exit %d %s%s", gz, code, out, stderr)
	}
	for _, args := range [][]string{{"diff", "-", "-"}, {"scan", "-", "-"}, {"hlo", "check", "-", "-"}, {"cache", dir, "--log", "-", "--log", "-"}} {
		if code, _, stderr := runIn(t, "", args...); code != exitUsage || !strings.Contains(stderr, "can be read once") {
			t.Errorf("recomp %s: exit %d %q", strings.Join(args, " "), code, stderr)
		}
	}
}

// --log takes file names whole: a comma is part of a name.
func TestLogNamesAreNotSplit(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "a,b.log")
	os.WriteFile(name, []byte(goodLog), 0o644)
	os.MkdirAll(filepath.Join(dir, "cache"), 0o755)
	if code, _, stderr := runIn(t, "", "cache", filepath.Join(dir, "cache"), "--log", name); code != 0 {
		t.Errorf("exit %d: %s", code, stderr)
	}
}

// A bare recomp prints the usage; --version names the build.
func TestUsageAndVersion(t *testing.T) {
	code, out, stderr := runIn(t, "")
	if code != exitUsage || out != "" || !strings.Contains(stderr, "Usage: recomp <command>") || !strings.Contains(stderr, "guard") {
		t.Errorf("bare recomp: exit %d, stdout %q, stderr %q", code, out, stderr)
	}
	code, out, _ = runIn(t, "", "--version")
	if code != 0 || !strings.HasPrefix(out, "recomp "+buildversion.Version+" ") || !strings.Contains(out, "go1.") {
		t.Errorf("--version: exit %d %q", code, out)
	}
}

// --log-level trace says what a user debugging recomp needs: files, sizes, timings, events.
func TestTraceLogging(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "run.log")
	os.WriteFile(f, []byte(goodLog), 0o644)
	_, _, stderr := runIn(t, "", "--log-level", "trace", "scan", f)
	for _, want := range []string{"[TRACE] recomp: reading: input=" + f + " bytes=", "[TRACE] recomp: event: file=" + f + " line=1 kind=compile_request",
		"[DEBUG] recomp: scanned input:", "elapsed="} {
		if !strings.Contains(stderr, want) {
			t.Errorf("trace lacks %q:\n%s", want, stderr)
		}
	}
}

// The rm command recomp proposes names only recognised cache entries, quoted for the shell.
func TestPruneCommandIsSafe(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"train.py", "abc.poplar_exec", "def.poplar_exec", "1234.popef", "notes\nrm -rf ~.poplar_exec"} {
		os.WriteFile(filepath.Join(dir, n), []byte("x"), 0o644)
	}
	log := filepath.Join(t.TempDir(), "run.log")
	os.WriteFile(log, []byte("Loaded m from /c/abc.poplar_exec\n"), 0o644)
	_, out, _ := runIn(t, "", "cache", dir, "--log", log)
	i := strings.Index(out, "rm --")
	if i < 0 {
		t.Fatalf("no rm command:\n%s", out)
	}
	cmd := strings.TrimSpace(out[i:])
	if strings.Contains(cmd, "train.py") || strings.Contains(cmd, "abc.poplar_exec") || strings.Contains(cmd, "\n") || strings.Contains(cmd, "rm -rf") {
		t.Errorf("unsafe command: %q", cmd)
	}
	if !strings.Contains(cmd, "def.poplar_exec") || !strings.Contains(cmd, "1234.popef") {
		t.Errorf("command misses untouched entries: %q", cmd)
	}
}
