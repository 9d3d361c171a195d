//go:build linux

// Command recomp-bench is recomp's performance harness: it generates inputs deterministically, runs
// recomp and the tools a user would reach for instead (GNU grep, ripgrep, diff -r) on them,
// interleaved over several rounds, and prints median times, peak memory and ratios.
//
//	go run ./cmd/recomp-bench                 # 300 MB log, 4 x 75 MB logs, two 100 000-instruction dumps
//	go run ./cmd/recomp-bench -mb 1000 -rounds 5
//	go run ./cmd/recomp-bench -stress         # 10k / 100k / 1M compilations and loads of one family
//	go run ./cmd/recomp-bench -bounds         # gzip bomb, 100 000 modules, 100 MB constants, 200 000 families
//	go run ./cmd/recomp-bench -overhead       # recomp run's fixed cost and per-step cost on ~60 s training loops
//	go run ./cmd/recomp-bench -ranks 1024     # 1024 rank logs of 100 MB, made as they are read
//	go run ./cmd/recomp-bench -shapes -mb 400 -rounds 5 # scan vs rg -c -F on noise, Poplar/TF and dense logs
//
// Everything it writes goes to a temporary folder (or -dir), removed at the end unless -keep.
// A baseline that is not installed is skipped with a message saying how to get it.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/recomp/recomp/frameworks"
	"github.com/recomp/recomp/hlo"
	"github.com/recomp/recomp/logscan"
)

func main() {
	mb := flag.Int("mb", 300, "size of the large log in MB")
	files := flag.Int("files", 4, "number of logs in the multi-file run (each mb/files MB)")
	instr := flag.Int("instructions", 100000, "instructions per HLO module in the dump comparison")
	rounds := flag.Int("rounds", 3, "rounds; each round runs every command once, interleaved")
	dir := flag.String("dir", "", "folder for the generated inputs (default: a temporary folder)")
	keep := flag.Bool("keep", false, "keep the generated inputs")
	stress := flag.Bool("stress", false, "instead: scan and guard logs of 10k, 100k and 1M compilations and executable loads (time per event and peak RSS must stay flat)")
	overhead := flag.Bool("overhead", false, "instead: the cost of recomp run: its fixed cost, and per step after warm-up for a training loop of each framework (JAX, TF, PyTorch/XLA from the environments testdata/runs/gen/venv.sh makes)")
	seconds := flag.Float64("seconds", 60, "with -overhead: how long each training loop runs")
	bounds := flag.Bool("bounds", false, "instead: the bounded inputs (a gzip bomb, 100 000 modules of one program, two 100 MB constants, 200 000 module families), each checked against its bound on peak RSS")
	shapes := flag.Bool("shapes", false, "instead: recomp scan side by side with rg -c -F -f (the same anchors) on three shapes of log: noise (-mb MB), Poplar/TF (1.5 x -mb MB) and a dense TF VLOG where 5 % of lines matter (-mb MB); fastest round and peak RSS")
	ranks := flag.Int("ranks", 0, "instead: line up N rank logs (recomp ranks), made as they are read, in this process")
	rankMB := flag.Int("rank-mb", 100, "with -ranks: the size of each rank's log in MB")
	rankCompiles := flag.Int("rank-compiles", 8, "with -ranks: compilations in each rank's log")
	cachedTests := flag.Int("pytest-tests", 300, "with -pytest: the tests of testdata/pytest/cached (RECOMP_CACHED_TESTS)")
	pytestCount := flag.Bool("pytest-count", false, "with -pytest: count the instructions of -rounds rounds of pytest and pytest --recomp under valgrind's cachegrind instead of timing them (a load-free measure; some 5 minutes a round)")
	pytestCost := flag.Bool("pytest", false, "instead: the cost of pytest --recomp on testdata/pytest/cached, -rounds rounds of pytest twice and pytest --recomp once (RECOMP_PYTEST, RECOMP_LIVE_JAX_0_12)")
	flag.Parse()
	var err error
	switch {
	case *shapes:
		err = runShapes(*mb, *rounds, *dir, *keep)
	case *ranks > 0:
		err = runRanks(*ranks, *rankMB, *rankCompiles)
	case *pytestCost:
		err = runPytestCost(*rounds, *cachedTests, *dir, *keep, *pytestCount)
	case *overhead:
		err = runOverhead(*rounds, *seconds, *dir, *keep)
	case *bounds:
		err = runBounds(*dir, *keep)
	case *stress:
		err = runStress(*dir, *keep)
	default:
		err = run(*mb, *files, *instr, *rounds, *dir, *keep)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "recomp-bench:", err)
		os.Exit(1)
	}
}

