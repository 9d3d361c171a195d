//go:build linux

package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/recomp/recomp/logscan"
)

// The bounded inputs of issue 18: each is generated, run through the commands that read it, and
// checked against its bound on peak RSS (and exit code). The bounds:
//
//   - a gzip bomb (1 MB inflating to 1 GiB) is refused at the HLO cap (exit 2) in little memory,
//     and scanned as a log (streamed, no cap) in constant memory;
//   - a dump of 100 000 small modules of one program is explained, and diffed against a copy
//     that lacks one of them, in at most 256 MB;
//   - two modules with a 100 MB constant are compared in at most 4 times their size;
//   - a log of 200 000 distinct module families is scanned and gated in at most 256 MB;
//
// and of issue 43 (every reader bounded, in at most 100 MB):
//
//   - a log of 1 000 000 retracing warnings, each about a function of its own name, is gated;
//   - a run folder whose probe.jsonl holds 1 000 000 records of a Keras predict() loop is gated.

// boundCase is one command on one generated input and its bound.
type boundCase struct {
	input   string
	name    string
	argv    []string
	bytes   int64   // input size
	maxRSS  float64 // MB; 0 when the bound is a multiple of the input
	times   float64 // the bound as a multiple of the input size
	exit    int     // the exit code expected
	expectS string  // a string the output must hold
}

func runBounds(dir string, keep bool) error {
	dir, bin, cleanup, err := buildIn(dir, "recomp-bounds-", keep)
	if err != nil {
		return err
	}
	defer cleanup()
	fmt.Println("generating the inputs …")
	bomb := filepath.Join(dir, "bomb.hlo.gz")
	bombSize, err := writeBomb(bomb, 1024)
	if err != nil {
		return err
	}
	dumpA, dumpB := filepath.Join(dir, "versions"), filepath.Join(dir, "versions-b")
	dumpSize, err := writeVersions(dumpA, dumpB, 100_000)
	if err != nil {
		return err
	}
	constA, constB := filepath.Join(dir, "const-a.hlo"), filepath.Join(dir, "const-b.hlo")
	var constSize int64
	for i, p := range []string{constA, constB} {
		n, err := writeConstantModule(p, 14_000_000, i)
		if err != nil {
			return err
		}
		constSize += n
	}
	fams := filepath.Join(dir, "families.log")
	f, err := os.Create(fams)
	if err != nil {
		return err
	}
	famSize, _, err := logscan.WriteSynthetic(f, logscan.Synthetic{Compilations: 400_000, Families: 200_000, Every: 2})
	f.Close()
	if err != nil {
		return err
	}

	retraces := filepath.Join(dir, "retraces.log")
	retraceSize, err := writeRetraces(retraces, 1_000_000)
	if err != nil {
		return err
	}
	probeRun := filepath.Join(dir, "predict-run")
	probeSize, err := writePredictRun(probeRun, 1_000_000)
	if err != nil {
		return err
	}

	cases := []boundCase{
		{input: "gzip bomb 1 MB -> 1 GiB", name: "hlo check (refused at 512 MiB)", argv: []string{"hlo", "check", bomb}, bytes: bombSize,
			maxRSS: 64, exit: 2, expectS: "inflates (gzip) to more than 512 MiB"},
		{input: "gzip bomb 1 MB -> 1 GiB", name: "scan (a log: streamed)", argv: []string{"scan", "--format", "json", bomb}, bytes: bombSize, maxRSS: 64},
		{input: "100 000 modules of one program", name: "explain --format json", argv: []string{"explain", "--format", "json", dumpA},
			bytes: dumpSize, maxRSS: 256, exit: 1},
		{input: "100 000 modules of one program", name: "explain (text)", argv: []string{"explain", dumpA}, bytes: dumpSize, maxRSS: 256, exit: 1},
		{input: "100 000 modules of one program", name: "diff --format json (B lacks one)", argv: []string{"diff", "--format", "json", dumpA, dumpB},
			bytes: 2 * dumpSize, maxRSS: 256, exit: 1},
		{input: "two modules, 92 MiB constant each", name: "diff --format json", argv: []string{"diff", "--format", "json", constA, constB},
			bytes: constSize, times: 4, exit: 1, expectS: "14000000 elements"},
		{input: "200 000 module families", name: "scan --format json", argv: []string{"scan", "--format", "json", fams}, bytes: famSize, maxRSS: 256,
			expectS: `"families_not_listed": 190000`},
		{input: "200 000 module families", name: "guard --format json", argv: []string{"guard", "--format", "json", fams}, bytes: famSize,
			maxRSS: 256, exit: 1},
		{input: "1 000 000 retraced function names", name: "guard --format json", argv: []string{"guard", "--format", "json", retraces}, bytes: retraceSize,
			maxRSS: 100, exit: 2, expectS: `"retraces_not_listed": 999000`},
		{input: "probe.jsonl, 1 000 000 predict records", name: "guard --format json", argv: []string{"guard", "--format", "json", probeRun}, bytes: probeSize,
			maxRSS: 100, exit: 0},
	}
	for _, p := range []string{bomb, fams, constA, constB, retraces, filepath.Join(probeRun, "probe.jsonl")} {
		if err := warm(p); err != nil {
			return err
		}
	}
	fmt.Printf("machine: %d CPUs, %s\n\n%-36s %-34s %9s %8s %9s %9s  %s\n", runtime.NumCPU(), runtime.Version(), "INPUT", "COMMAND", "INPUT MB", "SECONDS", "PEAK MB", "BOUND MB", "")
	out := filepath.Join(dir, "out")
	failed := 0
	for _, c := range cases {
		d, rss, code, err := runBound(append([]string{bin}, c.argv...), out)
		if err != nil {
			return fmt.Errorf("%s: %v", c.name, err)
		}
		bound := c.maxRSS
		if c.times > 0 {
			bound = c.times * float64(c.bytes) / (1 << 20)
		}
		peak := float64(rss) / 1024
		verdict := "ok"
		switch {
		case peak > bound:
			verdict = "OVER THE BOUND"
		case code != c.exit:
			verdict = fmt.Sprintf("EXIT %d, want %d", code, c.exit)
		case c.expectS != "" && !fileHolds(out, c.expectS):
			verdict = fmt.Sprintf("OUTPUT LACKS %q", c.expectS)
		}
		if verdict != "ok" {
			failed++
		}
		fmt.Printf("%-36s %-34s %9.1f %8.2f %9.1f %9.0f  %s\n", c.input, c.name, float64(c.bytes)/(1<<20), d.Seconds(), peak, bound, verdict)
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d bounded runs failed", failed, len(cases))
	}
	return nil
}

