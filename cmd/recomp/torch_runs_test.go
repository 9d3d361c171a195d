package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/recomp/recomp/ledger"
	"github.com/recomp/recomp/live"
	"github.com/recomp/recomp/report"
	"github.com/recomp/recomp/verdict"
)

// torchTruth is what a torch.compile run's truth.json adds (testdata/runs/gen/torch_runs.py):
// dynamo's own record of each compilation, and the recompile limit the program reached.
type torchTruth struct {
	Scenario string           `json:"scenario"`
	Logs     []string         `json:"logs"`
	Cause    *string          `json:"cause"`
	Recomp   []string         `json:"recompiled"`
	Compiles []torchCompile   `json:"compiles"`
	Dynamo   []torchCompile   `json:"dynamo_compiles"`
	Limit    *torchLimitTruth `json:"recompile_limit"`
	// RunFolder says the run is read as recomp run left it: the folder (run.log and trace/).
	RunFolder bool `json:"run_folder"`
	// PerMode is, for a program that ran in several modes (training, evaluation), how many times
	// each identity compiled: once per mode, no recompilation.
	PerMode *struct {
		Modes    []string       `json:"modes"`
		Compiled map[string]int `json:"compiled"`
	} `json:"per_mode"`
}

type torchCompile struct {
	Identity string  `json:"identity"`
	Log      string  `json:"log"`
	Seconds  float64 `json:"seconds"`
}

type torchLimitTruth struct {
	Identity   string `json:"identity"`
	Limit      int    `json:"limit"`
	Compiled   int    `json:"compiled"`
	EagerCalls int    `json:"eager_calls"`
}

// TestTorchRuns holds scan of each torch.compile run (its log, or its structured trace) to what
// the generic run checks leave out: the stack named, the cause the verdict leads with, every
// compilation's seconds from the trace within 1% of dynamo's own (the first one counted), and
// the recompile limit with its eager fallback.
func TestTorchRuns(t *testing.T) {
	files, _ := filepath.Glob("../../testdata/runs/torch-[0-9]*/*/truth.json")
	if len(files) == 0 {
		t.Skip("no torch.compile runs")
	}
	for _, f := range files {
		t.Run(filepath.Base(filepath.Dir(f)), func(t *testing.T) { checkTorchRun(t, f) })
	}
}