// A job is one command line, timed. The first job of a group is recomp; the others are
// compared with it.
type job struct {
	group, name string
	argv        []string
	env         []string
	bytes       int64 // input size, for MB/s
	times       []time.Duration
	rssKB       []int64
}

func run(mb, nfiles, instr, rounds int, dir string, keep bool) error {
	if mb <= 0 || nfiles <= 0 || instr <= 0 || rounds <= 0 {
		return fmt.Errorf("-mb, -files, -instructions and -rounds must be positive")
	}
	dir, bin, cleanup, err := buildIn(dir, "recomp-bench-", keep)
	if err != nil {
		return err
	}
	defer cleanup()

	big := filepath.Join(dir, "big.log")
	bigSize, lines, err := writeLog(big, int64(mb)<<20, 0)
	if err != nil {
		return err
	}
	var parts []string
	var partsSize int64
	for i := range nfiles {
		p := filepath.Join(dir, fmt.Sprintf("part%d.log", i))
		n, _, err := writeLog(p, int64(mb)<<20/int64(nfiles), i+1)
		if err != nil {
			return err
		}
		parts = append(parts, p)
		partsSize += n
	}
	dumpA, dumpB := filepath.Join(dir, "dumpA"), filepath.Join(dir, "dumpB")
	modA := filepath.Join(dumpA, "module_0001.jit_synthetic_step.before_optimizations.txt")
	modB := filepath.Join(dumpB, "module_0001.jit_synthetic_step.before_optimizations.txt")
	if err := writeModule(modA, hlo.Synthetic{Instructions: instr, Batch: 32, Scale: 0.5}); err != nil {
		return err
	}
	if err := writeModule(modB, hlo.Synthetic{Instructions: instr, Batch: 24, Scale: 0.5}); err != nil {
		return err
	}
	modSize := fileSize(modA)
	fmt.Printf("inputs: one %d MB log (%d lines, 1 in 500 matters), %d logs of %d MB, two %d-instruction modules of %d MB\n",
		bigSize>>20, lines, nfiles, partsSize/int64(nfiles)>>20, instr, modSize>>20)
	fmt.Printf("machine: %d CPUs, %s/%s, %s\n\n", runtime.NumCPU(), runtime.GOOS, runtime.GOARCH, runtime.Version())

	pattern := anchorPattern()
	var jobs []*job
	add := func(group, name string, bytes int64, env []string, argv ...string) {
		jobs = append(jobs, &job{group: group, name: name, argv: argv, env: env, bytes: bytes})
	}
	add("scan", "recomp scan", bigSize, nil, bin, "scan", "--format", "json", big)
	if have("grep") {
		add("scan", "grep -c -E (the same anchors)", bigSize, nil, "grep", "-c", "-E", pattern, big)
		add("scan", "grep -c -E 'Begin XLA compilation'", bigSize, nil, "grep", "-c", "-E", "Begin XLA compilation", big)
	} else {
		fmt.Println("grep not found: skipped (install GNU grep)")
	}
	if have("rg") {
		add("scan", "rg -c (the same anchors)", bigSize, nil, "rg", "-c", pattern, big)
	} else {
		fmt.Println("ripgrep not found: skipped (apt-get install ripgrep, or cargo install ripgrep)")
	}
	scanParts := append([]string{bin, "scan", "--format", "json"}, parts...)
	add("files", fmt.Sprintf("recomp scan, %d logs", nfiles), partsSize, nil, scanParts...)
	add("files", fmt.Sprintf("recomp scan, %d logs, GOMAXPROCS=1", nfiles), partsSize, []string{"GOMAXPROCS=1"}, scanParts...)
	add("hlo", "recomp hlo check (parse)", modSize, nil, bin, "hlo", "check", modA)
	add("diff", "recomp diff", 2*modSize, nil, bin, "diff", "--format", "json", dumpA, dumpB)
	if have("diff") {
		add("diff", "diff -r", 2*modSize, nil, "diff", "-r", dumpA, dumpB)
	} else {
		fmt.Println("diff not found: skipped (install diffutils)")
	}

	// Warm the page cache (streaming: a child's peak RSS counts the parent's memory at fork),
	// then interleave: every round runs every job once.
	for _, f := range append([]string{big, modA, modB}, parts...) {
		if err := warm(f); err != nil {
			return err
		}
	}
	out := filepath.Join(dir, "out")
	for range rounds {
		for _, j := range jobs {
			d, rss, err := timeOne(j, out)
			if err != nil {
				return fmt.Errorf("%s: %v", j.name, err)
			}
			j.times = append(j.times, d)
			j.rssKB = append(j.rssKB, rss)
		}
	}

	fmt.Printf("%-40s %8s %8s %10s %7s\n", fmt.Sprintf("COMMAND (median of %d)", rounds), "SECONDS", "MB/s", "PEAK RSS", "RATIO")
	first := map[string]*job{}
	for _, j := range jobs {
		base := first[j.group]
		if base == nil {
			first[j.group] = j
		}
		ratio := ""
		switch {
		case base == nil:
		case j.group == "files":
			ratio = fmt.Sprintf("x%.2f", median(j.times).Seconds()/median(base.times).Seconds())
		default:
			ratio = fmt.Sprintf("%.2f", median(base.times).Seconds()/median(j.times).Seconds())
		}
		fmt.Printf("%-40s %8.3f %8.0f %7.1f MB %7s\n", j.name, median(j.times).Seconds(),
			float64(j.bytes)/(1<<20)/median(j.times).Seconds(), float64(slices.Max(j.rssKB))/1024, ratio)
	}
	fmt.Println("\nRATIO: recomp's time over the command's (<= 1.00: recomp is at least as fast).")
	fmt.Printf("For the %d-log run: the speed-up of all %d CPUs over GOMAXPROCS=1 (ideal x%d).\n", nfiles, runtime.NumCPU(), runtime.NumCPU())
	return nil
}

