package ledger

import (
	"bytes"
	"os"
	"testing"

	"github.com/recomp/recomp/frameworks/cause"
)

// The stack's explanation of a compilation is read into facts once, when the ledger joins it to
// the compilation, whether the log is read whole or live: JAX's words for the last batch of
// last-batch-both (every argument's leading dimension 32 → 4, the padded length 32 → 24 beside
// it) are a batch-size fact per argument, the first naming `tokens`.
func TestFactsAttachedAtTheJoin(t *testing.T) {
	data, err := os.ReadFile("../testdata/runs/jax-0.12/last-batch-both/run.log")
	if err != nil {
		t.Fatal(err)
	}
	s, err := ReadLogs([]Log{{Path: "run.log", Reader: bytes.NewReader(data)}}, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	lv := NewLive(LiveOptions{Name: "run.log"})
	lv.Write(data)
	live := lv.Close()
	for name, rep := range map[string]*Report{"read": s.Ledger, "live": live} {
		var units []*Unit
		for _, m := range rep.Modules {
			units = append(units, m.Compiled()...)
		}
		if len(units) != 2 {
			t.Fatalf("%s: %d compilations, want 2", name, len(units))
		}
		if units[0].Facts != nil {
			t.Errorf("%s: the first compilation, joined to no explanation, has facts %+v", name, units[0].Facts)
		}
		fs := units[1].Facts
		if len(fs) != 3 || fs[0].Kind != cause.BatchSize || fs[0].Arg != "tokens" || fs[0].Old != "f32[32,32,8]" || fs[0].New != "f32[4,24,8]" {
			t.Errorf("%s: the retrace's facts %+v, want tokens' batch size first of 3", name, fs)
		}
	}
}
