package verdict

import (
	"testing"

	"github.com/recomp/recomp/diff"
)

// One argument's value changed at each compilation, each cause the next step of the last: one
// cause with the values in order. A change that does not take up the last value, another
// argument's, or a construct the stack said stay as they are.
func TestFoldChain(t *testing.T) {
	cs := []Cause{
		{Kind: diff.CauseConstant, Change: "lr: 0.1 → 0.09", Count: 1, Sites: []string{"t.py:3"}},
		{Kind: diff.CauseDtype, Change: "w: f32[8] → f16[8]", Count: 1},
		{Kind: diff.CauseConstant, Change: "lr: 0.09 → 0.081", Count: 1, Sites: []string{"t.py:4"}},
		{Kind: diff.CauseConstant, Change: "lr: 0.5 → 0.4", Count: 1},
		{Kind: KindPytree, Change: "lr: 0.4 → 0.3", Count: 1, Said: "jax said"},
	}
	got := foldChain(cs)
	if len(got) != 4 {
		t.Fatalf("%d causes, want 4: %+v", len(got), got)
	}
	if got[0].Change != "lr: 0.1 → 0.09 → 0.081" || got[0].Count != 2 || len(got[0].Sites) != 2 {
		t.Errorf("the chain: %+v", got[0])
	}
	if got[2].Change != "lr: 0.5 → 0.4" || got[3].Said == "" {
		t.Errorf("the others: %+v", got[2:])
	}
}
