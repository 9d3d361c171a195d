//go:build linux

package main

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// The cost of the pytest plugin counted, not timed (-pytest -pytest-count): on a shared
// machine the same pytest run takes from 2.3 to 4.6 s of CPU, five times the cost sought, and
// no batch of timed rounds bounds a difference of 2 % (see docs/pytest.md). Valgrind's
// cachegrind counts the instructions a process executes, which the load of the machine does
// not move, but for the thread pools' idle loops: a worker spins while it waits for work, as
// long as the wait lasts. So a run's instructions are counted outside those loops (idleLoops),
// and the suite's input is put on the device (a numpy input is aliased or copied at each call
// as its address happens to be aligned or not): four plain runs then agree within 2.2 M of
// 5.4 G instructions. The plugin's cost is pytest --recomp's count less pytest's, and the
// binary's: valgrind does not follow it out of Python's pipes reliably, so the same session
// open --stay and close --report --judge that binaryCalls times are counted apart.

// idleLoops are the functions of the thread pools' waiting: OpenBLAS's workers (numpy's
// BLAS) and the Eigen thread pools of XLA's CPU client steal, pop and yield until work comes.
var idleLoops = []string{"blas_thread_server", "Eigen::ThreadPoolTempl<", "Eigen::RunQueue<", "EigenEnvironment::Task", "sched_yield"}

// cgCount is one process's instructions, as cachegrind counted them: all, and those in
// idleLoops.
type cgCount struct{ all, idle int64 }

// work is the instructions outside the idle loops.
func (c cgCount) work() int64 { return c.all - c.idle }

// readCachegrind reads a cachegrind output file (--cache-sim=no: one event, Ir): its total,
// and the instructions of the functions idleLoops names.
func readCachegrind(path string) (cgCount, error) {
	f, err := os.Open(path)
	if err != nil {
		return cgCount{}, err
	}
	defer f.Close()
	var c cgCount
	var idle, summary bool
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 16*1024*1024)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "fn="):
			name := line[len("fn="):]
			idle = slices.ContainsFunc(idleLoops, func(s string) bool { return strings.Contains(name, s) })
		case strings.HasPrefix(line, "summary:"):
			v, err := strconv.ParseInt(strings.Fields(line[len("summary:"):] + " x")[0], 10, 64)
			if err != nil {
				return cgCount{}, fmt.Errorf("%s:%d: summary: %v", path, n, err)
			}
			c.all, summary = v, true
		case idle && line != "" && line[0] >= '0' && line[0] <= '9':
			fields := strings.Fields(line)
			if len(fields) < 2 {
				return cgCount{}, fmt.Errorf("%s:%d: a cost line without a count", path, n)
			}
			v, err := strconv.ParseInt(fields[1], 10, 64)
			if err != nil {
				return cgCount{}, fmt.Errorf("%s:%d: %v", path, n, err)
			}
			c.idle += v
		}
	}
	if err := sc.Err(); err != nil {
		return cgCount{}, fmt.Errorf("%s: %v", path, err)
	}
	if !summary {
		return cgCount{}, fmt.Errorf("%s: no summary line (did the process end?)", path)
	}
	return c, nil
}

