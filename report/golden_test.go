package report_test

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/recomp/recomp/across"
	"github.com/recomp/recomp/explain"
	"github.com/recomp/recomp/gate"
	"github.com/recomp/recomp/internal/golden"
	"github.com/recomp/recomp/ledger"
	"github.com/recomp/recomp/report"
)

// runs are the example runs the goldens are made of, relative to this package.
const runs = "../testdata/runs/"

// TestGoldens renders reports of real example runs in every format their command writes and
// compares each with its golden file (go test ./report -run TestGoldens -update rewrites them).
// The reports are made by the library calls the commands make; cmd/recomp's scripts test the
// wiring (flags, exit codes, which format a command takes).
func TestGoldens(t *testing.T) {
	ipuLog := runs + "ipu-partial-batch/run.log"
	jax := runs + "jax-0.12/partial-batch/"
	pairA, pairB := jax+"dump/module_0000.jit_train_step.before_optimizations.txt", jax+"dump/module_0002.jit_train_step.before_optimizations.txt"
	scan := func(path string) *explain.Scan {
		s, err := explain.Logs([]string{path}, ledger.ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	ipu := scan(ipuLog)
	dumps := func(a, b string, text bool) *explain.Diff {
		d, err := explain.Dumps(a, b, explain.Options{Text: text})
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	dump := func(dir, log string, text bool) *explain.Diff {
		d, err := explain.Dump(dir, []string{log}, explain.Options{Text: text})
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	all := []report.Format{report.Text, report.JSON, report.Markdown}
	cases := []struct {
		name    string
		r       report.Report
		formats []report.Format
	}{
		{"scan", ipu, append(all, report.HTML)},
		{"guard", &across.Guard{Scan: ipu, Gate: gate.EvaluateScan(&ipu.Scan, gate.Options{})},
			[]report.Format{report.Text, report.JSON, report.GitHub, report.JUnit, report.Markdown, report.HTML}},
		{"diff", dumps(pairA, pairB, false), all},
		{"diff", dumps(pairA, pairB, true), []report.Format{report.HTML}}, // the page shows the diffs
		{"diff-text", dumps(pairA, pairB, true), []report.Format{report.Text, report.Markdown}},
		{"explain", dump(jax+"dump", jax+"run.log", false), all},
		{"explain", dump(jax+"dump", jax+"run.log", true), []report.Format{report.HTML}},
		{"keras", scan(runs + "tf-2.21/keras-fit-partial-batch/run.log"), []report.Format{report.Text}},
		{"torch-explain", dump(runs+"torch-xla-2.9/seq-length/dump", runs+"torch-xla-2.9/seq-length/run.log", false), []report.Format{report.Text}},
		{"eager", scan(runs + "jax-0.12/eager-init/run.log"), []report.Format{report.Text}},
	}
	st := report.Style{Meta: report.Meta{Version: "recomp (golden)", Command: "recomp (golden)"}, Root: ""}
	for _, c := range cases {
		for _, f := range c.formats {
			var b bytes.Buffer
			if err := report.Render(&b, f, c.r, st); err != nil {
				t.Fatalf("%s %s: %v", c.name, f, err)
			}
			golden.Check(t, filepath.Join("testdata", "golden", c.name+"."+string(f)), b.Bytes())
		}
	}
}

// TestGoldenPagesSelfContained backs docs/examples.md's "one self-contained page (no network)": no golden
// page loads anything (a script, a style sheet, an image, a font, a frame) or names an address
// other than the SVG namespace.
func TestGoldenPagesSelfContained(t *testing.T) {
	pages, err := filepath.Glob(filepath.Join("testdata", "golden", "*.html"))
	if err != nil || len(pages) < 4 {
		t.Fatalf("golden pages: %v %v", pages, err)
	}
	fetches := regexp.MustCompile(`(?i)\b(src|href|action|srcset)\s*=|<link\b|<iframe\b|<object\b|<embed\b|@import|url\(`)
	addresses := regexp.MustCompile(`(?i)(https?:)?//[a-z0-9.-]+\.[a-z]{2,}`)
	for _, p := range pages {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		page := strings.ReplaceAll(string(b), `xmlns="http://www.w3.org/2000/svg"`, "")
		if m := fetches.FindString(page); m != "" {
			t.Errorf("%s loads something: %q", p, m)
		}
		if m := addresses.FindString(page); m != "" {
			t.Errorf("%s names an address: %q", p, m)
		}
	}
}
