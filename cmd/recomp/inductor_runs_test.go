package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