// anchorPattern is the scan prefilter's anchors as one extended regexp, for grep and ripgrep.
func anchorPattern() string {
	var alts []string
	for _, a := range frameworks.Grammar().Anchors() {
		alts = append(alts, strings.ReplaceAll(a, ".", `\.`))
	}
	return strings.Join(alts, "|")
}

func timeOne(j *job, out string) (time.Duration, int64, error) {
	cmd := exec.Command(j.argv[0], j.argv[1:]...)
	cmd.Env = append(os.Environ(), j.env...)
	// Output goes to a file: GNU grep stops at the first match when stdout is /dev/null.
	f, err := os.Create(out)
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	cmd.Stdout = f
	start := time.Now()
	err = cmd.Run()
	d := time.Since(start)
	if ee, ok := err.(*exec.ExitError); ok && ee.ExitCode() == 1 {
		err = nil // diff -r and recomp diff exit 1 when the inputs differ
	}
	var rss int64
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		rss = int64(ru.Maxrss) // KB on Linux (bytes on macOS: hence the build constraint)
	}
	return d, rss, err
}

// writeLog writes a TF-VLOG-like log of about size bytes where 1 line in 500 is a compile line;
// seed varies the content between files. It returns the bytes and lines written.
func writeLog(path string, size int64, seed int) (int64, int, error) {
	f, err := os.Create(path)
	if err != nil {
		return 0, 0, err
	}
	n, lines, err := logscan.WriteSynthetic(f, logscan.Synthetic{Size: size, Seed: seed})
	if err != nil {
		f.Close()
		return 0, 0, err
	}
	return n, lines, f.Close()
}

