package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/recomp/recomp/cache"
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
	if code != 0 || !strings.HasPrefix(out, "recomp ") || !strings.Contains(out, "go1.") {
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

// A dump file whose name holds a newline, an escape sequence or bytes that are not UTF-8 is
// paired like any other (issue 18, class 9: such a file was dropped without a word and explain
// exited 0), or skipped with a warning when it is no module; and no output prints its name
// raw.
func TestOddDumpFileNames(t *testing.T) {
	dir := t.TempDir()
	dump := filepath.Join(dir, "dump")
	os.Mkdir(dump, 0o755)
	src := "../../testdata/runs/jax-0.12/partial-batch/dump/"
	a, _ := os.ReadFile(src + "module_0000.jit_train_step.before_optimizations.txt")
	b, _ := os.ReadFile(src + "module_0002.jit_train_step.before_optimizations.txt")
	odd := "module_0002.jit_train_step\n::stop-commands::x\x1b[31m\xff.before_optimizations.txt"
	os.WriteFile(filepath.Join(dump, "module_0000.jit_train_step.before_optimizations.txt"), a, 0o644)
	if err := os.WriteFile(filepath.Join(dump, odd), b, 0o644); err != nil {
		t.Skipf("the file system refuses the name: %v", err)
	}
	os.WriteFile(filepath.Join(dump, "notes\x1b[2J.txt"), []byte("not HLO\n"), 0o644)

	for _, f := range []string{"text", "json", "markdown", "html"} {
		code, out, stderr := runIn(t, "", "explain", "--format", f, dump)
		if code != exitFound {
			t.Errorf("%s: exit %d, want %d (the pair differs): %s", f, code, exitFound, stderr)
		}
		if strings.ContainsAny(out, "\x1b\xff") || strings.Contains(out, "\n::stop") {
			t.Errorf("%s: the odd name is printed raw:\n%q", f, out)
		}
		switch f {
		case "text":
			for _, want := range []string{`jit_train_step\n::stop-commands::x\x1b[31m\xff.before_optimizations.txt`,
				"cause batch_size", `warning: ` + dump + `/notes\x1b[2J.txt: skipped: `} {
				if !strings.Contains(out, want) {
					t.Errorf("text: %q missing:\n%s", want, out)
				}
			}
		case "json":
			var doc report.DiffJSON
			if err := json.Unmarshal([]byte(out), &doc); err != nil {
				t.Fatal(err)
			}
			if len(doc.Pairs) != 1 || !strings.Contains(doc.Pairs[0].B, "jit_train_step\n::stop-commands::x\x1b[31m") {
				t.Errorf("json: the odd file is not paired: %+v", doc.Pairs)
			}
		}
	}
	code, out, _ := runIn(t, "", "diff", filepath.Join(dump, "module_0000.jit_train_step.before_optimizations.txt"), filepath.Join(dump, odd))
	if code != exitFound || !strings.Contains(out, `\n::stop-commands::x\x1b[31m\xff`) {
		t.Errorf("diff of the odd file: exit %d\n%s", code, out)
	}
	code, _, stderr := runIn(t, "", "hlo", "check", filepath.Join(dump, odd+"-missing"))
	if code != exitUsage || strings.ContainsAny(stderr, "\x1b\xff") || !strings.Contains(stderr, `\x1b[31m\xff`) {
		t.Errorf("hlo check of a missing odd file: exit %d, %q", code, stderr)
	}
}

// A gzip bomb named on the command line or lying in a dump folder is refused at the cap with
// the file named (issue 18, class 8); RECOMP_MAX_HLO_MIB sets the cap like --max-hlo-mib.
func TestGzipBombRefused(t *testing.T) {
	dir := t.TempDir()
	var member bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&member, gzip.BestCompression)
	zw.Write(make([]byte, 1<<20))
	zw.Close()
	bomb := filepath.Join(dir, "module_0001.f.before_optimizations.txt.gz")
	os.WriteFile(bomb, bytes.Repeat(member.Bytes(), 16), 0o644) // 16 KB, inflating to 16 MiB
	code, _, stderr := runIn(t, "", "--max-hlo-mib", "4", "hlo", "check", bomb)
	if code != exitUsage || !strings.Contains(stderr, bomb+": inflates (gzip) to more than 4 MiB, the most recomp reads of one HLO file") {
		t.Errorf("hlo check: exit %d, %q", code, stderr)
	}
	t.Setenv("RECOMP_MAX_HLO_MIB", "4")
	code, out, _ := runIn(t, "", "explain", dir)
	if code != exitUsage || !strings.Contains(out, bomb+": inflates (gzip) to more than 4 MiB") {
		t.Errorf("explain: exit %d:\n%s", code, out)
	}
	code, _, stderr = runIn(t, "", "--max-hlo-mib", "0", "hlo", "check", bomb)
	if code != exitUsage || !strings.Contains(stderr, "--max-hlo-mib 0: want 1 to") {
		t.Errorf("--max-hlo-mib 0: exit %d, %q", code, stderr)
	}
}

// A log of more module families than a process accounts one by one (cache.MaxFamilies) is
// scanned and gated in full, says what it does not list, and gives no baseline that would
// miss families.
func TestManyFamilies(t *testing.T) {
	dir := t.TempDir()
	var log strings.Builder
	for i := range 2 * (cache.MaxFamilies + 10) {
		fmt.Fprintf(&log, "Begin XLA compilation: cluster_%d  (Hash: 0x%x) for ordinal  0\n", i%(cache.MaxFamilies+10), i)
	}
	p := filepath.Join(dir, "families.log")
	os.WriteFile(p, []byte(log.String()), 0o644)
	code, out, _ := runIn(t, "", "guard", "--format", "json", p)
	var doc report.ScanJSON
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if code != exitFound || doc.Gate.FailureCount != cache.MaxFamilies+10 || len(doc.Modules) != cache.MaxFamilies ||
		doc.Summary.FamiliesNotListed != 10 || doc.Summary.RecompilationsNL != 10 {
		t.Errorf("exit %d, %d failures, %d modules, summary %+v", code, doc.Gate.FailureCount, len(doc.Modules), doc.Summary)
	}
	code, _, stderr := runIn(t, "", "guard", "--write-baseline", filepath.Join(dir, "base.json"), p)
	if code != exitUsage || !strings.Contains(stderr, "not writing a baseline: 10 module families beyond the first 10000") {
		t.Errorf("baseline: exit %d, %q", code, stderr)
	}
}
