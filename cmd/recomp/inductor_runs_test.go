package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/recomp/recomp/report"
)

// The torch 2.9 runs that share one Inductor cache (truth.json inductor_cache, from torch's
// counters): each run's answer, in every format, says what the cache did: served every graph, or
// missed and wrote; and recomp cache of the run's folder, held against the cache as an earlier
// run left it, names the part of the key that changed with its values (inductor-cache: run 3's
// Inductor config value).
func TestInductorCacheRuns(t *testing.T) {
	for _, name := range []string{"inductor-cache", "inductor-cache-keys"} {
		dir := filepath.Join("../../testdata/runs/torch-2.9", name)
		b, err := os.ReadFile(filepath.Join(dir, "truth.json"))
		if err != nil {
			t.Fatal(err)
		}
		var truth struct {
			Logs  []string `json:"logs"`
			Cache struct {
				Runs []struct {
					FXHit  int `json:"fxgraph_cache_hit"`
					FXMiss int `json:"fxgraph_cache_miss"`
					Missed *struct {
						Part string `json:"part"`
						A, B string
					} `json:"missed"`
				} `json:"runs"`
			} `json:"inductor_cache"`
		}
		if err := json.Unmarshal(b, &truth); err != nil || len(truth.Logs) != len(truth.Cache.Runs) {
			t.Fatalf("%s: %v %+v", name, err, truth)
		}
		for i, r := range truth.Cache.Runs {
			log := filepath.Join(dir, truth.Logs[i])
			want := "Inductor's FX-graph cache missed 1 graph and served 0"
			if r.FXHit > 0 && r.FXMiss == 0 {
				want = "Inductor's FX-graph cache served every graph (1 hit"
			}
			for _, format := range []string{"text", "markdown", "json", "html"} {
				_, out, errs := runRecomp("scan", "--format", format, log)
				if format == "html" || format == "json" {
					out = strings.ReplaceAll(out, "&#39;", "'")
					out = strings.ReplaceAll(out, `\u0026#39;`, "'")
				}
				if !strings.Contains(out, want) {
					t.Errorf("%s run %d, %s: no %q in\n%s%s", name, i+1, format, want, out, errs)
				}
			}
		}
	}
}

// The torch 2.9 runs sharing one Inductor cache, held two by two as recomp diff RUN_A RUN_B holds
// them (inductor-cache-run: three recomp run folders, each with its trace; the others: each
// run's trace): run 1 against each later run says what run B's cache served, one request for
// dynamo's compilation of the frame and the FX-graph hit inside it, with the seconds the trace
// says it saved; and for a miss, the key part that differs first (truth.json's missed: torch's
// own counters said it missed, the program changed that part), with its two values where the
// truth gives them, and the stack's remedy.
func TestInductorCacheDiff(t *testing.T) {
	for _, name := range []string{"inductor-cache-run", "inductor-cache", "inductor-cache-keys"} {
		dir := filepath.Join("../../testdata/runs/torch-2.9", name)
		b, err := os.ReadFile(filepath.Join(dir, "truth.json"))
		if err != nil {
			t.Fatal(err)
		}
		var truth struct {
			Logs  []string `json:"logs"`
			Cache struct {
				Runs []struct {
					FXHit   int `json:"fxgraph_cache_hit"`
					FXMiss  int `json:"fxgraph_cache_miss"`
					Written struct {
						FX []string `json:"fxgraph"`
					} `json:"written"`
					Missed *struct {
						Part string `json:"part"`
						A, B string
					} `json:"missed"`
				} `json:"runs"`
			} `json:"inductor_cache"`
		}
		if err := json.Unmarshal(b, &truth); err != nil || len(truth.Logs) != 3 || len(truth.Cache.Runs) != 3 {
			t.Fatalf("%s: %v %+v", name, err, truth)
		}
		side := func(i int) string {
			if _, err := os.Stat(filepath.Join(dir, fmt.Sprintf("run%d", i+1), "run.log")); err == nil {
				return filepath.Join(dir, fmt.Sprintf("run%d", i+1)) // the run folder recomp run left
			}
			return filepath.Join(dir, truth.Logs[i])
		}
		for i := 1; i < 3; i++ {
			r := truth.Cache.Runs[i]
			served := r.FXHit > 0 && r.FXMiss == 0
			code, out, errs := runRecomp("diff", "--format", "json", side(0), side(i))
			var doc struct {
				Programs []struct {
					Served    bool     `json:"served"`
					Saved     float64  `json:"saved_seconds"`
					SavedFrom string   `json:"saved_from"`
					KeyB      string   `json:"key_b"`
					Reason    string   `json:"reason"`
					Component string   `json:"component"`
					Changed   []string `json:"changed"`
					Advice    string   `json:"advice"`
				} `json:"programs"`
			}
			if err := json.Unmarshal([]byte(out), &doc); err != nil {
				t.Fatalf("%s run %d: %v\n%s%s", name, i+1, err, out, errs)
			}
			if len(doc.Programs) != 1 {
				t.Errorf("%s run %d: %d requests, want 1 (dynamo's compilation and its FX-graph lookup are one):\n%s", name, i+1, len(doc.Programs), out)
				continue
			}
			p := doc.Programs[0]
			switch {
			case served && (code != 0 || !p.Served || p.SavedFrom != "trace" || p.Saved <= 0 || p.KeyB != truth.Cache.Runs[0].Written.FX[0]):
				t.Errorf("%s run %d (served from run 1's entry %v): exit %d, %+v", name, i+1, truth.Cache.Runs[0].Written.FX, code, p)
			case served:
			case r.Missed == nil:
				t.Fatalf("%s run %d: missed, and the truth does not say why", name, i+1)
			case code != 1 || p.Served || !strings.HasPrefix(p.Component, r.Missed.Part) || len(p.Changed) == 0 ||
				!strings.HasPrefix(p.Changed[0], r.Missed.Part) || p.Advice == "":
				t.Errorf("%s run %d (missed: %s): exit %d, %+v", name, i+1, r.Missed.Part, code, p)
			case r.Missed.A != "":
				before, after, _ := strings.Cut(p.Changed[0], " → ")
				if !strings.Contains(before, ": "+r.Missed.A) || !strings.HasPrefix(after, r.Missed.B) {
					t.Errorf("%s run %d: changed %q, want %s: %s → %s", name, i+1, p.Changed, r.Missed.Part, r.Missed.A, r.Missed.B)
				}
			}
			want := map[bool]string{true: "1 served from the cache", false: "missed the cache: "}[served]
			if !served {
				want += p.Reason + ": "
			}
			if _, text, _ := runRecomp("diff", side(0), side(i)); !strings.Contains(text, want) {
				t.Errorf("%s run %d: no %q in\n%s", name, i+1, want, text)
			}
		}
	}
}