// runBound runs one command with its stdout in out and its stderr in out.err, and returns
// its wall time, peak RSS (KB) and exit code.
func runBound(argv []string, out string) (time.Duration, int64, int, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	o, err := os.Create(out)
	if err != nil {
		return 0, 0, 0, err
	}
	defer o.Close()
	e, err := os.Create(out + ".err")
	if err != nil {
		return 0, 0, 0, err
	}
	defer e.Close()
	cmd.Stdout, cmd.Stderr = o, e
	start := time.Now()
	err = cmd.Run()
	d := time.Since(start)
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code, err = ee.ExitCode(), nil
	}
	var rss int64
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		rss = int64(ru.Maxrss)
	}
	return d, rss, code, err
}

func fileHolds(path, s string) bool {
	b, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	if bytes.Contains(b, []byte(s)) {
		return true
	}
	// refused inputs say why on stderr
	e, _ := os.ReadFile(path + ".err")
	return bytes.Contains(e, []byte(s))
}

// writeBomb writes a gzip stream of n members of 1 MiB of zeros each (about n KB that inflate
// to n MiB) and returns its size.
func writeBomb(path string, n int) (int64, error) {
	var member bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&member, gzip.BestCompression)
	zw.Write(make([]byte, 1<<20))
	zw.Close()
	b := bytes.Repeat(member.Bytes(), n)
	return int64(len(b)), os.WriteFile(path, b, 0o644)
}

// writeVersions writes n versions of one small JAX-like program into dirA (each with its own
// constant, every tenth with a smaller batch), and the same files but the middle one into dirB
// (hard links). It returns the size of dirA's files.
func writeVersions(dirA, dirB string, n int) (int64, error) {
	for _, d := range []string{dirA, dirB} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return 0, err
		}
	}
	var size int64
	for i := range n {
		b := 32
		if i%10 == 9 {
			b = 24
		}
		text := strings.NewReplacer("$B", strconv.Itoa(b), "$C", strconv.Itoa(i)).Replace(versionTemplate)
		name := fmt.Sprintf("module_%04d.jit_step.before_optimizations.txt", i)
		if err := os.WriteFile(filepath.Join(dirA, name), []byte(text), 0o644); err != nil {
			return 0, err
		}
		size += int64(len(text))
		if i != n/2 {
			if err := os.Link(filepath.Join(dirA, name), filepath.Join(dirB, name)); err != nil {
				return 0, err
			}
		}
	}
	return size, nil
}

