package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/go-hclog"
)

// sessionFolder is a run folder recomp session open made, holding the log and dump of the
// example run partial-batch (jit_train_step compiled again: the batch took 32 then 24), or its
// dump alone with an empty log.
func sessionFolder(t *testing.T, withLog bool) string {
	t.Helper()
	return sessionFolderLog(t, withLog, "")
}

// sessionFolderLog is sessionFolder with log as its run.log when it is not "".
func sessionFolderLog(t *testing.T, withLog bool, log string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "run")
	if code, _, errb := runRecomp("session", "open", "--out", dir, "--", "pytest"); code != 0 {
		t.Fatalf("session open: exit %d: %s", code, errb)
	}
	src := "../../testdata/runs/jax-0.12/partial-batch"
	if withLog {
		b, err := os.ReadFile(filepath.Join(src, "run.log"))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "run.log"), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if log != "" {
		if err := os.WriteFile(filepath.Join(dir, "run.log"), []byte(log), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	dumps, _ := filepath.Glob(filepath.Join(src, "dump", "*"))
	if err := os.MkdirAll(filepath.Join(dir, "dump"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, d := range dumps {
		b, err := os.ReadFile(d)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "dump", filepath.Base(d)), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

type closed struct {
	ExitCode int      `json:"exit_code"`
	Programs []string `json:"programs"`
	Unblamed []string `json:"unblamed"`
	Unjudged int      `json:"unjudged"`
	Report   struct {
		Version int `json:"version"`
		Verdict struct {
			Programs []struct {
				Program string `json:"program"`
				Causes  []struct {
					Kind  string `json:"kind"`
					Label string `json:"label"`
				} `json:"causes"`
			} `json:"programs"`
		} `json:"verdict"`
	} `json:"report"`
}

func sessionRun(t *testing.T, stdin string, args ...string) (int, closed, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := runWith(args, strings.NewReader(stdin), &out, &errb)
	var c closed
	if code == 0 && out.Len() > 0 {
		if err := json.Unmarshal(out.Bytes(), &c); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, out.Bytes())
		}
		if !strings.Contains(out.String(), `"unblamed":[`) || !strings.Contains(out.String(), `"programs":[`) {
			t.Errorf("%v: a list is null: %s", args, out.Bytes())
		}
	}
	return code, c, errb.String()
}

func manifestExit(t *testing.T, dir string) (int, bool) {
	t.Helper()
	var m struct {
		ExitCode int  `json:"exit_code"`
		Running  bool `json:"running"`
	}
	b, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err != nil || json.Unmarshal(b, &m) != nil {
		t.Fatalf("manifest: %v\n%s", err, b)
	}
	return m.ExitCode, m.Running
}

// recomp session close --report --judge, the one call a pytest --recomp session ends with:
// the final manifest, recomp's answer on the folder, the programs of the records the tests
// were seen compiling, and a program compiled after warm-up that none of them is fails a
// session that passed (exit 1, in the manifest too).
func TestSessionCloseJudges(t *testing.T) {
	const named = `[{"framework": "jax", "name": "jit(train_step)"}]`
	for _, c := range []struct {
		name, stdin string
		withLog     bool
		exit        string
		want        int
		unblamed    []string
		unjudged    int
	}{
		{"unblamed", `[]`, true, "0", 1, []string{"jit_train_step"}, 0},
		{"named", named, true, "0", 0, []string{}, 0},
		{"no tests collected", `[]`, true, "5", 1, []string{"jit_train_step"}, 0},
		{"pytest failed already", `[]`, true, "2", 2, []string{"jit_train_step"}, 0},
		{"unjudged", named, false, "0", 1, []string{}, 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := sessionFolder(t, c.withLog)
			code, got, errb := sessionRun(t, c.stdin, "session", "close", "--exit", c.exit, "--report", "--judge", dir)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errb)
			}
			if got.ExitCode != c.want || !slices.Equal(got.Unblamed, c.unblamed) || got.Unjudged != c.unjudged || got.Report.Version != 2 {
				t.Errorf("exit_code %d unblamed %q unjudged %d version %d, want %d %q %d 2", got.ExitCode, got.Unblamed, got.Unjudged, got.Report.Version, c.want, c.unblamed, c.unjudged)
			}
			if m, running := manifestExit(t, dir); m != c.want || running {
				t.Errorf("manifest: exit_code %d running %v, want %d", m, running, c.want)
			}
			if _, err := os.Stat(filepath.Join(dir, ".recomp-probe")); err == nil {
				t.Error("the probe was left in the folder")
			}
			if c.stdin == named && !slices.Equal(got.Programs, []string{"jit_train_step"}) {
				t.Errorf("programs %q", got.Programs)
			}
			if c.withLog {
				p := got.Report.Verdict.Programs
				if len(p) != 1 || p[0].Program != "jit_train_step" || len(p[0].Causes) == 0 || p[0].Causes[0].Kind != "batch_size" || p[0].Causes[0].Label != "batch size" {
					t.Errorf("verdict: %+v", p)
				}
			}
		})
	}
	// A TF suite under pytest: its log holds tf.function's retracing warning, and TF's C++
	// lines of each XLA compilation went to the standard error pytest takes: the dump holds the
	// modules, and nothing says how often they compiled. The session is not judged: it fails.
	const retraced = "2026-12-02T13:43:09.643489Z WARNING:2026-12-02 13:43:09,643:tensorflow:157: 5 out of the last 5 calls to <function predict at 0x7fa180411760> triggered tf.function retracing. Tracing is expensive.\n"
	tf := sessionFolderLog(t, false, retraced)
	if code, got, errb := sessionRun(t, `[]`, "session", "close", "--report", "--judge", tf); code != 0 || got.ExitCode != 1 || got.Unjudged != 2 {
		t.Errorf("a TF log of retraces: exit %d, %+v: %s", code, got, errb)
	}
	// Without --judge the exit code stays; without --report nothing is printed.
	dir := sessionFolder(t, true)
	if code, got, errb := sessionRun(t, `[]`, "session", "close", "--exit", "0", "--report", dir); code != 0 || got.ExitCode != 0 || !slices.Equal(got.Unblamed, []string{"jit_train_step"}) {
		t.Errorf("--report alone: exit %d, %+v: %s", code, got, errb)
	}
	if m, _ := manifestExit(t, dir); m != 0 {
		t.Errorf("--report alone: the manifest says %d", m)
	}
	var out bytes.Buffer
	if code := runWith([]string{"session", "close", "--exit", "3", dir}, strings.NewReader(""), &out, &bytes.Buffer{}); code != 0 || out.Len() != 0 {
		t.Errorf("close: exit %d, printed %q", code, out.String())
	}
	if m, _ := manifestExit(t, dir); m != 3 {
		t.Errorf("close --exit 3: the manifest says %d", m)
	}
	// Bad input: a clear usage error.
	for _, c := range []struct {
		stdin string
		args  []string
		want  string
	}{
		{`[]`, []string{"session", "close", "--judge", dir}, "--judge needs --report"},
		{`{"framework":`, []string{"session", "close", "--report", dir}, "session close: stdin:"},
		{`nope`, []string{"session", "report", dir}, "session report: stdin:"},
		{`[]`, []string{"session", "close", "--report", filepath.Join(dir, "absent")}, "absent"},
	} {
		if code, _, errb := sessionRun(t, c.stdin, c.args...); code != exitUsage || !strings.Contains(errb, c.want) {
			t.Errorf("%v: exit %d, %q lacks %q", c.args, code, errb, c.want)
		}
	}
}