func checkTorchRun(t *testing.T, f string) {
	b, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	var tr torchTruth
	if err := json.Unmarshal(b, &tr); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Dir(f)
	args := []string{"scan", "--format", "json"}
	for _, l := range tr.Logs {
		args = append(args, filepath.Join(dir, l))
	}
	if tr.RunFolder {
		args = append(args[:3], dir)
	}
	code, out, stderr := runRecomp(args...)
	if code != 0 {
		t.Fatalf("scan exit %d: %s", code, stderr)
	}
	var doc report.ScanJSON
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	for _, p := range doc.Verdict.Programs {
		if p.Framework != "torch" {
			t.Errorf("%s: framework %q, want torch", p.Program, p.Framework)
		}
	}
	if tr.Cause != nil {
		found := false
		for _, p := range doc.Verdict.Programs {
			if len(tr.Recomp) > 0 && programName(p.Program) == programName(tr.Recomp[0]) {
				found = true
				if len(p.Causes) == 0 || p.Causes[0].Kind != *tr.Cause {
					t.Errorf("%s: causes %+v, want %s first", p.Program, p.Causes, *tr.Cause)
				}
			}
		}
		if !found {
			t.Errorf("no verdict for %v: %+v", tr.Recomp, doc.Verdict.Programs)
		}
	}
	if len(tr.Compiles) > 0 { // from the trace: each compilation's seconds, in order
		var got []float64
		for _, m := range doc.Modules {
			got = append(got, m.CompileSecondsEach...)
		}
		if len(got) != len(tr.Compiles) {
			t.Fatalf("compile seconds %v, dynamo's %+v", got, tr.Compiles)
		}
		for i, c := range tr.Compiles {
			if math.Abs(got[i]-c.Seconds) > 0.01*c.Seconds {
				t.Errorf("compilation %d: %.6f s, dynamo's entire_frame_compile_time_s %.6f s", i+1, got[i], c.Seconds)
			}
		}
	}
	if len(tr.Compiles) > 0 { // each trace folder as TORCH_TRACE left it, given as one input
		args := []string{"scan", "--format", "json"}
		for _, l := range tr.Logs {
			if d := filepath.Join(dir, filepath.Dir(l)); !slices.Contains(args, d) {
				args = append(args, d)
			}
		}
		_, out, _ := runRecomp(args...)
		var folder report.ScanJSON
		if err := json.Unmarshal([]byte(out), &folder); err != nil || folder.Summary.Compilations != len(tr.Compiles) ||
			folder.Summary.Recompilations != doc.Summary.Recompilations {
			t.Errorf("the trace folder: %v, %+v; want %d compilations", err, folder.Summary, len(tr.Compiles))
		}
	}
	if tr.RunFolder { // its log alone: the same compilations (dynamo's lines), none counted twice in the folder
		_, out, _ := runRecomp("scan", "--format", "json", filepath.Join(dir, "run.log"))
		var log report.ScanJSON
		if err := json.Unmarshal([]byte(out), &log); err != nil || log.Summary.Compilations != len(tr.Compiles) ||
			doc.Summary.Compilations != len(tr.Compiles) || log.Summary.Recompilations != doc.Summary.Recompilations {
			t.Errorf("run.log alone %v, %+v; the folder %+v; want %d compilations each", err, log.Summary, doc.Summary, len(tr.Compiles))
		}
	}
	if tr.PerMode != nil { // once per mode: told apart from a recompilation, in words
		_, text, _ := runRecomp("scan", filepath.Join(dir, tr.Logs[0]))
		for id := range tr.PerMode.Compiled {
			if !strings.Contains(text, id+" compiled once for each mode it ran in") || doc.Summary.Recompilations != 0 {
				t.Errorf("%s compiled once per mode (%v): recompilations %d, scan says:\n%s", id, tr.PerMode.Modes, doc.Summary.Recompilations, text)
			}
		}
	}
	if tr.Limit != nil {
		found := false
		for _, fd := range doc.Findings {
			// the calls run eagerly after the limit: dynamo records the limit once, so their number
			// is not in the log (the program counted tr.Limit.EagerCalls): the finding says so
			found = found || fd.Module == tr.Limit.Identity && strings.Contains(fd.Message, "recompile limit") && strings.Contains(fd.Message, "eagerly") &&
				strings.Contains(fd.Message, "how many more did is not recorded")
		}
		if !found || doc.Summary.Compilations != tr.Limit.Compiled {
			t.Errorf("compilations %d (dynamo %d); no finding of the limit with its eager fallback: %+v", doc.Summary.Compilations, tr.Limit.Compiled, doc.Findings)
		}
	}
}

