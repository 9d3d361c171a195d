//go:build linux

package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"time"
)

// The cost of recomp run (issue 21.7): its fixed cost (a command that does nothing, plain and
// under recomp run), and for a training loop of each framework the cost per step after warm-up:
// the loop of the calibrated number of steps (about -seconds long) and of a few steps, each
// plain and under recomp run, interleaved over the rounds. The per-step cost is what the long
// run adds beyond what the short one adds — the fixed cost, the compilations' logging and dump
// are in both — over the long run's own steps.

// loop is one framework's training loop (cmd/recomp-bench/loops) and the Python that runs it.
type loop struct {
	name, matrix, script string
	env                  []string
}

var loops = []loop{
	{"JAX", "jax-0.12", "jax_loop.py", nil},
	{"TF (XLA tf.function)", "tf-2.21", "tf_loop.py", nil},
	{"PyTorch/XLA", "torch-xla-2.9", "torch_xla_loop.py", []string{"PJRT_DEVICE=CPU"}},
}

// loopPython is the interpreter of a matrix's virtual environment (testdata/runs/gen/venv.sh
// makes them under ~/.cache/recomp), or "" when there is none.
func loopPython(matrix string) string {
	home, _ := os.UserHomeDir()
	m, _ := filepath.Glob(filepath.Join(home, ".cache", "recomp", "venv-"+matrix+"-*", "bin", "python"))
	if len(m) == 0 {
		return ""
	}
	return m[len(m)-1]
}

// timed runs a command with its output to a file and returns its wall time.
func timed(env []string, out string, argv ...string) (time.Duration, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), env...)
	f, err := os.Create(out)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	cmd.Stdout, cmd.Stderr = f, f
	start := time.Now()
	err = cmd.Run()
	d := time.Since(start)
	if err != nil {
		return d, fmt.Errorf("%v: %v (output in %s)", argv, err, out)
	}
	return d, nil
}

func countLines(path string) int {
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	n := 0
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for sc.Scan() {
		n++
	}
	return n
}

func runOverhead(rounds int, seconds float64, dir string, keep bool) error {
	if rounds <= 0 || seconds <= 0 {
		return fmt.Errorf("-rounds and -seconds must be positive")
	}
	dir, bin, cleanup, err := buildIn(dir, "recomp-overhead-", keep)
	if err != nil {
		return err
	}
	defer cleanup()
	here, _ := os.Getwd()
	fmt.Printf("machine: %d CPUs, %s/%s; %d rounds, loops of about %.0f s\n\n", runtime.NumCPU(), runtime.GOOS, runtime.GOARCH, rounds, seconds)
	n := 0
	next := func() string { n++; return filepath.Join(dir, fmt.Sprintf("r%04d", n)) }

	// The fixed cost: a command that does nothing, and Python that does nothing.
	py := loopPython("jax-0.12")
	fixed := []struct {
		name string
		argv []string
	}{{"true", []string{"true"}}}
	if py != "" {
		fixed = append(fixed, struct {
			name string
			argv []string
		}{"python -c pass", []string{py, "-c", "pass"}})
	}
	fmt.Println("fixed cost (median of the rounds)")
	for _, f := range fixed {
		var plain, under []time.Duration
		for range rounds {
			p, err := timed(nil, next()+".out", f.argv...)
			if err != nil {
				return err
			}
			out := next()
			u, err := timed(nil, out+".out", append([]string{bin, "run", "--out", out, "--"}, f.argv...)...)
			if err != nil {
				return err
			}
			plain, under = append(plain, p), append(under, u)
		}
		fmt.Printf("  %-16s plain %8s  under recomp run %8s  recomp's cost %8s\n", f.name, median(plain).Round(time.Millisecond),
			median(under).Round(time.Millisecond), (median(under) - median(plain)).Round(time.Millisecond))
	}
	fmt.Println()

	// The loop runs pinned to the last CPU, plain and under recomp run alike (recomp itself is
	// not pinned): a shared machine's other work then moves the figures less.
	var pin []string
	if _, err := exec.LookPath("taskset"); err == nil && runtime.NumCPU() > 1 {
		pin = []string{"taskset", "-c", fmt.Sprint(runtime.NumCPU() - 1)}
		fmt.Printf("the loops run pinned to CPU %d (taskset)\n", runtime.NumCPU()-1)
	}
	fmt.Println("training loops: per-step cost after warm-up = (recomp long − recomp short) / (plain long − plain short) − 1")
	for _, l := range loops {
		py := loopPython(l.matrix)
		if py == "" {
			fmt.Printf("  %s: skipped: no %s environment (testdata/runs/gen/venv.sh %s makes it)\n", l.name, l.matrix, l.matrix)
			continue
		}
		script := filepath.Join(here, "cmd", "recomp-bench", "loops", l.script)
		// calibrate: the time per step from two plain runs
		const short, probe = 200, 3000
		a, err := timed(l.env, next()+".out", append(slices.Clone(pin), py, script, fmt.Sprint(short))...)
		if err != nil {
			return err
		}
		b, err := timed(l.env, next()+".out", append(slices.Clone(pin), py, script, fmt.Sprint(probe))...)
		if err != nil {
			return err
		}
		perStep := (b - a).Seconds() / float64(probe-short)
		if floor := b.Seconds() / float64(probe); perStep < floor/100 {
			// the two runs' start-up noise hid the steps (TF's loop here took 10 million steps
			// for "10 s" and ran for over 12 minutes): take the probe run's time a step, start-up
			// included, which is at least the step's
			perStep = floor
		}
		long := max(probe, int(seconds/perStep))
		var ps, pl, rs, rl []time.Duration
		var linesShort, linesLong int
		for range rounds {
			for _, c := range []struct {
				steps int
				under bool
				into  *[]time.Duration
			}{{short, false, &ps}, {short, true, &rs}, {long, false, &pl}, {long, true, &rl}} {
				argv := append(slices.Clone(pin), py, script, fmt.Sprint(c.steps))
				out := next()
				if c.under {
					argv = append([]string{bin, "run", "--out", out, "--"}, argv...)
				}
				d, err := timed(l.env, out+".out", argv...)
				if err != nil {
					return err
				}
				*c.into = append(*c.into, d)
				if c.under && c.steps == short {
					linesShort = countLines(filepath.Join(out, "run.log"))
				}
				if c.under && c.steps == long {
					linesLong = countLines(filepath.Join(out, "run.log"))
				}
			}
		}
		P := median(pl) - median(ps)
		R := median(rl) - median(rs)
		fmt.Printf("  %s (%d steps, %.2f ms a step)\n", l.name, long, 1000*P.Seconds()/float64(long-short))
		fmt.Printf("    plain: %d steps %8s, %d steps %8s\n", short, median(ps).Round(time.Millisecond), long, median(pl).Round(time.Millisecond))
		fmt.Printf("    recomp run: %d steps %8s, %d steps %8s\n", short, median(rs).Round(time.Millisecond), long, median(rl).Round(time.Millisecond))
		fmt.Printf("    whole run +%.1f%%; per step after warm-up %+.2f%%; fixed and compile-time cost %s; run.log %d lines (%.3f a step)\n",
			100*(median(rl).Seconds()/median(pl).Seconds()-1), 100*(R.Seconds()/P.Seconds()-1),
			(median(rs) - median(ps)).Round(time.Millisecond), linesLong, float64(linesLong-linesShort)/float64(long-short))
	}
	return nil
}
