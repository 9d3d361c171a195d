package report

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/recomp/recomp/across"
	"github.com/recomp/recomp/diff"
	"github.com/recomp/recomp/explain"
	"github.com/recomp/recomp/gate"
	"github.com/recomp/recomp/ledger"
	"github.com/recomp/recomp/logscan"
	"github.com/recomp/recomp/runfolder"
	"github.com/recomp/recomp/verdict"
)

// hostile is text a log can carry into a report: markup, a table separator, a GitHub workflow
// command on a line of its own, a CDATA end, control bytes and an ANSI colour code.
const hostile = "<script>alert(1)</script>|x]]>\n::set-output name=x::pwned\r\x00\x1b[31mred"

func hostileGuard(t *testing.T) *across.Guard {
	t.Helper()
	log := "Begin XLA compilation: <img_src=x_onerror=alert(1)>.1  (Hash: 0xa) for ordinal  0\n" +
		"Begin compiling Poplar engine m\nStarting phase: graphConstruction\nEnd compiling Poplar engine.\n" +
		"Begin XLA compilation: <img_src=x_onerror=alert(1)>.2  (Hash: 0xb) for ordinal  0\n" +
		"Begin compiling Poplar engine m\nStarting phase: graphConstruction\nEnd compiling Poplar engine.\n"
	scan := readLog(t, "run|<b>.log", log)
	rep := scan.Ledger
	g := gate.Evaluate(rep, nil, gate.Options{})
	if g.Passed || len(g.Failures) == 0 {
		t.Fatalf("the hostile log should fail the gate: %+v", g)
	}
	g.Failures[0].Message = hostile
	g.Failures[0].Reason = hostile
	g.Problems = []string{hostile}
	rep.Findings = append(rep.Findings, ledger.Finding{Severity: ledger.SeverityError, Kind: ledger.FindingRecompiled,
		Module: hostile, Message: hostile, Advice: hostile})
	scan.Inputs[0].Warnings, scan.Inputs[0].WarningCount = []logscan.Warning{{Line: 1, Message: hostile}}, 1
	return &across.Guard{Scan: scan, Gate: g}
}