// TestModuleModesRun holds the committed run of torch.compile(model) in two modes (trained, then
// evaluated under no_grad with a partial last batch) to one answer, live and at the end: torch's
// wrapper frame (external_utils' inner), which both modes call, is one program named by the
// program's line that first called it; its compilation for evaluation's grad mode is once per mode;
// its compilation for the evaluation's 4-row batch is the one recompilation, at the evaluation's
// line, with the remedy of a loop that computes no gradient (no row dropped).
func TestModuleModesRun(t *testing.T) {
	dir := "../../testdata/runs/torch-2.9/module-modes"
	if _, err := os.Stat(dir); err != nil {
		t.Skip("no module-modes run")
	}
	// the program as the truth names it (the line that first called the model), and the
	// evaluation's line in the generator
	var tr torchTruth
	if b, err := os.ReadFile(filepath.Join(dir, "truth.json")); err != nil || json.Unmarshal(b, &tr) != nil || len(tr.Recomp) != 1 {
		t.Fatalf("truth: %v %+v", err, tr)
	}
	program := tr.Recomp[0]
	src, err := os.ReadFile("../../testdata/runs/gen/torch_runs.py")
	if err != nil {
		t.Fatal(err)
	}
	evalLine := ""
	for i, l := range strings.Split(string(src), "\n") {
		if strings.TrimSpace(l) == "model(data[i:i + 32])" {
			evalLine = fmt.Sprintf("torch_runs.py:%d (module_modes)", i+1)
		}
	}
	code, out, stderr := runRecomp("scan", "--format", "json", dir)
	if code != exitOK {
		t.Fatalf("scan exit %d: %s", code, stderr)
	}
	var doc report.ScanJSON
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Inputs) != 1 || len(doc.Inputs[0].Traces) != 1 || doc.Inputs[0].Traces[0].Events == 0 {
		t.Errorf("inputs %+v; want run.log with the trace read beside it", doc.Inputs)
	}
	if n := len(doc.Verdict.Programs); n != 1 || doc.Summary.Compilations != 3 || doc.Summary.Recompilations != 1 {
		t.Fatalf("%d programs, %+v; want 1 program compiled 3 times, 1 recompilation", n, doc.Summary)
	}
	p := doc.Verdict.Programs[0]
	if p.Program != program || p.AfterWarmup != 1 || len(p.Causes) != 1 || p.Causes[0].Kind != "batch_size" ||
		len(p.Causes[0].Sites) != 1 || !strings.HasSuffix(p.Causes[0].Sites[0], evalLine) {
		t.Errorf("verdict %s: after warm-up %d, causes %+v; want %s, 1, batch size at %s", p.Program, p.AfterWarmup, p.Causes, program, evalLine)
	}
	if p.OncePerMode != 1 || !strings.Contains(p.Summary, "(1 once per mode, 1 after warm-up") ||
		!strings.Contains(p.Summary, "once per mode, not a recompilation: global state changed: grad mode") ||
		strings.Contains(p.Summary, "once per new variant") {
		t.Errorf("once per mode %d, summary %q; want the evaluation's grad mode said once per mode", p.OncePerMode, p.Summary)
	}
	if !strings.Contains(p.Action, "do not drop the last partial batch") || strings.Contains(p.Action, "drop_last=True") {
		t.Errorf("the evaluation's remedy drops rows: %s", p.Action)
	}
	if code, _, _ := runRecomp("guard", dir); code != exitFound {
		t.Errorf("guard exit %d on the evaluation's recompilation, want %d", code, exitFound)
	}
	// run.log alone names the frame as dynamo does, and counts the same
	_, out, _ = runRecomp("scan", "--format", "json", filepath.Join(dir, "run.log"))
	var log report.ScanJSON
	if err := json.Unmarshal([]byte(out), &log); err != nil || log.Summary.Recompilations != 1 || log.Summary.Compilations != 3 {
		t.Errorf("run.log alone: %v, %+v; want 3 compilations, 1 recompilation", err, log.Summary)
	}
	// live: one line, for the evaluation's partial batch, naming the program as the end does
	l := live.NewLines(ledger.LiveOptions{Name: filepath.Join(dir, "run.log")}, "recomp run", false, live.NewTally(live.StopPolicy{}))
	l.Every = 0
	l.FollowProbe(dir)
	var said []verdict.Live
	l.Said = func(lv verdict.Live) { said = append(said, lv) }
	b, err := os.ReadFile(filepath.Join(dir, "run.log"))
	if err != nil {
		t.Fatal(err)
	}
	l.Log(b, 0)
	l.Close()
	if len(said) != 1 || said[0].Name != program || said[0].Seq != 3 || said[0].Cause.Kind != "batch_size" || !strings.HasSuffix(said[0].Site, evalLine) {
		var lines []string
		for _, s := range said {
			lines = append(lines, s.Sentence())
		}
		t.Errorf("live lines %q; want one: %s compilation 3, batch size at %s", lines, program, evalLine)
	}
}

// TestGenerateRun holds the committed decode loop (ids one token longer each step) to dynamo's
// automatic dynamic shapes: the second compilation made the length dynamic and served every later
// length, so the answer is one recompilation whose remedy marks the dimension dynamic, with no
// sizes to pad to; from the run folder and from its run.log alone.
func TestGenerateRun(t *testing.T) {
	dir := "../../testdata/runs/torch-2.9/generate"
	if _, err := os.Stat(dir); err != nil {
		t.Skip("no generate run")
	}
	for _, in := range []string{dir, filepath.Join(dir, "run.log")} {
		_, out, stderr := runRecomp("scan", "--format", "json", in)
		var doc report.ScanJSON
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatalf("%s: %v: %s", in, err, stderr)
		}
		if len(doc.Verdict.Programs) != 1 || doc.Summary.Recompilations != 1 {
			t.Fatalf("%s: %d programs, %d recompilations; want 1, 1", in, len(doc.Verdict.Programs), doc.Summary.Recompilations)
		}
		p := doc.Verdict.Programs[0]
		if len(p.Causes) == 0 || p.Causes[0].Kind != "input_shape" || !strings.Contains(p.Causes[0].Change, "5 → 6, then dynamic") {
			t.Errorf("%s: causes %+v; want the length 5 → 6, then dynamic", in, p.Causes)
		}
		if p.Sizes != nil || strings.Contains(p.Action, "pad `ids`") || !strings.Contains(p.Action, "mark the dimension dynamic before the first call") {
			t.Errorf("%s: sizes %+v, action %q; want no sizes to pad to, and mark_dynamic", in, p.Sizes, p.Action)
		}
	}
}
