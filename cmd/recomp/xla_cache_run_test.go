package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recomp/recomp/report"
)

// TestPersistentCacheRunFolders holds the PyTorch/XLA persistent-cache pair made under recomp run
// (testdata/runs/torch-xla-2.9/persistent-cache-run, the user's own PJRT_DEVICE=CPU alone): run 2's
// own answer says the cache held an entry it could not load, which run 1's does not; and diff of
// the two run folders says why run 2 missed run 1's cache: the same key, found and unreadable.
func TestPersistentCacheRunFolders(t *testing.T) {
	dir := "../../testdata/runs/torch-xla-2.9/persistent-cache-run"
	unusable := func(run string) bool {
		_, out, stderr := runRecomp("scan", "--format", "json", filepath.Join(dir, run))
		var doc report.ScanJSON
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatalf("%s: %v: %s", run, err, stderr)
		}
		for _, f := range doc.Findings {
			if f.Kind == "persistent_cache_unusable" && strings.Contains(f.Message, "could not be loaded") {
				return true
			}
		}
		return false
	}
	if unusable("run1") || !unusable("run2") {
		t.Errorf("the cache's unusable entry: run 1 %v, run 2 %v; want run 2's alone", unusable("run1"), unusable("run2"))
	}
	_, out, stderr := runRecomp("diff", "--format", "json", filepath.Join(dir, "run1"), filepath.Join(dir, "run2"))
	var d struct {
		Summary struct {
			Requests, Served, Missed int
			ByReason                 map[string]int `json:"by_reason"`
		} `json:"summary"`
		Programs []struct {
			Reason string `json:"reason"`
		} `json:"programs"`
	}
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatalf("%v: %s", err, stderr)
	}
	if d.Summary.Requests != 1 || d.Summary.Served != 0 || d.Summary.ByReason["unreadable"] != 1 || len(d.Programs) != 1 || d.Programs[0].Reason != "unreadable" {
		t.Errorf("diff run1 run2: %+v; want one request, missed: unreadable", d)
	}
}