// readLog reads a log the way recomp scan does.
func readLog(t *testing.T, name, log string) *explain.Scan {
	t.Helper()
	s, err := ledger.ReadLogs([]ledger.Log{{Path: name, Reader: strings.NewReader(log)}}, ledger.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return &explain.Scan{Scan: *s}
}

func render(t *testing.T, f Format, r Report) string {
	t.Helper()
	var b bytes.Buffer
	if err := Render(&b, f, r, Style{}); err != nil {
		t.Fatalf("%s: %v", f, err)
	}
	return b.String()
}

// TestHostileTextStaysInert: what a log says cannot become markup, a workflow command, broken
// XML or a broken table in any format.
func TestHostileTextStaysInert(t *testing.T) {
	g := hostileGuard(t)

	page := render(t, HTML, g)
	for _, bad := range []string{"<script>alert", "<img_src", "<b>.log"} {
		if strings.Contains(page, bad) {
			t.Errorf("html: %q appears unescaped", bad)
		}
	}
	if !strings.Contains(page, "&lt;script&gt;alert(1)&lt;/script&gt;") {
		t.Error("html: the hostile text is not shown escaped")
	}

	for _, line := range strings.Split(strings.TrimSuffix(render(t, GitHub, g), "\n"), "\n") {
		if !strings.HasPrefix(line, "::error ") && !strings.HasPrefix(line, "::warning ") && !strings.HasPrefix(line, "::notice ") {
			t.Errorf("github: a line that is not recomp's own workflow command: %q", line)
		}
		if strings.Contains(line, "\r") || strings.Contains(line, "::set-output") && !strings.Contains(line, "%0A::set-output") {
			t.Errorf("github: the message can start a command of its own: %q", line)
		}
	}

	junit := render(t, JUnit, g)
	var suites junitSuites
	if err := xml.Unmarshal([]byte(junit), &suites); err != nil {
		t.Fatalf("junit: not well-formed XML: %v\n%s", err, junit)
	}
	if !strings.Contains(junit, "&lt;script&gt;") {
		t.Error("junit: the hostile text is missing")
	}

	md := render(t, Markdown, g)
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(line, "|") && strings.Contains(line, "run|<b>") {
			t.Errorf("markdown: a table cell breaks the table: %q", line)
		}
	}
	if strings.Contains(md, "<script>") {
		t.Error("markdown: raw HTML passes through")
	}

	var doc ScanJSON
	if err := json.Unmarshal([]byte(render(t, JSON, g)), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Gate == nil || doc.Gate.Failures[0].Message != hostile {
		t.Error("json: the text is not kept exactly")
	}

	text := render(t, Text, g)
	if strings.Contains(text, "\x1b[31m") || strings.Contains(text, "\x00") {
		t.Errorf("text: control bytes from the log reach the terminal: %q", text)
	}
}

// TestEmptyReportsHaveNoNulls: every list of every JSON document is [] when empty.
func TestEmptyReportsHaveNoNulls(t *testing.T) {
	rep := ledger.Merge(ledger.Options{}, ledger.NewLedger(ledger.Options{}).Report())
	scan := &explain.Scan{Scan: ledger.Scan{Ledger: rep}}
	for name, r := range map[string]Report{
		"scan":  scan,
		"guard": &across.Guard{Scan: scan, Gate: gate.Evaluate(rep, nil, gate.Options{})},
		"diff":  &explain.Diff{},
	} {
		out := render(t, JSON, r)
		if strings.Contains(out, "null") {
			t.Errorf("%s: null in\n%s", name, out)
		}
	}
}

func TestFormatsOfEachCommand(t *testing.T) {
	if err := CheckFormat("cache", GitHub); err == nil || !strings.Contains(err.Error(), "text, json, markdown, html") {
		t.Errorf("cache github: %v", err)
	}
	if err := Render(&bytes.Buffer{}, JUnit, &explain.Scan{}, Style{}); err == nil {
		t.Error("scan has no junit format")
	}
}

// TestColourOnlyFromRecomp: on a terminal the severity is coloured by recomp, while an escape
// sequence in the log's text is shown, not obeyed.
func TestColourOnlyFromRecomp(t *testing.T) {
	var b bytes.Buffer
	if err := Render(&b, Text, hostileGuard(t), Style{Color: true}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if !strings.Contains(out, "\x1b[31mFAIL\x1b[0m") {
		t.Errorf("no colour on the verdict: %q", out)
	}
	if strings.Contains(out, "\x1b[31mred") || !strings.Contains(out, `\x1b[31mred`) || strings.ContainsRune(out, '\ue001') {
		t.Errorf("the log's escape sequence was obeyed or the painter's marks leaked: %q", out)
	}
}

// TestTimelineMixedClocks: TF lines carry a date, Poplar lines only a time of day; the timeline
// cannot put the two on one axis, so it draws the compilations on theirs and says what it left
// out, instead of an axis hundreds of years long.
func TestTimelineMixedClocks(t *testing.T) {
	var log strings.Builder
	for i := 0; i < 3; i++ {
		fmt := "2024-05-02 10:00:0%d.000000: I tensorflow/compiler/plugin/poplar/driver/poplar_compiler.cc:1487] Begin XLA compilation: cluster_0  (Hash: 0x%d) for ordinal  0\n" +
			"10:00:0%d.500 4242 PO:ENGINE   [I] Ending phase: Loading executable (duration 600 ms; diff RSS: 0 MB)\n"
		log.WriteString(strings.NewReplacer("%d", string(rune('1'+i))).Replace(fmt))
	}
	scan := readLog(t, "run.log", log.String())
	rep := scan.Ledger
	if rep.Summary.Compilations != 3 || rep.Summary.ExecutableLoads != 3 {
		t.Fatalf("summary %+v", rep.Summary)
	}
	page := render(t, HTML, scan)
	if !strings.Contains(page, "0 – 2.0s from the first compilation") {
		t.Errorf("the axis is not the compilations' 2 s")
	}
	if !strings.Contains(page, "leaves out 3 of the 3 executable load(s)") {
		t.Errorf("the loads left out are not said")
	}
}

// TestHTMLBounded: a log of 20 000 compilations of 2 000 families gives pages that stay small:
// tables, timeline rows and failures are capped, and the page says what it left out.
func TestHTMLBounded(t *testing.T) {
	var log strings.Builder
	for i := 0; i < 20_000; i++ {
		log.WriteString("Begin XLA compilation: cluster_" + strconv.Itoa(i%2000) + "  (Hash: 0x" + strconv.Itoa(i) + ") for ordinal  0\n" +
			"Begin compiling Poplar engine m\nStarting phase: graphConstruction\nEnd compiling Poplar engine.\n" +
			"Ending phase: Loading executable (duration 600 ms; diff RSS: 0 MB)\n")
	}
	scan := readLog(t, "run.log", log.String())
	rep := scan.Ledger
	if len(scan.Events) != ledger.MaxEvents || scan.EventCount <= ledger.MaxEvents {
		t.Fatalf("events: %d listed of %d", len(scan.Events), scan.EventCount)
	}
	for name, r := range map[string]Report{"scan": scan, "guard": &across.Guard{Scan: scan, Gate: gate.Evaluate(rep, nil, gate.Options{Loads: true})}} {
		page := render(t, HTML, r)
		if len(page) > 1<<20 {
			t.Errorf("%s: the page is %d KB", name, len(page)>>10)
		}
		if !strings.Contains(page, "more module families (the table lists") || !strings.Contains(page, "the timeline draws the") ||
			!strings.Contains(page, "more findings (the report shows the first 50") {
			t.Errorf("%s: the page does not say what it left out", name)
		}
	}
}

// TestHTMLDiffsBounded: a dump of 60 programs whose every pair has a long text diff gives a
// page under 1 MB: each side-by-side diff is cut at its card's cap and all of them at the
// page's, saying what was left out, and each diff starts folded.
func TestHTMLDiffsBounded(t *testing.T) {
	var lines []diff.DiffLine
	for i := 0; i < 2000; i++ {
		lines = append(lines, diff.DiffLine{Op: '-', Text: fmt.Sprintf("%%multiply.%d = f32[32,1024]{1,0} multiply(f32[32,1024]{1,0} %%a.%d, f32[32,1024]{1,0} %%b.%d)", i, i, i)},
			diff.DiffLine{Op: '+', Text: fmt.Sprintf("%%multiply.%d = f32[24,1024]{1,0} multiply(f32[24,1024]{1,0} %%a.%d, f32[24,1024]{1,0} %%b.%d)", i, i, i)})
	}
	d := &explain.Diff{Command: "explain"}
	for i := 0; i < 60; i++ {
		fam := fmt.Sprintf("jit_step_%d", i)
		d.Pairs = append(d.Pairs, &explain.DiffPair{Pair: &diff.Pair{
			A:      &diff.DumpFile{Path: fam + "/module_0001.txt", Family: fam},
			B:      &diff.DumpFile{Path: fam + "/module_0002.txt", Family: fam},
			Result: &diff.Result{ChangeCount: 2000, Causes: []diff.Cause{{Kind: diff.CauseBatchSize, Summary: "batch size changed 32 → 24"}}}},
			Text: &diff.TextDiff{Lines: lines}})
	}
	page := render(t, HTML, d)
	if len(page) > 1<<20 {
		t.Errorf("the page is %d KB", len(page)>>10)
	}
	if !strings.Contains(page, "more lines of this diff left out of the page") {
		t.Error("the page does not say it cut the diffs")
	}
	if strings.Contains(page, "<details open") {
		t.Error("a diff starts unfolded")
	}
}

// A run whose log holds no compile line is answered with what the command did (failed,
// stopped, or compiled nothing through an XLA stack), not with advice to switch on the logging
// recomp run switched on.
func TestRunWithoutEvidence(t *testing.T) {
	scan := readLog(t, "run.log", "Traceback (most recent call last):\nModuleNotFoundError: No module named 'tqdm'\n")
	settings := []runfolder.Setting{{Name: "JAX_LOG_COMPILES", Value: "1", Framework: "jax"}, {Name: "TF_CPP_MIN_LOG_LEVEL", Value: "2", Framework: "tf", Kept: true}}
	for _, c := range []struct {
		exit   int
		signal string
		want   string
	}{
		{1, "", "the command failed (exit 1) before anything compiled"},
		{-1, "interrupt", "the command was stopped (interrupt) before anything compiled"},
		{0, "", "nothing compiled through an XLA stack, or its logging did not reach the command's output: run.log holds no compile line although recomp switched on the compile logging of jax"},
	} {
		man := &runfolder.Manifest{Command: []string{"python", "train.py"}, ExitCode: c.exit, Signal: c.signal, Settings: settings, FirstStepSeconds: -1}
		got := render(t, Text, &explain.Run{Folder: "runs/r1", Manifest: man, Scan: scan})
		if !strings.Contains(got, c.want) || strings.Contains(got, "turn on the compile logging") || strings.Contains(got, "nothing in it says compile logging was on") {
			t.Errorf("exit %d %s:\n%s", c.exit, c.signal, got)
		}
		if !strings.Contains(got, "recomp switched on the compile logging of jax (What recomp switched on lists each setting)") {
			t.Errorf("the finding does not say what recomp switched on:\n%s", got)
		}
	}
	// A trace that raised: JAX said it traced (a retrace line), nothing compiled, the command failed.
	traced := readLog(t, "run.log", "WARNING:jax._src.pjit:TRACING CACHE MISS at /tmp/wt.py:9:12 (<module>):\n  never seen function:\n    step id=1 defined at /tmp/wt.py:2\n"+
		"Traceback (most recent call last):\nTypeError: sub got incompatible shapes for broadcasting: (8, 8), (4, 8).\n")
	man := &runfolder.Manifest{Command: []string{"python", "wt.py"}, ExitCode: 1, Settings: settings, FirstStepSeconds: -1}
	if got := render(t, Text, &explain.Run{Folder: "runs/r1", Manifest: man, Scan: traced}); !strings.Contains(got, "the command failed (exit 1) before anything compiled") ||
		strings.Contains(got, "turn on the compile logging") {
		t.Errorf("a trace that raised:\n%s", got)
	}
	// recomp scan of that run folder says the same
	traced.Manifest = man
	if got := render(t, Text, traced); !strings.Contains(got, "the command failed (exit 1) before anything compiled") ||
		strings.Contains(got, "turn on the compile logging") {
		t.Errorf("scan of a run folder whose trace raised:\n%s", got)
	}
}

// A run whose persistent cache missed says so, with what held entries before it, and how to
// ask why (recomp diff against the run that filled the cache); a run without a miss does not.
func TestRunCacheMissed(t *testing.T) {
	b, err := os.ReadFile("../testdata/runs/jax-0.12/persistent-cache/run1.log")
	if err != nil {
		t.Fatal(err)
	}
	man := &runfolder.Manifest{Command: []string{"python", "train.py"}, FirstStepSeconds: -1,
		Caches: []runfolder.CacheSnapshot{{Dir: "/c", Before: 3, After: 4, AddedCount: 1}}}
	got := render(t, Text, &explain.Run{Folder: "runs/r2", Manifest: man, Scan: readLog(t, "run.log", string(b))})
	if !strings.Contains(got, "the persistent cache missed") || !strings.Contains(got, "though it held 3 entries before the run") ||
		!strings.Contains(got, "recomp diff EARLIER_RUN runs/r2") {
		t.Errorf("no word of the miss:\n%s", got)
	}
	got = render(t, Text, &explain.Run{Folder: "runs/r2", Manifest: man, Scan: readLog(t, "run.log", "step 1\n")})
	if strings.Contains(got, "missed") {
		t.Errorf("a miss without one:\n%s", got)
	}
}

// Lines that look like compile records recomp could not read are shown in every format, with
// their place; no format gives an all-clear or advice to switch on logging the log has, and
// the gate is inconclusive. A compilation the log ends inside is no all-clear either.
func TestUnreadRecordsAreNoAllClear(t *testing.T) {
	unread := "Epoch 1\nWARNING:jax._src.interpreters.pxla:Compiling jit(train_step) on 8 devices, 3 arguments\nEpoch 2\n"
	withVerdict := func(s *explain.Scan) *explain.Scan {
		s.Verdict = verdict.Build(verdict.Input{Ledger: s.Ledger})
		return s
	}
	for _, c := range []struct{ name, log string }{
		{"unread only", unread},
		{"unread beside a compilation", unread + "Finished XLA compilation of jit(f) in 0.1 sec\n"},
	} {
		scan := withVerdict(readLog(t, "run.log", c.log))
		g := gate.EvaluateScan(&scan.Scan, gate.Options{})
		if g.Passed || !g.Inconclusive || !strings.Contains(strings.Join(g.Problems, "\n"), "run.log:2 (jax)") {
			t.Errorf("%s: gate %+v", c.name, g)
		}
		for _, f := range []Format{Text, Markdown, HTML, JSON} {
			for _, r := range []Report{scan, &across.Guard{Scan: scan, Gate: g}} {
				got := render(t, f, r)
				if !strings.Contains(got, "run.log:2") || !strings.Contains(got, "Compiling jit(train_step) on 8 devices") {
					t.Errorf("%s %s %T: the unread line is not shown:\n%s", c.name, f, r, got)
				}
				if f == JSON {
					if !strings.Contains(got, `"unread_records": 1,`) || !strings.Contains(got, `"framework": "jax"`) {
						t.Errorf("%s json: %s", c.name, got)
					}
					continue
				}
				for _, bad := range []string{"✓", "nothing compiled", "turn on the compile logging", "nothing in it says compile logging was on"} {
					if strings.Contains(got, bad) {
						t.Errorf("%s %s %T says %q:\n%s", c.name, f, r, bad, got)
					}
				}
			}
		}
	}
	// A new wording with no anchor of any rule after warm-up (found by the sweep, not the
	// prefilter): no PASS, no all-clear.
	swept := withVerdict(readLog(t, "run.log", "WARNING:jax._src.dispatch:Finished XLA compilation of jit(train_step) in 0.2 sec\nstep 1\nstep 2\n"+
		"Compiled jit(train_step) for f32[24,8] in 0.21 sec\nstep 3\n"))
	if g := gate.EvaluateScan(&swept.Scan, gate.Options{}); g.Passed || !g.Inconclusive || !strings.Contains(strings.Join(g.Problems, "\n"), "run.log:4 (jax)") {
		t.Errorf("a swept wording: gate %+v", g)
	}
	if got := render(t, Text, swept); strings.Contains(got, "✓") || !strings.Contains(got, "run.log:4") {
		t.Errorf("a swept wording:\n%s", got)
	}
	// A PopTorch bar that stops short of 100% at the end of the log.
	scan := withVerdict(readLog(t, "run.log", "Graph compilation:   4%|4         | 4/100 [00:00<00:04]\nGraph compilation:  84%|########  | 84/100 [00:10<00:02]\n"))
	got := render(t, Text, scan)
	if strings.Contains(got, "✓") || !strings.Contains(got, "the log ends inside a compilation that had not finished") {
		t.Errorf("a bar that stops:\n%s", got)
	}
	if g := gate.EvaluateScan(&scan.Scan, gate.Options{}); g.Passed || !g.Inconclusive {
		t.Errorf("a bar that stops: gate %+v", g)
	}
}

// TestNoAllClearWithoutEvidence: a log whose only compile-related lines are retraces, TF's
// once-per-process cluster notice or one metrics report cannot show that nothing compiled
// again: the gate is inconclusive, so the answer is no ✓ either, and it names the stack's
// logging to turn on.
func TestNoAllClearWithoutEvidence(t *testing.T) {
	for _, c := range []struct{ name, log, says, advice string }{
		{"tf retrace", "Epoch 1/3\nWARNING:tensorflow:5 out of the last 5 calls to <function train_step at 0x7f> triggered tf.function retracing. Tracing is expensive.\nEpoch 2/3\n",
			"the log holds 1 retrace but no record of each compilation", "TF_CPP_VMODULE"},
		{"tf cluster notice", "I0000 00:00:1700000000.000000   12 device_compiler.h:188] Compiled cluster using XLA!  This line is logged at most once for the lifetime of the process.\nEpoch 1/2\n",
			"a compile notice printed once per process but no record", "TF_CPP_VMODULE"},
		{"metrics report", "[MetricsData; step=0]\nMetric: CompileTime\n  TotalSamples: 27\n  Accumulator: 16m47s993ms921.061us\n",
			"metrics report (27 compilations, 947.0s) but no record", "PT_XLA_DEBUG_LEVEL"},
	} {
		scan := readLog(t, "run.log", c.log)
		scan.Verdict = verdict.Build(verdict.Input{Ledger: scan.Ledger})
		if g := gate.EvaluateScan(&scan.Scan, gate.Options{}); g.Passed || !g.Inconclusive {
			t.Errorf("%s: gate %+v", c.name, g)
		}
		for _, f := range []Format{Text, Markdown, HTML} {
			got := render(t, f, scan)
			if strings.Contains(got, "✓") || strings.Contains(got, "no program compiled again (") || strings.Contains(got, "nothing compiled") {
				t.Errorf("%s %s: an all-clear:\n%s", c.name, f, got)
			}
			if !strings.Contains(got, c.says) || !strings.Contains(got, "whether any program compiled again is unknown") || !strings.Contains(got, c.advice) {
				t.Errorf("%s %s: want %q and %q:\n%s", c.name, f, c.says, c.advice, got)
			}
		}
	}
}

// TestNoAllClearWhereSomeEvidenceIsMissing: one process's records are no all-clear for another
// process whose log records no compilation, nor for TF beside JAX in one log when TF printed
// only its once-per-process notice. The answer carries the gate's doubt, and guard is
// inconclusive.
func TestNoAllClearWhereSomeEvidenceIsMissing(t *testing.T) {
	jaxLine := "WARNING:jax._src.dispatch:Finished XLA compilation of jit(train_step) in 0.2 sec\nstep 1\n"
	cluster := "I0000 00:00:1700000000.000000   12 device_compiler.h:188] Compiled cluster using XLA!  This line is logged at most once for the lifetime of the process.\n"
	retrace := "WARNING:tensorflow:5 out of the last 5 calls to <function train_step at 0x7f> triggered tf.function retracing. Tracing is expensive.\n"
	two, err := ledger.ReadLogs([]ledger.Log{{Path: "a.log", Reader: strings.NewReader(jaxLine)}, {Path: "b.log", Reader: strings.NewReader(retrace)}}, ledger.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		scan *explain.Scan
		says string
	}{
		{"a process without evidence", &explain.Scan{Scan: *two}, "b.log: no compile evidence of its own"},
		{"tf beside jax", readLog(t, "run.log", jaxLine+cluster), "but logged none of its compilations, beside another stack"},
	} {
		c.scan.Verdict = verdict.Build(verdict.Input{Ledger: c.scan.Ledger})
		if g := gate.EvaluateScan(&c.scan.Scan, gate.Options{}); g.Passed || !g.Inconclusive {
			t.Errorf("%s: gate %+v", c.name, g)
		}
		got := render(t, Text, c.scan)
		if strings.Contains(got, "✓") || !strings.Contains(got, "no program compiled again in the logs that record each compilation (1 compilation, 200ms), but") ||
			!strings.Contains(got, c.says) {
			t.Errorf("%s:\n%s", c.name, got)
		}
	}
	// With every process's evidence, the all-clear stands.
	one := readLog(t, "run.log", jaxLine)
	one.Verdict = verdict.Build(verdict.Input{Ledger: one.Ledger})
	if got := render(t, Text, one); !strings.Contains(got, "✓ no program compiled again (1 compilation, 200ms)") {
		t.Errorf("a log with evidence:\n%s", got)
	}
}

// countingWriter counts the Write calls it gets; it fails every write once failAfter bytes
// have been written (failAfter < 0: never).
type countingWriter struct {
	b         bytes.Buffer
	writes    int
	failAfter int
}

func (w *countingWriter) Write(p []byte) (int, error) {
	w.writes++
	if w.failAfter >= 0 && w.b.Len()+len(p) > w.failAfter {
		return 0, errors.New("device full")
	}
	return w.b.Write(p)
}

// TestRenderBuffersWrites: a report of many lines (a module's hashes, one a line in JSON) goes
// to the output in large writes, not one a line, with the same bytes; a write that fails is
// still Render's error.
func TestRenderBuffersWrites(t *testing.T) {
	var log strings.Builder
	for i := range 5000 {
		fmt.Fprintf(&log, "Begin XLA compilation: m.1  (Hash: 0x%x) for ordinal  0\nEnd compiling Poplar engine.\n", i+1)
	}
	scan := readLog(t, "many.log", log.String())
	for _, f := range []Format{JSON, Text, Markdown} {
		want := render(t, f, scan)
		w := &countingWriter{failAfter: -1}
		if err := Render(w, f, scan, Style{}); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if w.b.String() != want {
			t.Fatalf("%s: the buffered output differs from the output rendered into memory", f)
		}
		if most := len(want)/(64<<10) + 1; w.writes > most {
			t.Errorf("%s: %d bytes in %d writes, want at most %d", f, len(want), w.writes, most)
		}
		if f == JSON && strings.Count(want, "\n") < 5000 {
			t.Fatalf("JSON: %d lines, want the 5000 hashes each on a line", strings.Count(want, "\n"))
		}
		w = &countingWriter{failAfter: len(want) / 2}
		if err := Render(w, f, scan, Style{}); err == nil || !strings.Contains(err.Error(), "device full") {
			t.Errorf("%s: a write that fails half-way: error %v, want device full", f, err)
		}
	}
}

// BenchmarkRenderJSONHashes renders the JSON report of a log of 60 000 compilations, each
// with a hash of its own (one line each in the document). Bytes are the document's.
func BenchmarkRenderJSONHashes(b *testing.B) {
	var log strings.Builder
	for i := range 60000 {
		fmt.Fprintf(&log, "Begin XLA compilation: m.%d  (Hash: 0x%x) for ordinal  0\nEnd compiling Poplar engine.\n", i%7, i+1)
	}
	s, err := ledger.ReadLogs([]ledger.Log{{Path: "many.log", Reader: strings.NewReader(log.String())}}, ledger.ReadOptions{})
	if err != nil {
		b.Fatal(err)
	}
	scan := &explain.Scan{Scan: *s}
	w := &countingWriter{failAfter: -1}
	if err := Render(w, JSON, scan, Style{}); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(w.b.Len()))
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if err := Render(io.Discard, JSON, scan, Style{}); err != nil {
			b.Fatal(err)
		}
	}
}
