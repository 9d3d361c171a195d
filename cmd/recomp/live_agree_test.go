package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/recomp/recomp/ledger"
	"github.com/recomp/recomp/live"
	"github.com/recomp/recomp/verdict"
)

// TestLiveAgreesWithFinal holds every committed run's live lines to the answer at the end: each
// cause a live line names for a program (the compilations after warm-up, as recomp run says them,
// with the probe's records where the run has them) is one of the causes the final verdict names for
// that program (recomp explain of the run's dump with its log), in the same kind. The live line
// says what the evidence at that moment shows, so it may name less (nothing, where only the dump
// shows the cause), never another cause.
func TestLiveAgreesWithFinal(t *testing.T) {
	truths, err := filepath.Glob("../../testdata/runs/*/*/truth.json")
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(truths)
	checked := 0
	for _, tj := range truths {
		dir := filepath.Dir(tj)
		id := strings.TrimPrefix(dir, "../../testdata/runs/")
		logs, _ := filepath.Glob(filepath.Join(dir, "*.log"))
		dump := filepath.Join(dir, "dump")
		if len(logs) != 1 {
			continue // runs of several processes: their live lines are each process's own
		}
		if _, err := os.Stat(dump); err != nil {
			continue
		}
		t.Run(id, func(t *testing.T) {
			l := live.NewLines(ledger.LiveOptions{Name: logs[0]}, "recomp run", false, live.NewTally(live.StopPolicy{}))
			l.Every = 0 // every compilation after warm-up is said
			probed := false
			if _, err := os.Stat(filepath.Join(dir, "probe.jsonl")); err == nil {
				l.FollowProbe(dir)
				probed = true
			}
			var said []verdict.Live
			l.Said = func(lv verdict.Live) { said = append(said, lv) }
			b, err := os.ReadFile(logs[0])
			if err != nil {
				t.Fatal(err)
			}
			l.Log(b, 0)
			l.Close()
			code, out, stderr := runIn(t, "", "explain", "--format", "json", dir)
			if code != exitOK && code != exitFound {
				t.Fatalf("explain exit %d: %s", code, stderr)
			}
			var doc struct {
				Verdict struct {
					Programs []struct {
						Program string `json:"program"`
						Causes  []struct {
							Kind   string `json:"kind"`
							Change string `json:"change"`
						} `json:"causes"`
					} `json:"programs"`
				} `json:"verdict"`
			}
			if err := json.Unmarshal([]byte(out), &doc); err != nil {
				t.Fatal(err)
			}
			final := map[string][]string{}
			for _, p := range doc.Verdict.Programs {
				for _, c := range p.Causes {
					final[p.Program] = append(final[p.Program], c.Kind)
				}
			}
			for _, lv := range said {
				kind := string(lv.Cause.Kind)
				if kind == "" {
					// the live line names no cause (the stack's bare words, or nothing) — but a
					// Python value the probe saw traced is known live as at the end: its first
					// value is the warm-up's trace
					if probed && slices.Equal(final[lv.Program], []string{string(verdict.KindStaticArgument)}) {
						t.Errorf("%s: the live line names no cause (%q), the answer at the end a Python value the probe recorded", lv.Program, lv.Sentence())
					}
					continue
				}
				kinds, ok := final[lv.Program]
				if !ok {
					continue // not a recompiled program at the end (a new program after warm-up)
				}
				if !slices.Contains(kinds, kind) {
					t.Errorf("%s: the live line says %s (%q), the answer at the end %v", lv.Program, kind, lv.Sentence(), kinds)
				}
			}
			checked++
		})
	}
	if checked < 50 {
		t.Errorf("%d committed runs checked, want at least 50", checked)
	}
}
