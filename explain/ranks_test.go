package explain

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/recomp/recomp/internal/dumptest"

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
		logs = append(logs, ledger.Log{Path: dumptest.WriteFile(t, dir, fmt.Sprintf("worker-%d.log", r), stepLog(r, batches, stamp))})
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
		k := dumptest.CacheKey("jit_step", "ab")
		lines := []string{dumptest.CacheMiss("jit_step", k), dumptest.CacheWrote("jit_step", k)}
		if hit {
			lines = []string{hit0("jit_step", k)}
		}
		return fmt.Sprintf("I am process %d\n", r) + dumptest.JAXRequest("step", "32,8", lines...) + dumptest.JAXRequest("eval", "8")
	}
	dir := t.TempDir()
	var logs []ledger.Log
	for r := range 3 {
		logs = append(logs, ledger.Log{Path: dumptest.WriteFile(t, dir, fmt.Sprintf("out-%c.txt", 'a'+r), hitLog(r, r != 1))})
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
	for rk, text := range []string{dumptest.JAXRequest("step", "32") + dumptest.JAXRequest("eval", "8"), dumptest.JAXRequest("step", "32") + dumptest.JAXRequest("eval", "8"), dumptest.JAXRequest("step", "32")} {
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
	r = readRanks(t, RanksOptions{}, ledger.Log{Path: "rank1.log", Reader: strings.NewReader(dumptest.JAXRequest("step", "2"))},
		ledger.Log{Path: "x/rank1.log", Reader: strings.NewReader(dumptest.JAXRequest("step", "2"))})
	if r.Ranks[0].Rank != "1" || r.Ranks[1].Rank != "1.1" || len(r.Warnings) != 1 || !r.Consistent() {
		t.Errorf("ranks %q %q, warnings %q", r.Ranks[0].Rank, r.Ranks[1].Rank, r.Warnings)
	}
}

func hit0(m, key string) string { return dumptest.CacheHit(m, key) }

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
	log := dumptest.WriteFile(t, t.TempDir(), "worker.log", "HloModule "+strings.Repeat("x", 3<<20)+"\nI am rank 07 of 8\nstep 1\n")
	if got := rankFromLog(log, regexp.MustCompile(`rank (\d+)`)); got != "7" {
		t.Errorf("rank %q, want 7", got)
	}
}

// Run folders named r3 r2 r1 r0, given in that order, are ranks 3..0 by their names (not by
// their places among the arguments), and a folder of them is read as the job; a manifest that
// recorded the launcher's RANK names the rank before the folder's name does. Ranks 2 and 0
// depart: they are named 2 and 0.
func TestRanksFromRunFolders(t *testing.T) {
	dir := t.TempDir()
	job := filepath.Join(dir, "job")
	stamp := func(i int) string { return fmt.Sprintf("2026-11-24 08:00:%02d,000", i) }
	for r := range 4 {
		batches := []int{32, 32, 32, 32}
		if r == 2 {
			batches[3] = 20
		}
		if r == 0 {
			batches[1] = 8
		}
		dumptest.WriteFile(t, filepath.Join(job, fmt.Sprintf("r%d", r)), "run.log", stepLog(r, batches, stamp))
	}
	var args []string
	for _, r := range []int{3, 2, 1, 0} {
		args = append(args, filepath.Join(job, fmt.Sprintf("r%d", r)))
	}
	for _, in := range [][]string{args, {job}} {
		logs, _, _, err := RankInputs(in, nil)
		if err != nil {
			t.Fatal(err)
		}
		r := readRanks(t, RanksOptions{}, ledger.Files(logs)...)
		var departed []string
		for _, d := range r.Divergences {
			departed = append(departed, d.Rank)
		}
		if fmt.Sprint(departed) != "[0 2]" {
			t.Errorf("%v: departed %v, want [0 2]", in, departed)
		}
		for i, ri := range r.Ranks {
			if ri.Rank != fmt.Sprint(i) || ri.RankFrom != "file name" || filepath.Base(ri.Name) != "r"+fmt.Sprint(i) {
				t.Errorf("%v: rank %d: %q from %q named %q", in, i, ri.Rank, ri.RankFrom, ri.Name)
			}
		}
	}
	// The launcher's environment, recorded in the manifests, names the ranks the other way round.
	for r := range 4 {
		m := fmt.Sprintf(`{"version":1,"launcher":{"RANK":"%d","WORLD_SIZE":"4"}}`, 3-r)
		dumptest.WriteFile(t, filepath.Join(job, fmt.Sprintf("r%d", r)), "manifest.json", m)
	}
	logs, _, _, err := RankInputs([]string{job}, nil)
	if err != nil {
		t.Fatal(err)
	}
	r := readRanks(t, RanksOptions{}, ledger.Files(logs)...)
	for i, ri := range r.Ranks {
		if ri.Rank != fmt.Sprint(i) || ri.RankFrom != "environment" || filepath.Base(ri.Name) != "r"+fmt.Sprint(3-i) {
			t.Errorf("manifest: rank %d: %q from %q named %q", i, ri.Rank, ri.RankFrom, ri.Name)
		}
	}
	if len(r.Divergences) != 2 || r.Divergences[0].Rank != "1" || r.Divergences[1].Rank != "3" {
		t.Errorf("manifest: divergences %+v", r.Divergences)
	}
	// A folder with neither logs nor run folders is refused, naming both.
	if _, _, _, err := RankInputs([]string{t.TempDir()}, nil); err == nil || !strings.Contains(err.Error(), "run folders") {
		t.Errorf("empty folder: %v", err)
	}
}

