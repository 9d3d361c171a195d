package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/recomp/recomp/internal/follow"
	"github.com/recomp/recomp/live"
	"github.com/recomp/recomp/runfolder"
)

// Round 4 (issue 43), classes 5 and 6.

// Class 5: two commands that differ only in a byte that is not UTF-8 are told apart in the run
// folder's manifest and in report.json, and the manifest reads back as the command ran.
func TestRunKeepsArgumentBytes(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	args := []string{"true", "caf\xe9", "caf\xe8"}
	code, _, stderr := runIn(t, "", append([]string{"run", "--out", dir, "--"}, args...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	m, err := runfolder.ReadManifest(filepath.Join(dir, runfolder.ManifestName))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(m.Command, args) {
		t.Errorf("manifest command %q, ran %q", m.Command, args)
	}
	for _, name := range []string{runfolder.ManifestName, "report.json"} {
		b, _ := os.ReadFile(filepath.Join(dir, name))
		if !bytes.Contains(b, []byte(`"caf\udce9"`)) || !bytes.Contains(b, []byte(`"caf\udce8"`)) {
			t.Errorf("%s does not tell the arguments apart:\n%s", name, b)
		}
	}
}

// Class 6c: the rm command recomp cache proposes, in every format, names exactly the entries
// it lists, whatever their folders' names hold: the shell reads each path back byte for byte
// from the command as the text, the Markdown (inside its code span) and the JSON give it.
func TestCacheRemovalCommandHostilePaths(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	names := []string{"c`ache``x", "`lead", "trail`", " space ", "it's", `back\slash`, "$(touch pwned)", "a;b|c&d",
		"a##[b", "::warning::x", "new\nline", "cr\rx", "esc\x1b[31mred", "tab\tx", "del\x7f", "c1\u0085x",
		"bidi\u202eevil", "latin\xe9", "bad\xff\xfe", "star*_x_*", "<b>&amp;", "[link](x)", "@user #12", "é ü 日本"}
	root := t.TempDir()
	var dirs, want []string
	for i, n := range names {
		d := filepath.Join(root, fmt.Sprintf("%02d%s", i, n))
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(d, "abc.poplar_exec"), []byte("x"), 0o644)
		os.WriteFile(filepath.Join(d, "def.poplar_exec"), []byte("x"), 0o644)
		dirs = append(dirs, d)
		want = append(want, filepath.Join(d, "def.poplar_exec"))
	}
	sort.Strings(want)
	log := filepath.Join(t.TempDir(), "run.log")
	os.WriteFile(log, []byte("Loaded m from /c/abc.poplar_exec\n"), 0o644)
	// args evaluates the command's arguments (after "rm --") in bash, as the user would.
	args := func(cmd string) []string {
		rest, ok := strings.CutPrefix(cmd, "rm -- ")
		if !ok {
			t.Fatalf("not an rm command: %q", cmd)
		}
		out, err := exec.Command(bash, "-c", "set -- "+rest+"; printf '%s\\0' \"$@\"").Output()
		if err != nil {
			t.Fatalf("bash: %v on %q", err, rest)
		}
		got := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
		sort.Strings(got)
		return got
	}
	run := func(format string) string {
		code, out, stderr := runIn(t, "", append(append([]string{"cache", "--format", format}, dirs...), "--log", log)...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", format, code, stderr)
		}
		return out
	}
	var doc struct {
		Prune string `json:"prune_command"`
	}
	if err := json.Unmarshal([]byte(run("json")), &doc); err != nil {
		t.Fatal(err)
	}
	cmds := map[string]string{"json": doc.Prune}
	for _, l := range strings.Split(run("text"), "\n") {
		if s := strings.TrimSpace(l); strings.HasPrefix(s, "rm -- ") {
			cmds["text"] = s
		}
	}
	for _, l := range strings.Split(run("markdown"), "\n") {
		item, ok := strings.CutPrefix(l, "- ")
		if !ok || !strings.Contains(item, "rm -- ") {
			continue
		}
		// A code span: n backticks, the text (a space each side stripped when both are there), n backticks.
		n := len(item) - len(strings.TrimLeft(item, "`"))
		fence := strings.Repeat("`", n)
		if n == 0 || !strings.HasSuffix(item, fence) || strings.Contains(item[n:len(item)-n], fence+"`") {
			t.Fatalf("the rm command is not one code span: %q", item)
		}
		code := item[n : len(item)-n]
		if len(code) > 1 && code[0] == ' ' && code[len(code)-1] == ' ' {
			code = code[1 : len(code)-1]
		}
		cmds["markdown"] = code
	}
	for _, f := range []string{"json", "text", "markdown"} {
		cmd, ok := cmds[f]
		if !ok {
			t.Errorf("%s: no rm command", f)
			continue
		}
		if got := args(cmd); !reflect.DeepEqual(got, want) {
			for i := range min(len(got), len(want)) {
				if got[i] != want[i] {
					t.Errorf("%s: the shell reads %q, the entry is %q", f, got[i], want[i])
				}
			}
			if len(got) != len(want) {
				t.Errorf("%s: %d paths, want %d", f, len(got), len(want))
			}
		}
	}
}

// Class 6b: one process's log rotated into parts and given together (by a rotator's names, or
// parts whose records continue one process's thread and clock) is announced at the top of scan's
// answer and makes ranks inconclusive (exit 2), not two ranks that diverged (exit 1).
func TestRotatedLogAnnounced(t *testing.T) {
	part := func(minute int, hash string) string {
		return fmt.Sprintf("I1202 00:%02d:01.000000 12345 x.cc:1] Begin XLA compilation: cluster_1.4  (Hash: %s) for ordinal  0\n"+
			"I1202 00:%02d:02.000000 12345 x.cc:1] Begin compiling Poplar engine cluster_1.4\n"+
			"I1202 00:%02d:03.000000 12345 x.cc:1] End compiling Poplar engine.\n", minute, hash, minute, minute)
	}
	for _, names := range [][2]string{
		{"train.log.1", "train.log"},             // RotatingFileHandler, logrotate
		{"train.log-20261201", "train.log"},      // logrotate's dateext
		{"train.log.2026-12-01_23", "train.log"}, // TimedRotatingFileHandler
		{"part-a.txt", "part-b.txt"},             // no rotator's name: the records continue
	} {
		dir := t.TempDir()
		older, newer := filepath.Join(dir, names[0]), filepath.Join(dir, names[1])
		os.WriteFile(older, []byte(part(0, "0xaaa")), 0o644)
		os.WriteFile(newer, []byte(part(10, "0xbbb")), 0o644)

		_, out, _ := runIn(t, "", "scan", newer, older)
		answer, _, _ := strings.Cut(out, "\n\n  compile requests")
		if !strings.Contains(answer, "look like one") {
			t.Errorf("%s: scan's answer does not say the logs are one log in parts:\n%s", names, out)
		}

		code, out, _ := runIn(t, "", "ranks", newer, older)
		if code != exitUsage || !strings.Contains(out, "INCONCLUSIVE") || !strings.Contains(out, "look like one") {
			t.Errorf("%s: ranks exit %d:\n%s", names, code, out)
		}
		_, js, _ := runIn(t, "", "ranks", "--format", "json", newer, older)
		var doc struct {
			Split [][]string `json:"split_logs"`
		}
		if err := json.Unmarshal([]byte(js), &doc); err != nil || len(doc.Split) != 1 || len(doc.Split[0]) != 2 {
			t.Errorf("%s: ranks json split_logs %v (%v)", names, doc.Split, err)
		}
	}
	// recomp watch, which follows such parts as logs of their own, says so in its summary.
	dir0 := t.TempDir()
	os.WriteFile(filepath.Join(dir0, "train.log.1"), []byte(part(0, "0xaaa")), 0o644)
	os.WriteFile(filepath.Join(dir0, "train.log"), []byte(part(10, "0xbbb")), 0o644)
	fl, err := follow.New([]string{dir0})
	if err != nil {
		t.Fatal(err)
	}
	defer fl.Close()
	var wout, wwarn bytes.Buffer
	w := live.NewWatcher(fl, live.WatchOptions{Out: &wout, Warn: &wwarn})
	w.Poll()
	w.Summary()
	if !strings.Contains(wout.String(), "look like one log rotated") {
		t.Errorf("watch says nothing of the rotated parts:\n%s", wout.String())
	}

	// Two ranks' logs are no rotation: ranks still fails on a rank that departed.
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "rank0.log"), []byte(strings.ReplaceAll(part(0, "0xaaa"), "12345", "22222")), 0o644)
	os.WriteFile(filepath.Join(dir, "rank1.log"), []byte(part(10, "0xbbb")), 0o644)
	if code, out, _ := runIn(t, "", "ranks", filepath.Join(dir, "rank0.log"), filepath.Join(dir, "rank1.log")); code != exitFound || strings.Contains(out, "look like one") {
		t.Errorf("two ranks: exit %d:\n%s", code, out)
	}
}
