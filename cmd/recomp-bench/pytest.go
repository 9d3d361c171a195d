//go:build linux

package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/recomp/recomp/internal/dist"
	"github.com/recomp/recomp/python"
	"github.com/recomp/recomp/runner"
)

// The cost of the pytest plugin (issue 40): testdata/pytest/cached (300 tests of a program a
// module fixture compiled once) run by pytest twice and by pytest --recomp once a round, the
// order rotating (the two plain runs measure the noise a difference has on this machine), with
// the wheel (this checkout's binary, built as a release builds it, and Python package)
// pip-installed into a fresh virtual environment that sees the packages of the pytest and JAX
// environments (RECOMP_PYTEST, RECOMP_LIVE_JAX_0_12, as python/suites_test.go does). Each run's
// CPU time is its process tree's (user + system, wait4's: the binary's calls included): on a
// shared machine it moves less than the wall time, which is given too.

// pytestRun is one pytest run's CPU and wall time.
type pytestRun struct{ cpu, wall time.Duration }

func runPytestCost(rounds, tests int, dir string, keep, count bool) error {
	if rounds <= 0 || tests <= 0 {
		return fmt.Errorf("-rounds and -pytest-tests must be positive")
	}
	pytest, jax := os.Getenv("RECOMP_PYTEST"), os.Getenv("RECOMP_LIVE_JAX_0_12")
	if pytest == "" || jax == "" {
		return fmt.Errorf("-pytest needs RECOMP_PYTEST and RECOMP_LIVE_JAX_0_12 (the Pythons testdata/runs/gen/venv.sh testdata/pytest/pytest.txt and testdata/runs/gen/jax-0.12.txt print)")
	}
	dir, cleanup, err := workDir(dir, "recomp-pytest-", keep)
	if err != nil {
		return err
	}
	defer cleanup()
	// The binary as the release wheel holds it (static, stripped): the dev build (cgo, symbols)
	// starts about a millisecond slower a call, and pytest --recomp calls it twice.
	bin := filepath.Join(dir, "recomp")
	fmt.Printf("building recomp as a release does (internal/dist) into %s\n", bin)
	root, err := os.Getwd()
	if err != nil {
		return err
	}
	var stderr strings.Builder
	if err := dist.Build(context.Background(), dist.Target{OS: runtime.GOOS, Arch: runtime.GOARCH}, dist.BuildOptions{Root: root, Output: bin, Stderr: &stderr}); err != nil {
		return fmt.Errorf("%v (run from the project root)\n%s", err, stderr.String())
	}
	py, err := pluginVenv(dir, bin, pytest, jax)
	if err != nil {
		return err
	}
	suite, _ := filepath.Abs(filepath.Join("testdata", "pytest", "cached"))
	work := filepath.Join(dir, "work")
	if err := os.MkdirAll(work, 0o755); err != nil {
		return err
	}
	if count {
		return runPytestCount(rounds, tests, bin, py, suite, work, dir)
	}
	fmt.Printf("machine: %d CPUs, %s/%s; %d rounds of pytest, pytest again and pytest --recomp on %s (%d tests), the order rotating\n\n", runtime.NumCPU(), runtime.GOOS, runtime.GOARCH, rounds, suite, tests)
	one := func(recomp bool, i int) (pytestRun, error) {
		args := []string{"-m", "pytest", "-p", "no:cacheprovider", "-q", suite}
		if recomp {
			args = append(args, "--recomp", "--recomp-out", filepath.Join(dir, fmt.Sprintf("run%03d", i)))
		}
		cmd := exec.Command(py, args...)
		cmd.Dir, cmd.Env = work, append(os.Environ(), "PYTHONDONTWRITEBYTECODE=1", fmt.Sprintf("RECOMP_CACHED_TESTS=%d", tests))
		start := time.Now()
		out, err := cmd.CombinedOutput()
		wall := time.Since(start)
		if err != nil {
			return pytestRun{}, fmt.Errorf("pytest %v: %v\n%s", args, err, out)
		}
		if recomp != strings.Contains(string(out), "== recomp ==") {
			return pytestRun{}, fmt.Errorf("pytest %v: the plugin's table is missing or there without --recomp:\n%s", args, out)
		}
		return pytestRun{cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime(), wall}, nil
	}
	// Each round runs pytest twice and pytest --recomp once, the order rotating: the second
	// plain run against the first is what this machine's noise alone makes of a difference.
	var plain, again, under []pytestRun
	for i := range rounds + 1 {
		var r [3]pytestRun
		for k := range 3 {
			v := (i + k) % 3
			run, err := one(v == 2, i)
			if err != nil {
				return err
			}
			r[v] = run
		}
		if i == 0 {
			continue // the first round warms the page cache
		}
		plain, again, under = append(plain, r[0]), append(again, r[1]), append(under, r[2])
	}
	for _, m := range []struct {
		name string
		of   func(pytestRun) time.Duration
	}{{"CPU (user+sys)", func(r pytestRun) time.Duration { return r.cpu }}, {"wall", func(r pytestRun) time.Duration { return r.wall }}} {
		var a, b []time.Duration
		for i := range plain {
			a, b = append(a, m.of(plain[i])), append(b, m.of(under[i]))
		}
		fmt.Printf("%s: pytest median %.3f s (%.3f–%.3f), pytest --recomp median %.3f s (%.3f–%.3f)\n", m.name,
			median(a).Seconds(), slices.Min(a).Seconds(), slices.Max(a).Seconds(), median(b).Seconds(), slices.Min(b).Seconds(), slices.Max(b).Seconds())
		for _, d := range []struct {
			what string
			runs []pytestRun
		}{{"--recomp's cost", under}, {"noise (pytest again)", again}} {
			diff, rel := differences(plain, d.runs, m.of)
			q, r := quartiles(diff), quartiles(rel)
			interval := "no 95 % interval of the median under 6 rounds"
			if lo, hi := medianInterval(rel); !math.IsNaN(lo) {
				interval = fmt.Sprintf("the median's 95 %% interval %+.1f %%, %+.1f %%", lo, hi)
			}
			fmt.Printf("  %s, round by round: median %+.3f s (quartiles %+.3f, %+.3f) = %+.1f %% (quartiles %+.1f %%, %+.1f %%; %s)\n",
				d.what, q[1], q[0], q[2], r[1], r[0], r[2], interval)
		}
	}
	return binaryCalls(bin, dir, filepath.Join(dir, fmt.Sprintf("run%03d", rounds)))
}

