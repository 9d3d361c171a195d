package cache

import (
	"strings"
	"testing"
	"time"

	"github.com/recomp/recomp/frameworks/framework"
	"github.com/recomp/recomp/logscan"
)

// A key a run missed is held against the cache's entry whose key agrees most, of the kind the
// run then wrote it as; never against that written entry, nor against an entry written after it
// (not there when the run looked). With nothing left to hold it against, it says the cache had
// none of its kind.
func TestMissedKeysHeldAgainstTheCache(t *testing.T) {
	t0 := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	part := func(p framework.KeyPart, name, value string) framework.Factor {
		return framework.Factor{Part: p, Name: name, Value: value}
	}
	entry := func(kind EntryKind, key string, at time.Time, autotune string) *CacheEntry {
		return &CacheEntry{Kind: kind, Key: key, Dir: "c/fxgraph", Name: key, ModTime: at,
			Parts: []framework.Factor{part(framework.KeyGraph, "gm", "5 ops"), part(framework.KeyFlags, "inductor_config[max_autotune_pointwise]", autotune)}}
	}
	missed := func(autotune string) []logscan.KeyPart {
		return []logscan.KeyPart{{Name: "gm", Value: "5 ops"}, {Name: "inductor_config[max_autotune_pointwise]", Value: autotune}}
	}
	// run 1 filled the cache (fA, False), run 3 missed it with True and wrote fC; a later run 4
	// wrote fD (True) after run 3's miss; an AOTAutograd entry agrees in every part
	entries := []*CacheEntry{entry("aotautograd", "aX", t0, "True"), entry("inductor-fx", "fA", t0, "False"),
		entry("inductor-fx", "fC", t0.Add(time.Minute), "True"), entry("inductor-fx", "fD", t0.Add(time.Hour), "True")}
	got := missedAgainst(entries, map[string][]logscan.KeyPart{"fC": missed("True"), "fA": missed("False")})
	if len(got) != 2 || got[0].B != "fA" || got[1].B != "fC" {
		t.Fatalf("%+v", got)
	}
	if c := got[1]; c.A != "c/fxgraph/fA" || len(c.Differs) != 1 || c.Differs[0] != framework.KeyFlags ||
		!strings.Contains(c.Summary, "inductor_config[max_autotune_pointwise] False → True") {
		t.Errorf("run 3's miss held against %q: differs %v, %s", c.A, c.Differs, c.Summary)
	}
	// run 1's miss, on an empty cache: every other FX entry was written after it
	if c := got[0]; c.A != "" || !strings.Contains(c.Summary, "holds no other entry of its kind") {
		t.Errorf("run 1's miss held against %q: %s", c.A, c.Summary)
	}
	if got := missedAgainst(entries, nil); got != nil {
		t.Errorf("no misses: %+v", got)
	}
}
