package report_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recomp/recomp/explain"
	"github.com/recomp/recomp/report"
)

// The pairs under an answer say what the answer says to do: on every committed run with a dump, a
// compared pair's cause whose program the verdict answers for, with a cause of the same kind,
// gives the verdict's advice for it (a part of the program's action), in the JSON and the text —
// never the comparison's generic advice beside the verdict's (an evaluation loop told to drop
// its last batch under an answer that says to pad).
func TestPairsAdviseAsTheVerdict(t *testing.T) {
	logs, _ := filepath.Glob(runs + "*/*/run.log")
	checked := 0
	for _, log := range logs {
		dir := filepath.Dir(log)
		if _, err := os.Stat(filepath.Join(dir, "dump")); err != nil {
			continue
		}
		d, err := explain.Dump(filepath.Join(dir, "dump"), []string{log}, explain.Options{})
		if err != nil {
			t.Fatalf("%s: %v", dir, err)
		}
		var b bytes.Buffer
		if err := report.Render(&b, report.JSON, d, report.Style{}); err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Pairs []struct {
				Family string `json:"family"`
				Causes []struct{ Kind, Advice string }
			}
			Verdict *struct {
				Programs []struct {
					Program string
					Action  string
					Causes  []struct{ Kind string }
				}
			}
		}
		if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
			t.Fatal(err)
		}
		if doc.Verdict == nil {
			continue
		}
		var text bytes.Buffer
		if err := report.Render(&text, report.Text, d, report.Style{Width: 100000}); err != nil {
			t.Fatal(err)
		}
		for _, p := range doc.Pairs {
			for _, v := range doc.Verdict.Programs {
				if v.Program != p.Family || len(v.Causes) == 0 {
					continue
				}
				for _, c := range p.Causes {
					if c.Kind != v.Causes[0].Kind || c.Advice == "" {
						continue
					}
					checked++
					if !strings.Contains(v.Action, c.Advice) {
						t.Errorf("%s: %s: the pair's %s advice %q is not the verdict's (%q)", dir, p.Family, c.Kind, c.Advice, v.Action)
					}
					if !strings.Contains(text.String(), "advice: "+c.Advice) {
						t.Errorf("%s: %s: the text does not advise %q under the pair", dir, p.Family, c.Advice)
					}
				}
			}
		}
	}
	if checked < 20 {
		t.Fatalf("%d pair causes checked against their verdicts, want at least 20", checked)
	}
}

// A buffer grown at every step is allocated once at its maximum length, the answer says; the
// page under it does not then recommend buckets to pad it to (jax growing-cache runs), and the
// lines table names it as the card does.
func TestGrowingBufferHasNoBucketsToPadTo(t *testing.T) {
	dirs, _ := filepath.Glob(runs + "*/growing-cache")
	if len(dirs) == 0 {
		t.Fatal("no committed growing-cache run")
	}
	for _, dir := range dirs {
		log := filepath.Join(dir, "run.log")
		d, err := explain.Dump(filepath.Join(dir, "dump"), []string{log}, explain.Options{})
		if err != nil {
			t.Fatalf("%s: %v", dir, err)
		}
		var text bytes.Buffer
		if err := report.Render(&text, report.Text, d, report.Style{Width: 100000}); err != nil {
			t.Fatal(err)
		}
		out := text.String()
		if !strings.Contains(out, "maximum length") || strings.Contains(out, "Sizes to pad to") || !strings.Contains(out, "growing buffer") {
			t.Errorf("%s: the answer preallocates, and the page says:\n%s", dir, out)
		}
	}
}
