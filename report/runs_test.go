package report_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/recomp/recomp/across"
	"github.com/recomp/recomp/explain"
	"github.com/recomp/recomp/gate"
	"github.com/recomp/recomp/ledger"
	"github.com/recomp/recomp/logscan"
	"github.com/recomp/recomp/report"
)

const jaxRuns = "../testdata/runs/jax-0.12/"

// models are the reports of issue 22 made from the real runs: two runs compared, the ranks of a
// job, and a guard with the coverage by its warm-up and the ranks' agreement.
func models(t *testing.T) map[string]report.Report {
	t.Helper()
	out := map[string]report.Report{}
	for _, sc := range []string{"cache-constant", "cache-xla-flag", "cache-never-written"} {
		a, _ := across.OpenSide(jaxRuns+sc+"/run1.log", nil, jaxRuns+sc+"/dump1")
		b, _ := across.OpenSide(jaxRuns+sc+"/run2.log", nil, jaxRuns+sc+"/dump2")
		r, err := across.Runs(a, b, across.RunsOptions{Options: explain.Options{Text: true}})
		if err != nil {
			t.Fatal(err)
		}
		out["diff "+sc] = r
	}
	logs, dumps, _, err := explain.RankInputs([]string{jaxRuns + "ranks"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	rk, err := explain.ReadRanks(ledger.Files(logs), explain.RanksOptions{Dumps: dumps})
	if err != nil {
		t.Fatal(err)
	}
	out["ranks"] = rk
	m, _ := logscan.NewLineRegexp("warm-up done")
	s, err := ledger.ReadLogs(ledger.Files([]string{jaxRuns + "warmup-uncovered/run.log"}), ledger.ReadOptions{Marker: m, SameProcess: true})
	if err != nil {
		t.Fatal(err)
	}
	c := across.CoverageOf(s, s, across.CoverageOptions{Warmup: "run.log", Marker: "warm-up done", Split: true})
	g := &across.Guard{Scan: &explain.Scan{Scan: *s}, Coverage: c, Gate: gate.EvaluateCoverage(s, s, across.CoverageFailures(c), across.Unmatched(c), gate.Options{})}
	out["guard --covered-by"] = g
	rg := &across.Guard{Scan: rk.Scan, Ranks: rk, Gate: gate.EvaluateScan(&rk.Scan.Scan, gate.Options{})}
	rg.Gate.AddDivergences(explain.DivergenceFailures(rk), gate.Options{})
	out["guard --ranks-consistent"] = rg
	return out
}

// Every format of each model renders, twice the same; the JSON is valid; each format says the
// verdict the model holds.
func TestAcrossFormats(t *testing.T) {
	want := map[string][]string{
		"diff cache-constant":      {"graph_differs", "constant_value"},
		"diff cache-xla-flag":      {"key_changed_outside_graph", "--xla_cpu_enable_fast_min_max=true"},
		"diff cache-never-written": {"never_written", "Not writing persistent cache entry"},
		"ranks":                    {"extra_compilation", "batch_size"},
		"guard --covered-by":       {"f32[48,8]", "batch_size"},
		"guard --ranks-consistent": {"departed", "extra_compilation"},
	}
	for name, m := range models(t) {
		formats := []report.Format{report.Text, report.JSON, report.Markdown, report.HTML}
		if strings.HasPrefix(name, "guard") {
			formats = append(formats, report.GitHub, report.JUnit)
		}
		for _, f := range formats {
			var a, b bytes.Buffer
			if err := report.Render(&a, f, m, report.Style{}); err != nil {
				t.Fatalf("%s %s: %v", name, f, err)
			}
			if err := report.Render(&b, f, m, report.Style{}); err != nil || !bytes.Equal(a.Bytes(), b.Bytes()) {
				t.Errorf("%s %s: not deterministic", name, f)
			}
			if f == report.JSON {
				var v map[string]any
				if err := json.Unmarshal(a.Bytes(), &v); err != nil || v["version"] != float64(report.JSONVersion) {
					t.Errorf("%s: JSON %v, version %v", name, err, v["version"])
				}
				if bytes.Contains(a.Bytes(), []byte(": null")) && name != "ranks" && !strings.HasPrefix(name, "guard") {
					t.Errorf("%s: a null in the JSON:\n%s", name, a.String())
				}
			}
			for _, w := range want[name] {
				if f == report.GitHub || f == report.JUnit {
					continue
				}
				if !strings.Contains(a.String(), w) {
					t.Errorf("%s %s does not say %q", name, f, w)
				}
			}
			if f == report.HTML && (bytes.Contains(a.Bytes(), []byte(`src="http`)) || bytes.Contains(a.Bytes(), []byte(`href="http`))) {
				t.Errorf("%s: the page reaches the network", name)
			}
		}
	}
}

// The ranks document is what a log pipeline ingests: one object per rank with its digest, and
// each divergence inside the rank it belongs to.
func TestRanksDocument(t *testing.T) {
	doc := report.RanksDocument(models(t)["ranks"].(*explain.Ranks))
	if len(doc.Ranks) != 2 || doc.Consistent || doc.Ranks[0].Diverged || !doc.Ranks[1].Diverged || doc.Ranks[1].Divergence == nil ||
		*doc.Ranks[1].Divergence.Step != 3 || doc.Ranks[0].SequenceDigest == doc.Ranks[1].SequenceDigest || len(doc.Ranks[0].SequenceDigest) != 16 ||
		doc.Groups[0].Size != 1 || !doc.Groups[0].Majority || doc.Skew != nil {
		t.Errorf("document %+v", doc)
	}
}