// Digits in a name name a rank only as a rank word's number or the number ending a short name.
func TestNameRank(t *testing.T) {
	for name, want := range map[string]string{
		"rank3.log": "3", "worker-03.log": "3", "r3": "3", "gpu7.log": "7", "12": "12", "node_2.log.gz": "2",
		"train-2026-11-24.log": "", "python-train.py-20261124T080000": "", "run.log": "", "a1b2.log": "",
	} {
		if got := nameRank(name); got != want {
			t.Errorf("%s: %q, want %q", name, got, want)
		}
	}
}

// A log a launcher tagged with ranks is read by scan as a job: the rank that departs is named
// with its step and cause; logs no launcher named are not lined up as ranks.
func TestScanOfALauncherRunIsAJob(t *testing.T) {
	dir := t.TempDir()
	stamp := func(i int) string { return fmt.Sprintf("2026-11-24 08:00:%02d,000", i) }
	var b strings.Builder
	for r, batches := range [][]int{{32}, {32}, {32, 20}} {
		for _, line := range strings.SplitAfter(stepLog(r, batches, stamp), "\n") {
			if line != "" {
				fmt.Fprintf(&b, "[rank%d]:%s", r, line)
			}
		}
	}
	tagged := dumptest.WriteFile(t, dir, "job.log", b.String())
	s, err := Logs([]string{tagged}, ledger.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if s.Job == nil || len(s.Job.Ranks) != 3 || len(s.Job.Divergences) != 1 || s.Job.Divergences[0].Rank != "2" ||
		s.Job.Divergences[0].Step != 11 || s.Job.Divergences[0].Cause == nil || s.Job.Divergences[0].Cause.Kind != diff.CauseBatchSize {
		t.Fatalf("job %+v", s.Job)
	}
	if vs := s.Verdict.Verdicts; len(vs) != 1 || vs[0].Processes != 3 || vs[0].MostInOne != 2 || vs[0].Compilations != 4 {
		t.Errorf("verdicts %+v: the step compiled in 3 processes, twice in rank 2", vs)
	}
	if s.Verdict.Processes != 3 || s.Verdict.Recompile != 100*time.Millisecond || s.Verdict.Compile != 400*time.Millisecond {
		t.Errorf("verdict: %d processes, %v of %v compiling again", s.Verdict.Processes, s.Verdict.Recompile, s.Verdict.Compile)
	}
	a := dumptest.WriteFile(t, dir, "a.log", stepLog(0, []int{32, 32}, stamp))
	c := dumptest.WriteFile(t, dir, "b.log", stepLog(1, []int{32, 20}, stamp))
	if s, err := Logs([]string{a, c}, ledger.ReadOptions{}); err != nil || s.Job != nil {
		t.Errorf("untagged logs read as a job: %v %+v", err, s.Job)
	}
}

// Ranks whose logs hold no compile evidence are not shown to agree: nothing of their requests
// is known (recomp ranks said CONSISTENT, exit 0, of two empty logs).
func TestRanksWithoutEvidence(t *testing.T) {
	dir := t.TempDir()
	a := dumptest.WriteFile(t, dir, "rank0.log", "step 1\n")
	b := dumptest.WriteFile(t, dir, "rank1.log", "step 1\n")
	r, err := ReadRanks(ledger.Files([]string{a, b}), RanksOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := r.WithoutEvidence(); len(got) != 2 || !r.Consistent() {
		t.Errorf("without evidence %v, consistent %v", got, r.Consistent())
	}
	c := dumptest.WriteFile(t, dir, "rank2.log", dumptest.JAXRequest("step", "32,8"))
	d := dumptest.WriteFile(t, dir, "rank3.log", dumptest.JAXRequest("step", "32,8"))
	if r, err := ReadRanks(ledger.Files([]string{c, d}), RanksOptions{}); err != nil || len(r.WithoutEvidence()) != 0 {
		t.Errorf("ranks with evidence: %v %v", r.WithoutEvidence(), err)
	}
}
