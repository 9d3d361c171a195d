package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Round 3 (issue 28): each test here failed before its fix.

// The Markdown form of recomp cache's rm command is a code span holding the command exactly as
// the JSON gives it: a backtick in a path stays a backtick.
func TestCacheMarkdownKeepsBackticks(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "c`ache``x")
	os.Mkdir(dir, 0o755)
	for _, n := range []string{"abc.poplar_exec", "def.poplar_exec"} {
		os.WriteFile(filepath.Join(dir, n), []byte("x"), 0o644)
	}
	log := filepath.Join(t.TempDir(), "run.log")
	os.WriteFile(log, []byte("Loaded m from /c/abc.poplar_exec\n"), 0o644)
	_, js, _ := runIn(t, "", "cache", "--format", "json", dir, "--log", log)
	var doc struct {
		Prune string `json:"prune_command"`
	}
	if err := json.Unmarshal([]byte(js), &doc); err != nil || !strings.Contains(doc.Prune, "`") {
		t.Fatalf("json: %v, prune %q", err, doc.Prune)
	}
	_, md, _ := runIn(t, "", "cache", "--format", "markdown", dir, "--log", log)
	var item string
	for _, l := range strings.Split(md, "\n") {
		if strings.Contains(l, "rm --") {
			item = strings.TrimPrefix(l, "- ")
		}
	}
	// A code span: n backticks, a space, the text, a space, n backticks (CommonMark).
	n := len(item) - len(strings.TrimLeft(item, "`"))
	fence := strings.Repeat("`", n)
	if n == 0 || !strings.HasSuffix(item, fence) {
		t.Fatalf("the rm command is not a code span: %q", item)
	}
	got := strings.TrimSuffix(strings.TrimPrefix(item, fence), fence)
	if strings.HasPrefix(got, " ") && strings.HasSuffix(got, " ") {
		got = got[1 : len(got)-1]
	}
	if got != doc.Prune {
		t.Errorf("markdown shows %q, the command is %q", got, doc.Prune)
	}
}

// A baseline is read up to a cap: a 1 GiB file is refused, not read whole.
func TestBaselineCapped(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "run.log")
	os.WriteFile(log, []byte(goodLog), 0o644)
	base := filepath.Join(dir, "base.json")
	f, _ := os.Create(base)
	f.WriteString(`{"version": 1, "families": {"`)
	f.Truncate(1 << 30) // sparse
	f.Close()
	code, _, stderr := runIn(t, "", "guard", "--baseline", base, log)
	if code != exitUsage || !strings.Contains(stderr, "larger than") {
		t.Errorf("exit %d: %s", code, stderr)
	}
}

// The user's command runs once: a shell script named python3 is not run again to ask it for
// versions, and the user's sitecustomize does not run again for the version query (the probe
// off, the real interpreter asked with -S).
func TestRunNeverRunsTheCommandTwice(t *testing.T) {
	dir := t.TempDir()
	marker := filepath.Join(dir, "ran")
	script := filepath.Join(dir, "python3")
	os.WriteFile(script, []byte("#!/bin/sh\necho \"$@\" >> "+marker+"\n"), 0o755)
	code, _, stderr := runIn(t, "", "run", "--out", filepath.Join(dir, "r1"), "--", script, "train")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	if b, _ := os.ReadFile(marker); strings.Count(string(b), "\n") != 1 {
		t.Errorf("the command ran %d times: %q", strings.Count(string(b), "\n"), b)
	}

	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("no python3")
	}
	out, err := exec.Command(py, "-c", "import sys; print(sys.executable)").Output()
	if err != nil {
		t.Skip(err)
	}
	real := strings.TrimSpace(string(out))
	user := filepath.Join(dir, "user")
	os.Mkdir(user, 0o755)
	marker2 := filepath.Join(dir, "site-ran")
	os.WriteFile(filepath.Join(user, "sitecustomize.py"), []byte("open("+strconv.Quote(marker2)+", 'a').write('x\\n')\n"), 0o644)
	t.Setenv("PYTHONPATH", user)
	code, _, stderr = runIn(t, "", "run", "--probe=false", "--out", filepath.Join(dir, "r2"), "--", real, "-c", "pass")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	if b, _ := os.ReadFile(marker2); strings.Count(string(b), "\n") != 1 {
		t.Errorf("the user's sitecustomize ran %d times", strings.Count(string(b), "\n"))
	}
}

// The user's own XLA_FLAGS=--xla_dump_to=DIR is kept (XLA takes the last --xla_dump_to: recomp
// adds none), the dump is read from DIR, and nothing in it is deleted, the modules after
// optimisation included.
func TestRunKeepsTheUsersDump(t *testing.T) {
	src, _ := filepath.Abs(jaxRun)
	work := t.TempDir()
	user := filepath.Join(work, "mydump")
	// A stand-in for XLA: dumps into the last --xla_dump_to its XLA_FLAGS name.
	script := `for f in $XLA_FLAGS; do case $f in --xla_dump_to=*) d=${f#--xla_dump_to=};; esac; done
mkdir -p "$d" && cp "` + src + `"/dump/* "$d"/ && echo after > "$d/module_0000.jit_train_step.after_optimizations.txt"
cat "` + src + `/run.log"`
	t.Setenv("XLA_FLAGS", "--xla_dump_to="+user)
	dir := filepath.Join(work, "run")
	code, _, stderr := runIn(t, "", "run", "--out", dir, "--", "sh", "-c", script)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	entries, _ := os.ReadDir(user)
	if len(entries) != 3 {
		t.Fatalf("your dump folder holds %d files, want the 3 written (the XLA flags were overridden?)", len(entries))
	}
	if _, err := os.Stat(filepath.Join(user, "module_0000.jit_train_step.after_optimizations.txt")); err != nil {
		t.Errorf("the module after optimisation you asked for was deleted: %v", err)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "manifest.json"))
	var m struct {
		DumpDir string `json:"dump_dir"`
	}
	json.Unmarshal(b, &m)
	if m.DumpDir != user {
		t.Errorf("manifest dump_dir %q, want %s", m.DumpDir, user)
	}
	code, out, stderr := runIn(t, "", "explain", "--format", "json", dir)
	if code == exitUsage || !strings.Contains(out, "module_0002.jit_train_step") {
		t.Errorf("explain on the run folder did not read your dump: exit %d\n%s\n%s", code, out, stderr)
	}
}

// python -I (or -E, -S) never loads the probe: the summary and the report say so.
func TestRunSaysTheProbeDidNotLoad(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("no python3")
	}
	dir := filepath.Join(t.TempDir(), "run")
	code, _, stderr := runIn(t, "", "run", "--out", dir, "--", py, "-I", "-c", "print('hello')")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	if !strings.Contains(stderr, "probe did not load") || !strings.Contains(stderr, "-I") {
		t.Errorf("the summary says nothing of the probe's absence:\n%s", stderr)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "report.md")); !strings.Contains(string(b), "probe did not load") {
		t.Errorf("report.md says nothing of the probe's absence")
	}
}