func writeModule(path string, s hlo.Synthetic) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := hlo.WriteSynthetic(f, s); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func warm(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = io.Copy(io.Discard, f)
	return err
}

func have(tool string) bool {
	_, err := exec.LookPath(tool)
	return err == nil
}

func fileSize(p string) int64 {
	st, err := os.Stat(p)
	if err != nil {
		return 0
	}
	return st.Size()
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

// runStress scans and guards logs of 10k, 100k and 1M compilations of one module family, each
// followed by an executable load, and prints the time per event and the peak RSS of each run:
// both must stay flat as the log grows (the ledger keeps aggregates and bounded lists).
func runStress(dir string, keep bool) error {
	dir, cleanup, err := workDir(dir, "recomp-stress-", keep)
	if err != nil {
		return err
	}
	defer cleanup()
	bin := filepath.Join(dir, "recomp")
	if out, err := exec.Command("go", "build", "-o", bin, "./cmd/recomp").CombinedOutput(); err != nil {
		return fmt.Errorf("go build (run from the project root): %v\n%s", err, out)
	}
	fmt.Printf("%-9s %-6s %9s %10s %9s %12s\n", "EVENTS", "CMD", "LOG MB", "SECONDS", "NS/EVENT", "PEAK RSS MB")
	for _, n := range []int{10_000, 100_000, 1_000_000} {
		path := filepath.Join(dir, fmt.Sprintf("stress-%d.log", n))
		f, err := os.Create(path)
		if err != nil {
			return err
		}
		size, _, err := logscan.WriteSynthetic(f, logscan.Synthetic{Compilations: n, Loads: n, Families: 1, Every: 2})
		f.Close()
		if err != nil {
			return err
		}
		if err := warm(path); err != nil {
			return err
		}
		for _, cmd := range []string{"scan", "guard"} {
			j := &job{name: cmd, argv: []string{bin, cmd, "--format", "json", path}}
			d, rss, err := timeOne(j, filepath.Join(dir, "out")) // guard exits 1 here: it is failing the run
			if err != nil {
				return fmt.Errorf("%s: %v", cmd, err)
			}
			fmt.Printf("%-9d %-6s %9.1f %10.3f %9.0f %12.1f\n", 2*n, cmd, float64(size)/(1<<20), d.Seconds(),
				float64(d.Nanoseconds())/float64(2*n), float64(rss)/1024)
		}
	}
	return nil
}

// workDir is the folder for generated inputs: dir, or a new temporary one; cleanup removes it
// unless keep.
// buildIn makes the work folder (workDir) and builds recomp into it; cleanup removes the folder
// unless keep.
func buildIn(dir, prefix string, keep bool) (string, string, func(), error) {
	dir, cleanup, err := workDir(dir, prefix, keep)
	if err != nil {
		return "", "", nil, err
	}
	bin := filepath.Join(dir, "recomp")
	fmt.Printf("building recomp into %s\n", bin)
	if out, err := exec.Command("go", "build", "-o", bin, "./cmd/recomp").CombinedOutput(); err != nil {
		cleanup()
		return "", "", nil, fmt.Errorf("go build (run from the project root): %v\n%s", err, out)
	}
	return dir, bin, cleanup, nil
}

func workDir(dir, prefix string, keep bool) (string, func(), error) {
	if dir == "" {
		d, err := os.MkdirTemp("", prefix)
		if err != nil {
			return "", nil, err
		}
		dir = d
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", nil, err
	}
	if keep {
		return dir, func() {}, nil
	}
	return dir, func() { os.RemoveAll(dir) }, nil
}