// The second run of inductor-cache-run read as recomp run left it (run.log with its trace):
// its answer says Inductor's cache served every graph, and what the trace says that saved.
func TestInductorCacheServedRunFolder(t *testing.T) {
	run := "../../testdata/runs/torch-2.9/inductor-cache-run/run2"
	for _, format := range []string{"text", "markdown", "json", "html"} {
		_, out, errs := runRecomp("scan", "--format", format, run)
		out = strings.ReplaceAll(strings.ReplaceAll(out, "&#39;", "'"), `\u0026#39;`, "'")
		for _, want := range []string{"Inductor's FX-graph cache served every graph (1 hit", "the trace says the hits saved "} {
			if !strings.Contains(out, want) {
				t.Errorf("%s: no %q in\n%s%s", format, want, out, errs)
			}
		}
	}
}

// dynamo's log alone (run.log without its trace) shows no lookup of Inductor's cache: the miss is
// not_looked_up, and the remedy is torch's (the trace), not another stack's cache setting.
func TestInductorCacheDiffLogsAlone(t *testing.T) {
	dir := "../../testdata/runs/torch-2.9/inductor-cache-run"
	code, out, errs := runRecomp("diff", "--format", "json", filepath.Join(dir, "run1", "run.log"), filepath.Join(dir, "run3", "run.log"))
	var doc struct {
		Programs []struct {
			Reason string `json:"reason"`
			Advice string `json:"advice"`
		} `json:"programs"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil || code != 1 || len(doc.Programs) != 1 ||
		doc.Programs[0].Reason != "not_looked_up" || !strings.Contains(doc.Programs[0].Advice, "TORCH_TRACE") {
		t.Errorf("exit %d, %v: %s%s", code, err, out, errs)
	}
}

// TestInductorCacheRunAgainstCache holds a run against a cache (`recomp cache CACHE --log
// TRACE`): the FX-graph key run 3 missed, held against the cache's entry run 1 wrote (not
// the entry run 3 then wrote under that key), names the Inductor config value that differs,
// with the remedy; run 2, served, missed nothing.
func TestInductorCacheRunAgainstCache(t *testing.T) {
	dir := "../../testdata/runs/torch-2.9/inductor-cache-run"
	traces := func(run string) string {
		m, _ := filepath.Glob(filepath.Join(dir, run, "trace", "*.gz"))
		if len(m) != 1 {
			t.Fatalf("%s: traces %v", run, m)
		}
		return m[0]
	}
	var doc report.CacheJSON
	_, out, stderr := runRecomp("cache", "--format", "json", filepath.Join(dir, "cache"), "--log", traces("run3"))
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("%v: %s", err, stderr)
	}
	if len(doc.Missed) != 1 {
		t.Fatalf("missed %+v; want run 3's one FX-graph key", doc.Missed)
	}
	m := doc.Missed[0]
	var changed []string
	for _, p := range m.Parts {
		if p.A != p.B {
			changed = append(changed, p.Name+": "+p.A+" → "+p.B)
		}
	}
	if !strings.Contains(m.Against, "fxgraph") || strings.Contains(m.Against, m.Entry) || len(m.Differs) == 0 || m.Differs[0] != "flags" ||
		!slices.Equal(changed, []string{"inductor_config[max_autotune_pointwise]: False → True"}) || m.Remedy == "" {
		t.Errorf("missed %s against %s: differs %v, changed %v, remedy %q", m.Entry, m.Against, m.Differs, changed, m.Remedy)
	}
	_, text, _ := runRecomp("cache", filepath.Join(dir, "cache"), "--log", traces("run3"))
	if !strings.Contains(text, "✗ missed "+m.Entry+": the run missed this key: its flags part differs") {
		t.Errorf("the text does not say why the run missed:\n%s", text)
	}
	doc = report.CacheJSON{}
	_, out, _ = runRecomp("cache", "--format", "json", filepath.Join(dir, "cache"), "--log", traces("run2"))
	if err := json.Unmarshal([]byte(out), &doc); err != nil || doc.Missed == nil || len(doc.Missed) != 0 {
		t.Errorf("run 2, served: %v, missed %+v", err, doc.Missed)
	}
}
