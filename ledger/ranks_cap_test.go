package ledger

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/recomp/recomp/logscan"
)

// An srun --label log of more ranks than a Scanner follows (logscan.MaxRanks), each compiling its
// step once: the ranks past the cap are not merged into one process (where their first
// compilations would be recompilations); their lines are left out, and the report says so,
// naming the cap.
func TestRanksPastTheCapAreLeftOut(t *testing.T) {
	const ranks = 5000
	var b strings.Builder
	for r := range ranks {
		fmt.Fprintf(&b, "%d: WARNING:jax._src.interpreters.pxla:Compiling jit(train_step) with global shapes and types (ShapedArray(float32[32,8]),). Argument mapping: (UnspecifiedValue,).\n", r)
	}
	for r := range ranks {
		fmt.Fprintf(&b, "%d: WARNING:jax._src.dispatch:Finished XLA compilation of jit(train_step) in 0.500000000 sec\n", r)
	}
	s, err := ReadLogs([]Log{{Path: "srun.log", Reader: strings.NewReader(b.String())}}, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sum := s.Ledger.Summary
	const read = logscan.MaxRanks
	if s.Ledger.Processes != read || sum.Compilations != read || sum.Recompilations != 0 || sum.AfterWarmup != 0 {
		t.Errorf("%d processes, %d compilations, %d recompilations, %d after warm-up; want %d, %d, 0, 0",
			s.Ledger.Processes, sum.Compilations, sum.Recompilations, sum.AfterWarmup, read, read)
	}
	want := fmt.Sprintf("srun.log: more than %d ranks in one log (recomp reads at most %d a log): %d line(s) of the others were not read", read, read, 2*(ranks-read))
	if len(s.Ledger.LeftOut) != 1 || s.Ledger.LeftOut[0] != want {
		t.Errorf("left out %q, want %q", s.Ledger.LeftOut, want)
	}
	if !slices.ContainsFunc(s.Ledger.Findings, func(f Finding) bool { return f.Kind == FindingEvidenceLeftOut }) {
		t.Errorf("no finding of the ranks left out: %+v", s.Ledger.Findings)
	}
}