// recomp session report: a failing test's one call, the programs of its records and recomp's
// answer on the folder so far, the manifest left as it is.
func TestSessionReport(t *testing.T) {
	dir := sessionFolder(t, true)
	code, got, errb := sessionRun(t, `[{"framework": "jax", "name": "jit(train_step)"}, {"framework": "jax", "name": "jit(other)"}]`, "session", "report", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb)
	}
	if !slices.Equal(got.Programs, []string{"jit_train_step", "jit_other"}) || len(got.Unblamed) != 0 || len(got.Report.Verdict.Programs) != 1 {
		t.Errorf("%+v", got)
	}
	if _, running := manifestExit(t, dir); !running {
		t.Error("session report closed the folder")
	}
}

// session open --stay: the open's JSON on one line, then the one session command read on stdin
// run in the same process (the pytest plugin's close: one start of the binary a session), its
// exit code the process's; an end of input exits 0 with the folder left open; a command that
// is not a later session command is refused.
func TestSessionOpenStay(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	req := `{"args": ["session", "close", "--exit", "3", "--report", "--judge", "` + dir + `"], "stdin": "[]"}` + "\n"
	var out, errb bytes.Buffer
	if code := runWith([]string{"session", "open", "--out", dir, "--stay", "--", "pytest"}, strings.NewReader(req), &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	first, rest, ok := strings.Cut(out.String(), "\n")
	var opened struct {
		Folder string            `json:"folder"`
		Env    map[string]string `json:"env"`
	}
	if !ok || json.Unmarshal([]byte(first), &opened) != nil || opened.Folder != dir || opened.Env["RECOMP_PROBE_OUT"] == "" {
		t.Fatalf("the open's line: %q", first)
	}
	var c closed
	if err := json.Unmarshal([]byte(rest), &c); err != nil || c.ExitCode != 3 || c.Report.Version != 2 {
		t.Errorf("the close's answer: %+v (%v)\n%s", c, err, rest)
	}
	if code, running := manifestExit(t, dir); code != 3 || running {
		t.Errorf("manifest: exit %d, running %v; want 3, closed", code, running)
	}

	// The process that started it ended without closing: nothing more is done.
	dir2 := filepath.Join(t.TempDir(), "run")
	out.Reset()
	if code := runWith([]string{"session", "open", "--out", dir2, "--stay", "--", "pytest"}, strings.NewReader(""), &out, &errb); code != 0 || strings.Count(out.String(), "\n") != 1 {
		t.Errorf("end of input: exit %d, output %q", code, out.String())
	}
	if _, running := manifestExit(t, dir2); !running {
		t.Error("end of input: the folder was closed")
	}

	// The close's own exit code is the process's; what is not a later session command is refused.
	for _, c := range []struct {
		req  string
		want int
	}{
		{`{"args": ["session", "close", "` + filepath.Join(t.TempDir(), "none") + `"]}`, exitUsage},
		{`{"args": ["scan", "` + dir + `"]}`, exitUsage},
		{`{"args": ["session", "open", "--out", "x"]}`, exitUsage},
		{`not json`, exitUsage},
	} {
		errb.Reset()
		code := runWith([]string{"session", "open", "--out", filepath.Join(t.TempDir(), "run"), "--stay", "--", "pytest"}, strings.NewReader(c.req+"\n"), io.Discard, &errb)
		if code != c.want || errb.Len() == 0 {
			t.Errorf("%s: exit %d (%q), want %d and a message", c.req, code, errb.String(), c.want)
		}
	}
}

// The close's warm-up (warmClose, run while a session open --stay waits) only reads: on a folder
// of garbage (a log of binary noise, a dump that does not parse, a manifest that is not JSON) it
// writes nothing into the folder nor to the command's output, and does not panic.
func TestWarmCloseOnlyReads(t *testing.T) {
	dir := t.TempDir()
	for name, data := range map[string]string{"run.log": "\x00\xff\x1b[2J\nCompiling jit(f) with global shapes and types [\n",
		"manifest.json": "{not json", "probe.jsonl": "{\"framework\": \"jax\", \"event\":\n", "dump/module_0001.jit_f.before_optimizations.txt": "HloModule jit_f\n\nENTRY %main (",
	} {
		os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755)
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	listing := func() string {
		var b strings.Builder
		filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			info, _ := d.Info()
			fmt.Fprintf(&b, "%s %d %v\n", p, info.Size(), info.ModTime())
			return nil
		})
		return b.String()
	}
	before := listing()
	var out, errb bytes.Buffer
	warmClose(dir, &env{stdout: &out, stderr: &errb, log: hclog.New(&hclog.LoggerOptions{Output: &errb, Level: hclog.Trace}), maxHLO: 64 << 20})
	if after := listing(); after != before || out.Len() > 0 || errb.Len() > 0 {
		t.Errorf("warmClose wrote: folder\n%s\nthen\n%s\nstdout %q stderr %q", before, after, out.String(), errb.String())
	}
}
