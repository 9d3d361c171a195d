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

// TF names only the parameters of a new trace: the ledger holds a retrace's against the
// function's trace before, so the compilation's facts say what changed (tf-2.21/dtype: forward
// traced with f32 tensors, then f16; tf-2.21/python-scalar: the Python number lr).
func TestRetraceHeldAgainstTheTraceBefore(t *testing.T) {
	for run, want := range map[string]cause.Fact{
		"tf-2.21/dtype":         {Kind: cause.Dtype, Arg: "w", Old: "f32[8,4]", New: "f16[8,4]", Change: "w: f32[8,4] → f16[8,4]"},
		"tf-2.21/python-scalar": {Kind: cause.Constant, Arg: "lr", Old: "0.1", New: "0.09", Change: "lr: 0.1 → 0.09"},
	} {
		data, err := os.ReadFile("../testdata/runs/" + run + "/run.log")
		if err != nil {
			t.Fatal(err)
		}
		s, err := ReadLogs([]Log{{Path: "run.log", Reader: bytes.NewReader(data)}}, ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var got []cause.Fact
		for _, m := range s.Ledger.Modules {
			for _, u := range m.Compiled() {
				if u.Seq == 2 && len(u.Facts) > 0 {
					got = u.Facts
				}
			}
		}
		if len(got) == 0 {
			t.Errorf("%s: no compilation's facts say what changed", run)
			continue
		}
		g := got[0]
		if g.Kind != want.Kind || g.Arg != want.Arg || g.Old != want.Old || g.New != want.New || g.Change != want.Change {
			t.Errorf("%s: %+v, want %+v", run, g, want)
		}
	}
}
