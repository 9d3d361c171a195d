package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/recomp/recomp/internal/corpus"
	"github.com/recomp/recomp/internal/golden"
	"github.com/recomp/recomp/internal/skipped"
	"github.com/recomp/recomp/report"
	"github.com/recomp/recomp/runner"

	"github.com/rogpeppe/go-internal/testscript"
)

// mainFunc is a TestingM that runs the tests its way.
type mainFunc func() int

func (f mainFunc) Run() int { return f() }

func TestMain(m *testing.M) {
	if runner.IsWatchdog() { // a recomp run in this test binary started it as its watchdog
		os.Exit(runner.Watchdog(os.Stdin))
	}
	testscript.Main(mainFunc(func() int { return skipped.Main(m) }), map[string]func(){
		"recomp": func() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) },
	})
}

// TestScripts runs the end-to-end scripts: each command's output, in each format, compared
// whole with the golden files in its script (go test ./cmd/recomp -run TestScripts -update
// rewrites them).
func TestScripts(t *testing.T) {
	root, _ := filepath.Abs("../..")
	testscript.Run(t, testscript.Params{
		Dir:           "testdata/script",
		UpdateScripts: golden.Update(),
		Setup: func(e *testscript.Env) error {
			e.Setenv("ROOT", root)
			e.Setenv("NO_COLOR", "1")
			// The example runs as runs/…: outputs name them the same on every machine.
			return os.Symlink(filepath.Join(root, "testdata", "runs"), filepath.Join(e.WorkDir, "runs"))
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			// setmtime TIME FILE...: a fixed modification time, so that listings are golden.
			"setmtime": func(ts *testscript.TestScript, neg bool, args []string) {
				if len(args) < 2 {
					ts.Fatalf("usage: setmtime RFC3339 FILE...")
				}
				tm, err := time.Parse(time.RFC3339, args[0])
				ts.Check(err)
				for _, f := range args[1:] {
					ts.Check(os.Chtimes(ts.MkAbs(f), tm, tm))
				}
			},
		},
	})
}

const example = "../../testdata/runs/ipu-partial-batch"

func runRecomp(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := run(args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestExitCodes(t *testing.T) {
	dir := t.TempDir()
	gz := filepath.Join(dir, "run.log.gz")
	src, _ := os.ReadFile(example + "/run.log")
	var zb bytes.Buffer
	zw := gzip.NewWriter(&zb)
	zw.Write(src)
	zw.Close()
	os.WriteFile(gz, zb.Bytes(), 0o644)
	hloA := example + "/dump/module_0003.a_inference_train_step_101__XlaMustCompile_true__.12.before_optimizations.txt"
	hloB := example + "/dump/module_0011.a_inference_train_step_377__XlaMustCompile_true__.57.before_optimizations.txt"
	for _, c := range []struct {
		args []string
		code int
		err  string
	}{
		{[]string{"scan", example + "/run.log"}, 0, ""},
		{[]string{"scan", gz}, 0, ""},
		{[]string{"scan", "--format", "yaml", example + "/run.log"}, 2, "--format"},
		{[]string{"scan", "missing.log"}, 2, "missing.log"},
		{[]string{"scan", dir}, 2, "is a directory"},
		{[]string{"scan", "--warmup", "1", "--after", "x", example + "/run.log"}, 2, "exclusive"},
		{[]string{"scan", "--after", "(", example + "/run.log"}, 2, "--after"},
		{[]string{"--log-level", "loud", "scan", example + "/run.log"}, 2, "--log-level"},
		{[]string{"diff", hloA, hloA}, 0, ""},
		{[]string{"diff", hloA, hloB}, 1, ""},
		{[]string{"diff", example + "/dump", example + "/dump"}, 0, ""},
		{[]string{"diff", hloA, "nope"}, 2, "nope"},
		{[]string{"explain", example + "/dump"}, 1, ""},
		{[]string{"explain", dir}, 2, "no HLO text files"},
		{[]string{"hlo", "check", hloA}, 0, ""},
		{[]string{"hlo", "check", example + "/run.log"}, 2, "run.log:1:1"},
		{[]string{"bogus"}, 2, "unexpected argument"},
		{[]string{}, 2, ""},
	} {
		code, _, stderr := runRecomp(c.args...)
		if code != c.code || !strings.Contains(stderr, c.err) {
			t.Errorf("recomp %s: exit %d (want %d), stderr %q (want %q)", strings.Join(c.args, " "), code, c.code, stderr, c.err)
		}
	}
}

// TestHelpExitsZero checks that --help prints usage to stdout and exits 0 (not kong's own exit).
func TestHelpExitsZero(t *testing.T) {
	code, out, _ := runRecomp("scan", "--help")
	if code != 0 || !strings.Contains(out, "Usage: recomp scan") {
		t.Errorf("help: exit %d, %q", code, out)
	}
}

// TestScanJSONContract checks the documented JSON shape: version, [] never null.
func TestScanJSONContract(t *testing.T) {
	code, out, _ := runRecomp("scan", "--format", "json", filepath.Join(corpus.Dir(t, "corpus/logs"), "poprun-exit.log"))
	if code != 0 {
		t.Fatalf("scan exit %d", code)
	}
	for _, want := range []string{`"version": 2`, `"modules": []`, `"events": []`, `"kind": "no_compile_evidence"`, `"warnings": []`} {
		if !strings.Contains(out, want) {
			t.Errorf("json lacks %s:\n%s", want, out)
		}
	}
	code, out, _ = runRecomp("scan", "--format", "json", example+"/run.log")
	var doc report.ScanJSON
	if err := json.Unmarshal([]byte(out), &doc); err != nil || code != 0 {
		t.Fatalf("exit %d: %v", code, err)
	}
	s := doc.Summary
	if s.CompileRequests != 3 || s.Compilations != 2 || s.CacheHits != 1 || s.CacheMisses != 2 || s.ExecutableLoads != 5 ||
		s.Recompilations != 1 || s.CompileSeconds != 168 || s.LoadSeconds != 2.924 {
		t.Errorf("summary %+v", s)
	}
	if len(doc.Modules) != 2 || doc.Modules[0].Family != "a_inference_train_step_N__XlaMustCompile_true__" || len(doc.Modules[0].Hashes) != 2 {
		t.Errorf("modules %+v", doc.Modules)
	}
}

func TestDiffJSONContract(t *testing.T) {
	code, out, _ := runRecomp("diff", "--format", "json", example+"/dump", example+"/dump")
	var doc report.DiffJSON
	if err := json.Unmarshal([]byte(out), &doc); err != nil || code != 0 {
		t.Fatalf("exit %d: %v", code, err)
	}
	if doc.Version != report.JSONVersion || len(doc.Pairs) != 3 || doc.Unpaired.A == nil || !doc.Pairs[0].Identical || doc.Pairs[0].Causes[0].Kind != "identical" {
		t.Errorf("doc %+v", doc)
	}
	if !strings.Contains(out, `"changes": []`) || !strings.Contains(out, `"a": []`) {
		t.Errorf("empty lists must be []: %s", out)
	}
}