// binaryCalls times, 20 times, the one process of the binary a session starts: session open
// --stay, then, once the folder holds the run's log, probe records and dump, the close --report
// --judge it reads on stdin; by its CPU time, the part of the plugin's cost the load of a shared
// machine moves least.
func binaryCalls(bin, dir, run string) error {
	var took []time.Duration
	for i := range 20 {
		state, err := sessionCall([]string{bin}, filepath.Join(dir, fmt.Sprintf("calls%02d", i)), run)
		if err != nil {
			return err
		}
		took = append(took, state.UserTime()+state.SystemTime())
	}
	fmt.Printf("the binary a session starts (session open --stay, then its close --report --judge), CPU, median of 20: %.1f ms\n",
		float64(median(took).Microseconds())/1000)
	return nil
}

// sessionCall runs argv (the binary, or a command that runs it) with the arguments of the
// plugin's session open --stay into folder, copies the run folder run's log, probe records and
// dump into folder, and sends it the close --report --judge the plugin sends.
func sessionCall(argv []string, folder, run string) (*os.ProcessState, error) {
	cmd := exec.Command(argv[0], append(argv[1:], "session", "open", "--out", folder, "--stay", "--", "pytest")...)
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	rd := bufio.NewReader(out)
	if _, err := rd.ReadString('\n'); err != nil {
		cmd.Wait()
		return nil, fmt.Errorf("session open --stay: %v\n%s", err, stderr.String())
	}
	if b, err := exec.Command("cp", "-r", filepath.Join(run, "run.log"), filepath.Join(run, "probe.jsonl"), filepath.Join(run, "dump"), folder).CombinedOutput(); err != nil {
		cmd.Wait()
		return nil, fmt.Errorf("cp: %v\n%s", err, b)
	}
	req, _ := json.Marshal(map[string]any{"args": []string{"session", "close", "--report", "--judge", folder}, "stdin": `[{"framework": "jax", "name": "jit(step)"}]`})
	in.Write(append(req, '\n'))
	in.Close()
	io.Copy(io.Discard, rd)
	if err := cmd.Wait(); err != nil {
		return nil, fmt.Errorf("session open --stay, then close: %v\n%s", err, stderr.String())
	}
	return cmd.ProcessState, nil
}

