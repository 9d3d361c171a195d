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

	buildversion "github.com/recomp/recomp/internal/version"
	"github.com/recomp/recomp/ledger"
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

// Round 2 (issue 18): each test here failed before its fix.

// --write-baseline compares its target with every file recomp read: the run.log of a run
// folder, the file behind standard input, a .gz input.
func TestWriteBaselineNeverOverwritesWhatWasRead(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	os.Mkdir("run", 0o755)
	os.WriteFile("run/run.log", []byte(goodLog), 0o644)
	var zb bytes.Buffer
	zw := gzip.NewWriter(&zb)
	zw.Write([]byte(goodLog))
	zw.Close()
	os.WriteFile("run.log.gz", zb.Bytes(), 0o644)
	gzWant := zb.String()
	if code, _, stderr := runIn(t, "", "guard", "--write-baseline", "run/run.log", "run"); code != exitUsage || !strings.Contains(stderr, "would overwrite an input (run/run.log)") {
		t.Errorf("target = the run folder's run.log: exit %d %q", code, stderr)
	}
	if code, _, stderr := runIn(t, "", "guard", "--write-baseline", "run.log.gz", "run.log.gz"); code != exitUsage || !strings.Contains(stderr, "would overwrite") {
		t.Errorf("target = the .gz input: exit %d %q", code, stderr)
	}
	f, err := os.Open("run/run.log")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out, errb bytes.Buffer
	if code := runWith([]string{"guard", "--write-baseline", "run/run.log", "-"}, f, &out, &errb); code != exitUsage ||
		!strings.Contains(errb.String(), "would overwrite an input (standard input)") {
		t.Errorf("target = the file behind stdin: exit %d %q", code, errb.String())
	}
	if b, _ := os.ReadFile("run/run.log"); string(b) != goodLog {
		t.Fatal("the run folder's log was written over")
	}
	if b, _ := os.ReadFile("run.log.gz"); string(b) != gzWant {
		t.Fatal("the .gz input was written over")
	}
}

// The gate needs evidence from every input, not from the merged whole.
func TestGuardNeedsEvidenceFromEveryInput(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	rank0 := write("rank0.log", goodLog)
	rank1 := write("rank1.log", "step 1\nstep 2\n")
	tfOnce := write("tf.log", "2026-11-24 10:00:00.000000: I tensorflow/compiler/jit/xla_compilation_cache.cc:477] Compiled cluster using XLA!  This line is logged at most once for the lifetime of the process.\n")
	cut := write("cut.log", goodLog+strings.ReplaceAll(goodLog, "cluster_1.4", "cluster_2.1")+
		"Begin XLA compilation: cluster_3.2  (Hash: 0xccc) for ordinal  0\nBegin compiling Poplar engine cluster_3.2\n")
	elf := write("core", "\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\n"+goodLog)
	jaxRotated := write("jax.log", "TRACING CACHE MISS at /w/train.py:64:12 (main):\n  for train_step defined at /w/train.py:20\n"+
		"  all previously seen cache keys differ. For the closest previous key:\n  different input types:\n"+
		"  * at x, now f32[24,8] and before f32[32,8]\n"+
		"Compiling jit(train_step) with global shapes and types (ShapedArray(float32[24,8]),). Argument mapping: (UnspecifiedValue,).\n"+
		"Finished XLA compilation of jit(train_step) in 0.100000000 sec\n")
	for _, c := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"a rank without evidence", []string{rank0, rank1}, exitUsage, "rank1.log: no compile evidence of its own"},
		{"TF's once-per-process line alone", []string{tfOnce}, exitUsage, "prints once per process"},
		{"a log cut inside a compilation", []string{cut}, exitUsage, "cut.log:7: the log ends inside the compilation of cluster_3.2"},
		{"a binary input with a log line in it", []string{elf}, exitUsage, "binary data (an ELF executable, library or core file)"},
		{"a warm-up longer than the run", []string{"--warmup", "5", rank0}, exitUsage, "the warm-up never ended"},
		{"JAX says it compiled the function before (a rotated log)", []string{jaxRotated}, exitFound, "the framework says it had compiled this function before"},
	} {
		code, out, _ := runIn(t, "", append([]string{"guard"}, c.args...)...)
		if code != c.code || !strings.Contains(out, c.want) {
			t.Errorf("%s: exit %d, want %d and %q in:\n%s", c.name, code, c.code, c.want, out)
		}
	}
	if code, out, _ := runIn(t, "", "guard", "--allow-no-evidence", rank0, rank1); code != 0 {
		t.Errorf("--allow-no-evidence with a rank without evidence: exit %d\n%s", code, out)
	}
}