// runPytestCount counts rounds of pytest and pytest --recomp on suite, run from work by py,
// and the binary bin's calls of a session, under cachegrind.
func runPytestCount(rounds, tests int, bin, py, suite, work, dir string) error {
	vg, err := exec.LookPath("valgrind")
	if err != nil {
		return fmt.Errorf("-pytest-count needs valgrind (apt-get install valgrind): %v", err)
	}
	grind := func(out string) []string {
		return []string{vg, "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=" + out}
	}
	fmt.Printf("counting instructions with %s: %d rounds of pytest and pytest --recomp at once on %s (%d tests, RECOMP_CACHED_ON_DEVICE=1)\n\n", vg, rounds, suite, tests)
	var mu sync.Mutex
	one := func(recomp bool, i int) (cgCount, error) {
		arm := "pytest"
		args := []string{py, "-m", "pytest", "-p", "no:cacheprovider", "-q", suite}
		if recomp {
			arm = "recomp"
			args = append(args, "--recomp", "--recomp-out", filepath.Join(dir, fmt.Sprintf("counted%02d", i)))
		}
		out := filepath.Join(dir, fmt.Sprintf("cachegrind-%s-%02d.out", arm, i))
		argv := append(grind(out), args...)
		cmd := exec.Command(argv[0], argv[1:]...)
		// The suite's input on the device: a numpy input is aliased or copied at each call as
		// its address happens to be aligned or not (some 55 M instructions a run).
		cmd.Dir, cmd.Env = work, append(os.Environ(), "PYTHONDONTWRITEBYTECODE=1", fmt.Sprintf("RECOMP_CACHED_TESTS=%d", tests), "RECOMP_CACHED_ON_DEVICE=1")
		b, err := cmd.CombinedOutput()
		if err != nil {
			return cgCount{}, fmt.Errorf("valgrind pytest %v: %v\n%s", args[3:], err, b)
		}
		if recomp != strings.Contains(string(b), "== recomp ==") {
			return cgCount{}, fmt.Errorf("pytest %v: the plugin's table is missing or there without --recomp:\n%s", args[3:], b)
		}
		c, err := readCachegrind(out)
		if err == nil {
			mu.Lock()
			fmt.Printf("  round %d, %-15s %8.1f M instructions, %8.1f M of them in the idle loops\n", i+1, arm+":", mega(c.all), mega(c.idle))
			mu.Unlock()
		}
		return c, err
	}
	// The two runs of a round at once, one a CPU (valgrind runs a process's threads on one):
	// what each executes does not depend on the other.
	var plain, under []cgCount
	for i := range rounds {
		var c [2]cgCount
		var errs [2]error
		var wg sync.WaitGroup
		for k := range 2 {
			wg.Go(func() { c[k], errs[k] = one(k == 1, i) })
		}
		wg.Wait()
		if err := errors.Join(errs[:]...); err != nil {
			return err
		}
		plain, under = append(plain, c[0]), append(under, c[1])
	}
	// The binary: the two commands of one session, on the folder of the last counted run.
	out := filepath.Join(dir, "cachegrind-binary.out")
	if _, err := sessionCall(append(grind(out), bin), filepath.Join(dir, "counted-calls"), filepath.Join(dir, fmt.Sprintf("counted%02d", rounds-1))); err != nil {
		return err
	}
	calls, err := readCachegrind(out)
	if err != nil {
		return err
	}
	works := func(cs []cgCount) []int64 {
		var out []int64
		for _, c := range cs {
			out = append(out, c.work())
		}
		return out
	}
	p, u := works(plain), works(under)
	pAll := make([]int64, 0, len(plain))
	for _, c := range plain {
		pAll = append(pAll, c.all)
	}
	pw, uw, pa := medianInt(p), medianInt(u), medianInt(pAll)
	cost := uw - pw + calls.all
	fmt.Printf("\noutside the idle loops: pytest median %.1f M (%.1f–%.1f), pytest --recomp median %.1f M (%.1f–%.1f)\n",
		mega(pw), mega(slices.Min(p)), mega(slices.Max(p)), mega(uw), mega(slices.Min(u)), mega(slices.Max(u)))
	fmt.Printf("  the plugin in pytest's process: %+.1f M instructions (the plain runs' spread %.1f M)\n", mega(uw-pw), mega(slices.Max(p)-slices.Min(p)))
	fmt.Printf("  the binary (session open --stay, then close --report --judge): %.1f M instructions\n", mega(calls.all))
	fmt.Printf("--recomp's cost: %+.1f M instructions = %+.2f %% of pytest's (median, all %.1f M), %+.2f %% of its instructions outside the idle loops\n",
		mega(cost), 100*float64(cost)/float64(pa), mega(pa), 100*float64(cost)/float64(pw))
	// Instructions are the user space's: the kernel's work (the binary's start and page faults,
	// the files the evidence writes) is not in them. The binary's, as CPU time:
	return binaryCalls(bin, dir, filepath.Join(dir, fmt.Sprintf("counted%02d", rounds-1)))
}

func mega(n int64) float64 { return float64(n) / 1e6 }

// medianInt is the median of xs (the lower of the middle two).
func medianInt(xs []int64) int64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[(len(s)-1)/2]
}