// differences are, run by run, ys' time less xs', in seconds and in percent of xs'.
func differences(xs, ys []pytestRun, of func(pytestRun) time.Duration) (diff, rel []float64) {
	for i := range xs {
		x, y := of(xs[i]), of(ys[i])
		diff = append(diff, (y - x).Seconds())
		rel = append(rel, 100*(y-x).Seconds()/x.Seconds())
	}
	return diff, rel
}

// quartiles are the lower quartile, median and upper quartile of xs (by nearest rank).
func quartiles(xs []float64) [3]float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	at := func(f float64) float64 { return s[int(f*float64(len(s)-1)+0.5)] }
	return [3]float64{at(0.25), at(0.5), at(0.75)}
}

// medianInterval is a 95 % confidence interval of the median of xs that assumes nothing of
// their distribution (the rounds are independent): the k-th smallest and the k-th largest, k the
// largest rank with at most 2.5 % binomial(n, 1/2) probability below it. Both are NaN for fewer
// than 6 values, where no such k exists.
func medianInterval(xs []float64) (lo, hi float64) {
	n := len(xs)
	s := slices.Clone(xs)
	slices.Sort(s)
	k, cdf, p := 0, 0.0, math.Pow(0.5, float64(n)) // p: P(X = j), X ~ binomial(n, 1/2)
	for j := 0; j < n; j++ {
		if cdf+p > 0.025 {
			break
		}
		cdf += p
		k = j + 1
		p *= float64(n-j) / float64(j+1)
	}
	if k == 0 {
		return math.NaN(), math.NaN()
	}
	return s[k-1], s[n-k]
}

// pluginVenv makes a virtual environment in dir that sees the packages of the pytest and the
// JAX environments (a .pth file; both of one Python version) with the wheel of bin and this
// checkout's Python package pip-installed, and returns its python.
func pluginVenv(dir, bin, pytest, jax string) (string, error) {
	ask := func(py, code string) (string, error) {
		out, err := exec.Command(py, "-c", code).Output()
		if err != nil {
			return "", fmt.Errorf("%s -c %q: %v", py, code, err)
		}
		return strings.TrimSpace(string(out)), nil
	}
	const version, purelib = "import sys; print('%d.%d' % sys.version_info[:2])", "import sysconfig; print(sysconfig.get_path('purelib'))"
	a, err := ask(pytest, version)
	if err != nil {
		return "", err
	}
	if b, err := ask(jax, version); err != nil || a != b {
		return "", fmt.Errorf("RECOMP_PYTEST's Python is %s, RECOMP_LIVE_JAX_0_12's %s (%v): one environment cannot see both", a, b, err)
	}
	base, err := ask(pytest, "import sys; print(sys._base_executable)")
	if err != nil {
		return "", err
	}
	venv := filepath.Join(dir, "venv")
	if out, err := exec.Command(base, "-m", "venv", venv).CombinedOutput(); err != nil {
		return "", fmt.Errorf("venv: %v\n%s", err, out)
	}
	py := filepath.Join(venv, "bin", "python")
	var pth []string
	for _, p := range []string{pytest, jax} {
		lib, err := ask(p, purelib)
		if err != nil {
			return "", err
		}
		pth = append(pth, lib)
	}
	own, err := ask(py, purelib)
	if err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(own, "zz_recomp_bench.pth"), []byte(strings.Join(pth, "\n")+"\n"), 0o644); err != nil {
		return "", err
	}
	w := &dist.Wheel{Name: "recomp", Version: "0.0.0", Tags: []string{"any"}, Command: "recomp", Binary: bin,
		Time: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), Python: python.Files(runner.ProbeSource()), EntryPoints: python.EntryPoints}
	whl := filepath.Join(dir, w.FileName())
	f, err := os.Create(whl)
	if err != nil {
		return "", err
	}
	err = w.Write(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", err
	}
	if out, err := exec.Command(py, "-m", "pip", "install", "--quiet", "--no-index", "--no-deps", "--disable-pip-version-check", whl).CombinedOutput(); err != nil {
		return "", fmt.Errorf("pip install: %v\n%s", err, out)
	}
	return py, nil
}