// --after matches a line as the user reads it: ^ and $ are its start and end, after the arrival
// stamp recomp run writes and a launcher's rank label, without its CRLF.
func TestAfterMatchesLines(t *testing.T) {
	dir := t.TempDir()
	log := "2026-11-24T10:00:00.000000001Z Epoch 1/2\r\n" + goodLog + // lines 1-4
		"2026-11-24T10:00:01.000000001Z   loss in Epoch 2/2 next\r\n" + // 5: not at the start of its line
		strings.ReplaceAll(goodLog, "0xaaa", "0xbbb") + // 6-8
		"2026-11-24T10:00:02.000000001Z Epoch 2/2\r\n" + // 9
		strings.ReplaceAll(goodLog, "0xaaa", "0xccc") // 10-12
	p := filepath.Join(dir, "run.log")
	os.WriteFile(p, []byte(log), 0o644)
	for _, c := range []struct {
		after string
		code  int
		want  string
	}{
		{"^Epoch 2/2$", exitFound, "1 compilation(s) after warm-up"},
		{"^Epoch 2/", exitFound, "run.log:10  cluster_1  0xccc   0ms  compiled after the warm-up marker"},
		{"Epoch 2/2 next$", exitFound, "2 compilation(s) after warm-up"},
		{"^Epoch 3/", exitUsage, "the warm-up marker matched no line"},
	} {
		code, out, _ := runIn(t, "", "guard", "--after", c.after, p)
		if code != c.code || !strings.Contains(out, c.want) {
			t.Errorf("--after %q: exit %d, want %d and %q in:\n%s", c.after, code, c.code, c.want, out)
		}
	}
}

// Ranks a launcher interleaved in one file are processes of their own: two clean ranks pass,
// and a rank's multi-line record is read whole through the other's lines.
func TestRanksInOneFile(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	for _, l := range strings.SplitAfter(strings.TrimSuffix(goodLog, "\n"), "\n") {
		b.WriteString("[1,0]<stdout>:" + l)
		b.WriteString("[1,1]<stdout>:" + l)
	}
	b.WriteString("\n")
	p := filepath.Join(dir, "mpirun.log")
	os.WriteFile(p, []byte(b.String()), 0o644)
	if code, out, _ := runIn(t, "", "guard", p); code != 0 {
		t.Errorf("two clean ranks in one file: exit %d\n%s", code, out)
	}
	// torchrun: rank 1 recompiles, with JAX's explanation interleaved with rank 0's lines.
	log := "[rank0]:Compiling jit(step) with global shapes and types (ShapedArray(float32[32,8]),). Argument mapping: (UnspecifiedValue,).\n" +
		"[rank1]:Compiling jit(step) with global shapes and types (ShapedArray(float32[32,8]),). Argument mapping: (UnspecifiedValue,).\n" +
		"[rank0]:Finished XLA compilation of jit(step) in 0.1 sec\n" +
		"[rank1]:Finished XLA compilation of jit(step) in 0.1 sec\n" +
		"[rank1]:TRACING CACHE MISS at /w/train.py:64:12 (main):\n" +
		"[rank0]:step 2 loss 0.5\n" +
		"[rank1]:  for step defined at /w/train.py:20\n" +
		"[rank0]:step 3 loss 0.4\n" +
		"[rank1]:  all previously seen cache keys differ. For the closest previous key:\n" +
		"[rank1]:  different input types:\n" +
		"[rank1]:  * at x, now f32[24,8] and before f32[32,8]\n" +
		"[rank1]:Compiling jit(step) with global shapes and types (ShapedArray(float32[24,8]),). Argument mapping: (UnspecifiedValue,).\n" +
		"[rank1]:Finished XLA compilation of jit(step) in 0.1 sec\n"
	p = filepath.Join(dir, "torchrun.log")
	os.WriteFile(p, []byte(log), 0o644)
	code, out, _ := runIn(t, "", "guard", p)
	if code != exitFound || !strings.Contains(out, "torchrun.log:12  jit_step") || !strings.Contains(out, "now f32[24,8] and before f32[32,8]") ||
		!strings.Contains(out, "1 compilation(s) after warm-up") {
		t.Errorf("rank 1 recompiles: exit %d\n%s", code, out)
	}
}