const versionTemplate = `HloModule jit_step, entry_computation_layout={(f32[$B,8]{1,0}, f32[8,4]{1,0})->f32[$B,4]{1,0}}

ENTRY %main.7 (x.1: f32[$B,8], w.2: f32[8,4]) -> f32[$B,4] {
  %x.1 = f32[$B,8]{1,0} parameter(0), metadata={op_name="x"}
  %w.2 = f32[8,4]{1,0} parameter(1), metadata={op_name="w"}
  %dot.3 = f32[$B,4]{1,0} dot(f32[$B,8]{1,0} %x.1, f32[8,4]{1,0} %w.2), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  %constant.4 = f32[] constant($C)
  %broadcast.5 = f32[$B,4]{1,0} broadcast(f32[] %constant.4), dimensions={}
  ROOT %multiply.6 = f32[$B,4]{1,0} multiply(f32[$B,4]{1,0} %dot.3, f32[$B,4]{1,0} %broadcast.5)
}
`

// writeConstantModule writes a module whose one constant has n f32 elements; variant bumps the
// last one. It returns the file's size.
func writeConstantModule(path string, n, variant int) (int64, error) {
	f, err := os.Create(path)
	if err != nil {
		return 0, err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	fmt.Fprintf(w, "HloModule jit_big, entry_computation_layout={(f32[%d]{0})->f32[%d]{0}}\n\nENTRY %%main.3 (Arg_0.1: f32[%d]) -> f32[%d] {\n", n, n, n, n)
	fmt.Fprintf(w, "  %%Arg_0.1 = f32[%d]{0} parameter(0)\n  %%constant.2 = f32[%d]{0} constant({", n, n)
	for i := 0; i < n; i++ {
		if i > 0 {
			w.WriteString(", ")
		}
		x := i % 1000
		if i == n-1 {
			x += variant
		}
		w.WriteString(strconv.Itoa(x))
		w.WriteString(".5")
	}
	fmt.Fprintf(w, "})\n  ROOT %%add.3 = f32[%d]{0} add(f32[%d]{0} %%Arg_0.1, f32[%d]{0} %%constant.2)\n}\n", n, n, n)
	if err := w.Flush(); err != nil {
		f.Close()
		return 0, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return 0, err
	}
	return st.Size(), f.Close()
}

// writeRetraces writes a log of n TF retracing warnings, each about a function of its own name
// (a tf.function made anew in a loop), and returns its size.
func writeRetraces(path string, n int) (int64, error) {
	f, err := os.Create(path)
	if err != nil {
		return 0, err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	for i := range n {
		fmt.Fprintf(w, "WARNING:tensorflow:5 out of the last 5 calls to <function step_%d at 0x7f%08x> triggered tf.function retracing. "+
			"Tracing is expensive and the excessive number of tracings could be due to (1) creating @tf.function repeatedly in a loop.\n", i, i)
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return 0, err
	}
	st, err := f.Stat()
	f.Close()
	if err != nil {
		return 0, err
	}
	return st.Size(), nil
}

// writePredictRun writes a run folder of a Keras program on JAX that compiled its predict step
// once and called predict() n/2 times: run.log with the compilation, probe.jsonl with the
// compilation and n records of the calls. It returns the probe's size.
func writePredictRun(dir string, n int) (int64, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return 0, err
	}
	log := "WARNING:jax._src.interpreters.pxla:Compiling jit(predict_step) with global shapes and types (ShapedArray(float32[8,4]),). Argument mapping: (UnspecifiedValue,).\n" +
		"WARNING:jax._src.dispatch:Finished XLA compilation of jit(predict_step) in 0.500000000 sec\n"
	if err := os.WriteFile(filepath.Join(dir, "run.log"), []byte(log), 0o644); err != nil {
		return 0, err
	}
	f, err := os.Create(filepath.Join(dir, "probe.jsonl"))
	if err != nil {
		return 0, err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	fmt.Fprintf(w, `{"framework":"jax","event":"compile","seconds":0.5,"name":"jit(predict_step)","file":"/srv/serve.py","line":40,"function":"serve","t":1795756380.0,"pid":7}`+"\n")
	for i := range n / 2 {
		t := 1795756381 + float64(i)*0.001
		fmt.Fprintf(w, `{"framework":"keras","event":"predict_begin","model":"7f3c","file":"/srv/serve.py","line":40,"function":"serve","samples":8,"batch_size":32,"t":%.4f,"pid":7}`+"\n"+
			`{"framework":"keras","event":"predict_end","t":%.4f,"pid":7}`+"\n", t, t+0.0005)
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return 0, err
	}
	st, err := f.Stat()
	f.Close()
	if err != nil {
		return 0, err
	}
	return st.Size(), nil
}
