package torch_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/recomp/recomp/ledger"
)

// The three runs of testdata/runs/torch-2.9/inductor-cache, each read from its own trace: the
// lookups of Inductor's caches counted as torch counted them (truth.json, from torch's
// counters), the FX-graph hit named by the key run 1 wrote, and the answer's line on the cache:
// served every graph (run 2), missed and written (runs 1 and 3).
func TestTraceInductorCaches(t *testing.T) {
	run := "../../testdata/runs/torch-2.9/inductor-cache"
	b, err := os.ReadFile(filepath.Join(run, "truth.json"))
	if err != nil {
		t.Fatal(err)
	}
	var truth struct {
		Logs  []string `json:"logs"`
		Cache struct {
			Runs []struct {
				FXHit   int `json:"fxgraph_cache_hit"`
				FXMiss  int `json:"fxgraph_cache_miss"`
				AOTHit  int `json:"autograd_cache_hit"`
				AOTMiss int `json:"autograd_cache_miss"`
				Written struct {
					FX []string `json:"fxgraph"`
				} `json:"written"`
			} `json:"runs"`
		} `json:"inductor_cache"`
	}
	if err := json.Unmarshal(b, &truth); err != nil {
		t.Fatal(err)
	}
	if len(truth.Logs) != 3 || len(truth.Cache.Runs) != 3 {
		t.Fatalf("%+v", truth)
	}
	var written []string
	for i, r := range truth.Cache.Runs {
		s, err := ledger.ReadLogs([]ledger.Log{{Path: filepath.Join(run, truth.Logs[i])}}, ledger.ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		sm := s.Ledger.Summary
		for name, want := range map[string]int{"fxgraph_cache_hit": r.FXHit, "fxgraph_cache_miss": r.FXMiss,
			"autograd_cache_hit": r.AOTHit, "autograd_cache_miss": r.AOTMiss} {
			if got := sm.Metrics[name].Count; got != want {
				t.Errorf("run %d: %s %d, torch counted %d", i+1, name, got, want)
			}
		}
		if sm.Compilations != 1 || sm.CacheHits != r.FXHit || sm.UnreadRecords != 0 {
			t.Errorf("run %d: %+v", i+1, sm)
		}
		var cache []ledger.Finding
		for _, f := range s.Ledger.Findings {
			if f.Kind == ledger.FindingCompileCache {
				cache = append(cache, f)
			}
		}
		served := r.FXHit > 0 && r.FXMiss == 0
		switch {
		case len(cache) != 1:
			t.Errorf("run %d: findings %+v", i+1, s.Ledger.Findings)
		case served && (cache[0].Severity != ledger.SeverityInfo || !strings.Contains(cache[0].Message, "served every graph")):
			t.Errorf("run %d (served): %+v", i+1, cache[0])
		case !served && (cache[0].Severity != ledger.SeverityWarning || !strings.Contains(cache[0].Message, "missed 1 graph and served 0") ||
			!strings.Contains(cache[0].Advice, "--against")):
			t.Errorf("run %d (missed): %+v", i+1, cache[0])
		}
		for _, m := range s.Ledger.Modules {
			for _, u := range m.Units {
				if u.Hit && !slices.Contains(written, u.Hash) {
					t.Errorf("run %d: hit %q, not a key an earlier run wrote %v", i+1, u.Hash, written)
				}
			}
		}
		written = append(written, r.Written.FX...)
	}
}

// A bypass (torch's cache_bypass_reason) is a warning naming the reason; a payload that is not
// JSON still counts the lookup; a name torch does not write is no record.
func TestTraceInductorCacheRecords(t *testing.T) {
	head := `V1202 06:21:13.009000 25320 torch/_inductor/compile_fx.py:1057] `
	log := head + `{"artifact": {"name": "fx_graph_cache_bypass", "encoding": "json"}, "frame_id": 0, "frame_compile_id": 0, "attempt": 0, "has_payload": "x"}` + "\n" +
		"\t" + `{"cache_state": "bypass", "cache_bypass_reason": "Can't cache HigherOrderOperators: cond", "cache_event_time": 1}` + "\n" +
		head + `{"artifact": {"name": "aotautograd_cache_miss", "encoding": "json"}, "frame_id": 0, "frame_compile_id": 0, "attempt": 0, "has_payload": "y"}` + "\n" +
		"\t{not json\n" +
		head + `{"artifact": {"name": "fx_graph_cache_maybe", "encoding": "json"}, "frame_id": 0}` + "\n"
	s, err := ledger.ReadLogs([]ledger.Log{{Path: "t.log", Reader: strings.NewReader(log)}}, ledger.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sm := s.Ledger.Summary
	if sm.Metrics["fxgraph_cache_bypass"].Count != 1 || sm.Metrics["autograd_cache_miss"].Count != 1 || len(sm.Metrics) != 2 {
		t.Errorf("metrics %+v", sm.Metrics)
	}
	var bypass, note bool
	for _, f := range s.Ledger.Findings {
		bypass = bypass || strings.Contains(f.Message, "Can't cache HigherOrderOperators: cond")
		note = note || f.Kind == ledger.FindingCompileCache && strings.Contains(f.Message, "bypassed for 1 graph")
	}
	if !bypass || !note {
		t.Errorf("findings %+v", s.Ledger.Findings)
	}
}

// Each FX-graph lookup of inductor-cache-run's traces lists its key's components: the run's one
// request carries them with their values (run 3's miss names the config value the program
// changed, True where run 1's is False: truth.json's missed), the key of the entry, and the miss
// itself (counted with the compilation, not as a compilation of its own); run 2's hit carries
// what AOTAutograd's hit record says it saved.
func TestTraceFXKeyParts(t *testing.T) {
	run := "../../testdata/runs/torch-2.9/inductor-cache-run"
	b, err := os.ReadFile(filepath.Join(run, "truth.json"))
	if err != nil {
		t.Fatal(err)
	}
	var truth struct {
		Logs  []string `json:"logs"`
		Cache struct {
			Runs []struct {
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
	if err := json.Unmarshal(b, &truth); err != nil || len(truth.Logs) != 3 || truth.Cache.Runs[2].Missed == nil {
		t.Fatalf("%v %+v", err, truth)
	}
	value := func(u *ledger.Unit, name string) string {
		for _, p := range u.KeyParts {
			if p.Name == name {
				return p.Value
			}
		}
		return "(none)"
	}
	var units [3][]*ledger.Unit
	for i, log := range truth.Logs {
		s, err := ledger.ReadLogs([]ledger.Log{{Path: filepath.Join(run, log)}}, ledger.ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range s.Ledger.Modules {
			units[i] = append(units[i], m.Units...)
		}
		if sm := s.Ledger.Summary; sm.Compilations != 1 || sm.CacheMisses+sm.CacheHits != 1 {
			t.Errorf("run %d: %+v", i+1, sm)
		}
	}
	part := truth.Cache.Runs[2].Missed.Part
	for _, i := range []int{0, 2} {
		if len(units[i]) != 1 {
			t.Fatalf("run %d: %d units", i+1, len(units[i]))
		}
		u := units[i][0]
		if !u.Miss || !u.Compiled || u.Hash != truth.Cache.Runs[i].Written.FX[0] || len(u.KeyParts) < 100 || value(u, "gm") == "(none)" {
			t.Errorf("run %d: %+v", i+1, u)
		}
	}
	if a, c := value(units[0][0], part), value(units[2][0], part); a != truth.Cache.Runs[2].Missed.A || c != truth.Cache.Runs[2].Missed.B {
		t.Errorf("%s: run 1 %q, run 3 %q; want %q, %q", part, a, c, truth.Cache.Runs[2].Missed.A, truth.Cache.Runs[2].Missed.B)
	}
	if len(units[1]) != 2 || !units[1][0].Hit || units[1][0].Saved <= 0 || units[1][0].Hash != truth.Cache.Runs[0].Written.FX[0] ||
		value(units[1][0], part) != truth.Cache.Runs[2].Missed.A {
		t.Errorf("run 2: %+v", units[1])
	}
}