// --warmup N counts the program's own compilations: a real JAX run's 25 eager one-op programs
// (initialisation outside jit) neither end the warm-up nor fail it (issue 20.2).
func TestWarmupCountsTheProgramsOwnCompilations(t *testing.T) {
	log := "../../testdata/runs/jax-0.12/eager-init/run.log"
	if code, out, _ := runIn(t, "", "guard", "--warmup", "1", log); code != 0 || !strings.Contains(out, "PASS: 0 compilation(s) after warm-up") {
		t.Errorf("--warmup 1: exit %d\n%s", code, out)
	}
	if code, out, _ := runIn(t, "", "guard", "--warmup", "2", log); code != exitUsage || !strings.Contains(out, "the warm-up never ended") {
		t.Errorf("--warmup 2 of one program: exit %d\n%s", code, out)
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
		if strings.ContainsAny(out, "\x1b") || strings.Contains(out, "\xff") || strings.Contains(out, "\n::stop") {
			t.Errorf("%s: the odd name is printed raw:\n%q", f, out)
		}
		switch f {
		case "text":
			for _, want := range []string{`jit_train_step\n::stop-commands::x\x1b[31m\xff.before_optimizations.txt`,
				"batch_size: batch size", `warning: ` + dump + `/notes\x1b[2J.txt: skipped: `} {
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
	if code != exitUsage || strings.ContainsAny(stderr, "\x1b") || strings.Contains(stderr, "\xff") || !strings.Contains(stderr, `\x1b[31m\xff`) {
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

// A log of more module families than a process accounts one by one (ledger.MaxFamilies) is
// scanned and gated in full, says what it does not list, and gives no baseline that would
// miss families.
func TestManyFamilies(t *testing.T) {
	dir := t.TempDir()
	var log strings.Builder
	for i := range 2 * (ledger.MaxFamilies + 10) {
		fmt.Fprintf(&log, "Begin XLA compilation: cluster_%d  (Hash: 0x%x) for ordinal  0\n", i%(ledger.MaxFamilies+10), i)
	}
	p := filepath.Join(dir, "families.log")
	os.WriteFile(p, []byte(log.String()), 0o644)
	code, out, _ := runIn(t, "", "guard", "--format", "json", p)
	var doc report.ScanJSON
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if code != exitFound || doc.Gate.FailureCount != ledger.MaxFamilies+10 || len(doc.Modules) != ledger.MaxFamilies ||
		doc.Summary.FamiliesNotListed != 10 || doc.Summary.RecompilationsNL != 10 {
		t.Errorf("exit %d, %d failures, %d modules, summary %+v", code, doc.Gate.FailureCount, len(doc.Modules), doc.Summary)
	}
	code, _, stderr := runIn(t, "", "guard", "--write-baseline", filepath.Join(dir, "base.json"), p)
	if code != exitUsage || !strings.Contains(stderr, "not writing a baseline: 10 module families beyond the first 10000") {
		t.Errorf("baseline: exit %d, %q", code, stderr)
	}
}
