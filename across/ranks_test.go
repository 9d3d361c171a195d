package across

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/recomp/recomp/diff"
	"github.com/recomp/recomp/ledger"
)

// stepLog is a rank's log: a request per batch size, each followed by the step line the loop
// prints, with a Python logging time stamp that moves by skew per rank.
func stepLog(rank int, batches []int, stamp func(i int) string) string {
	var b strings.Builder
	for i, n := range batches {
		fmt.Fprintf(&b, "%s WARNING jax._src.interpreters.pxla: Compiling jit(step) with global shapes and types (ShapedArray(float32[%d,8]),). Argument mapping: (UnspecifiedValue,).\n", stamp(i), n)
		fmt.Fprintf(&b, "%s WARNING jax._src.dispatch: Finished XLA compilation of jit(step) in 0.1 sec\n", stamp(i))
		fmt.Fprintf(&b, "rank %d step %d batch %d\n", rank, 10+i, n)
	}
	return b.String()
}

func readRanks(t *testing.T, opt RanksOptions, logs ...ledger.Log) *Ranks {
	t.Helper()
	r, err := ReadRanks(logs, opt)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// Four ranks in files named by rank; rank 2 compiles a 24-row step where the others reuse the
// 32-row one: one divergence, at its third request, whose step is read from the log (a file, so
// it can be read again), whose cause comes from the signatures; the skew is the clocks' spread.
func TestRanksDivergence(t *testing.T) {
	dir := t.TempDir()
	var logs []ledger.Log
	for r := range 4 {
		batches := []int{32, 64}
		if r == 2 {
			batches = append(batches, 24)
		}
		stamp := func(i int) string { return fmt.Sprintf("2026-11-24 08:00:%02d,%03d", 10*i, 100*r) }
		logs = append(logs, ledger.Log{Path: writeFile(t, dir, fmt.Sprintf("worker-%d.log", r), stepLog(r, batches, stamp))})
	}
	r := readRanks(t, RanksOptions{}, logs...)
	if len(r.Ranks) != 4 || len(r.Groups) != 2 || len(r.Groups[0].Ranks) != 3 || !r.Groups[0].Majority || r.Consistent() {
		t.Fatalf("ranks %d, groups %+v", len(r.Ranks), r.Groups)
	}
	for i, ri := range r.Ranks {
		if ri.Rank != fmt.Sprint(i) || ri.RankFrom != "file name" {
			t.Errorf("rank %d: %q from %q", i, ri.Rank, ri.RankFrom)
		}
	}
	if len(r.Divergences) != 1 {
		t.Fatalf("divergences %+v", r.Divergences)
	}
	d := r.Divergences[0]
	if d.Rank != "2" || d.Kind != DivergeExtra || d.Index != 3 || d.Step != 12 || d.Program != "jit_step" || !d.Compiled ||
		d.Args != "f32[24,8]" || d.MajorityArgs != "f32[64,8]" || d.Cause == nil || d.Cause.Kind != diff.CauseBatchSize || d.CauseFrom != "signature" ||
		d.Line != 7 || !strings.HasSuffix(d.File, "worker-2.log") {
		t.Errorf("divergence %+v, cause %+v", d, d.Cause)
	}
	if s := r.Skew; s == nil || s.Spread.Milliseconds() != 300 || s.Earliest != "0" || s.Latest != "3" || s.RanksWithClock != 4 {
		t.Errorf("skew %+v", s)
	}
	if got := DivergenceFailures(r); len(got) != 1 || got[0].Line != 7 || !strings.Contains(got[0].Message, "rank 2") {
		t.Errorf("failures %+v", got)
	}
	// --step: the program's own wording, the first group is the number.
	r = readRanks(t, RanksOptions{Step: regexp.MustCompile(`batch (\d+)`)}, logs...)
	if r.Divergences[0].Step != 24 {
		t.Errorf("--step: step %d", r.Divergences[0].Step)
	}
}

// Ranks named by a launcher's tags in one log, and by --rank-from in logs whose names say
// nothing; a rank that compiled what the others got from the cache, and one that stopped short.
func TestRanksNamedAndKinds(t *testing.T) {
	hitLog := func(r int, hit bool) string {
		k := keyOf("jit_step", "ab")
		lines := []string{miss("jit_step", k), wrote("jit_step", k)}
		if hit {
			lines = []string{hit0("jit_step", k)}
		}
		return fmt.Sprintf("I am process %d\n", r) + jaxRequest("step", "32,8", lines...) + jaxRequest("eval", "8")
	}
	dir := t.TempDir()
	var logs []ledger.Log
	for r := range 3 {
		logs = append(logs, ledger.Log{Path: writeFile(t, dir, fmt.Sprintf("out-%c.txt", 'a'+r), hitLog(r, r != 1))})
	}
	r := readRanks(t, RanksOptions{RankFrom: regexp.MustCompile(`I am process (\d+)`)}, logs...)
	if len(r.Divergences) != 1 || r.Divergences[0].Rank != "1" || r.Divergences[0].Kind != DivergeCacheMiss || r.Ranks[1].RankFrom != "--rank-from" {
		t.Fatalf("divergences %+v", r.Divergences)
	}
	if len(r.CacheMisses) != 1 || r.CacheMisses[0].Rank != "1" || r.CacheMisses[0].Program != "jit_step" {
		t.Errorf("cache misses %+v", r.CacheMisses)
	}
	// A launcher's tags: one log, three ranks; rank 2 never made its second request.
	var b strings.Builder
	for rk, text := range []string{jaxRequest("step", "32") + jaxRequest("eval", "8"), jaxRequest("step", "32") + jaxRequest("eval", "8"), jaxRequest("step", "32")} {
		for _, l := range strings.SplitAfter(text, "\n") {
			if l != "" {
				fmt.Fprintf(&b, "[1,%d]<stderr>:%s", rk, l)
			}
		}
	}
	r = readRanks(t, RanksOptions{}, ledger.Log{Path: "job.log", Reader: strings.NewReader(b.String())})
	if len(r.Ranks) != 3 || r.Ranks[2].RankFrom != "launcher" || len(r.Divergences) != 1 || r.Divergences[0].Kind != DivergeMissing ||
		r.Divergences[0].Index != 2 || r.Divergences[0].Program != "jit_eval" {
		t.Errorf("ranks %+v, divergences %+v", r.Ranks, r.Divergences)
	}
	// The same rank named twice is told apart, and said.
	r = readRanks(t, RanksOptions{}, ledger.Log{Path: "rank1.log", Reader: strings.NewReader(jaxRequest("step", "2"))},
		ledger.Log{Path: "x/rank1.log", Reader: strings.NewReader(jaxRequest("step", "2"))})
	if r.Ranks[0].Rank != "1" || r.Ranks[1].Rank != "1.1" || len(r.Warnings) != 1 || !r.Consistent() {
		t.Errorf("ranks %q %q, warnings %q", r.Ranks[0].Rank, r.Ranks[1].Rank, r.Warnings)
	}
}

func hit0(m, key string) string { return hit(m, key) }

// The real ranks runs: the folder gives the logs and dumps; the cause comes from the two ranks'
// dumps, against the majority's module of that program.
func TestRanksRealDumps(t *testing.T) {
	for _, m := range []string{"jax-0.12", "jax-0.4"} {
		logs, dumps, _, err := RankInputs([]string{filepath.Join("../testdata/runs", m, "ranks")}, nil)
		if err != nil || len(logs) != 2 || len(dumps) != 2 || filepath.Base(dumps[1]) != "dump-rank1" {
			t.Fatalf("%s: inputs %q %q %v", m, logs, dumps, err)
		}
		r := readRanks(t, RanksOptions{Dumps: dumps}, ledger.Files(logs)...)
		d := r.Divergences[0]
		if len(r.Divergences) != 1 || d.Rank != "1" || d.Step != 3 || d.CauseFrom != "dump" || d.Cause.Kind != diff.CauseBatchSize || d.Pair == nil ||
			!strings.Contains(d.Pair.A.Path, "dump-rank0") || !strings.Contains(d.Pair.B.Path, "dump-rank1") {
			t.Errorf("%s: %+v", m, d)
		}
	}
}

func TestRankRangesAndNames(t *testing.T) {
	if got := RankRanges([]string{"0", "1", "2", "3", "5", "7", "8", "x"}); got != "0-3, 5, 7, 8, x" {
		t.Errorf("ranges %q", got)
	}
	for name, want := range map[string]string{"rank3.log": "3", "logs/worker_012.txt": "12", "dump-rank10": "10", "train.log": "", "node2-rank5.log": "5"} {
		if got := nameRank(name); got != want {
			t.Errorf("%s: rank %q, want %q", name, got, want)
		}
	}
	xs := []string{"rank10.log", "rank2.log", "rank1.log"}
	sortNatural(xs)
	if strings.Join(xs, " ") != "rank1.log rank2.log rank10.log" {
		t.Errorf("sorted %q", xs)
	}
}

// --rank-from reads past a line longer than any buffer (an HLO module logged on one line) to
// the line that names the rank.
func TestRankFromLogAfterAHugeLine(t *testing.T) {
	log := writeFile(t, t.TempDir(), "worker.log", "HloModule "+strings.Repeat("x", 3<<20)+"\nI am rank 07 of 8\nstep 1\n")
	if got := rankFromLog(log, regexp.MustCompile(`rank (\d+)`)); got != "7" {
		t.Errorf("rank %q, want 7", got)
	}
}
