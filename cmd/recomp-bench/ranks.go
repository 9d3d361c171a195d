//go:build linux

package main

import (
	"bytes"
	"fmt"
	"io"
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/recomp/recomp/across"
	"github.com/recomp/recomp/ledger"
	"github.com/recomp/recomp/logscan"
	"github.com/recomp/recomp/report"
)

// The many-ranks benchmark: N rank logs of M MB each, made as they are read (there is no disk
// for 100 GB), read by recomp ranks' library call in this process, with its time and the
// process's peak RSS. Each log is what one rank of a data-parallel JAX job prints: its
// compilations first (JAX 0.12's lines under jax_log_compiles and jax_explain_cache_misses),
// then the training loop's progress and a data loader's C++ info lines, none of which recomp
// needs; one rank compiles the train step again half-way (a partial batch on that rank only).

// rankNoise is one block of a rank's output that recomp must skip, whole lines, repeated to fill
// a log: the TF/XLA VLOG lines of the scan benchmark (logscan.WriteSynthetic, no compile line)
// with the training loop's progress line after every tenth.
func rankNoise(seed int) []byte {
	var vlog bytes.Buffer
	_, _, _ = logscan.WriteSynthetic(&vlog, logscan.Synthetic{Size: 1 << 20, Every: 1 << 30, Seed: seed})
	var b bytes.Buffer
	for i, line := range bytes.SplitAfter(vlog.Bytes(), []byte("\n")) {
		if len(line) == 0 || line[len(line)-1] != '\n' {
			continue
		}
		b.Write(line)
		if i%10 == 9 {
			fmt.Fprintf(&b, "step %d loss %.6f lr 0.000100 grad_norm %.4f examples/s %.1f\n", i/10, 1/(1+float64(i)), 0.5+float64(i%97)/100, 5000+float64(i%13))
		}
	}
	return b.Bytes()
}

func jaxCompileLines(fn, args, site string, first bool, took float64) string {
	var b strings.Builder
	if first {
		fmt.Fprintf(&b, "TRACING CACHE MISS at /app/train.py:%s (main):\n  never seen function:\n    %s id=140000000000000 defined at /app/train.py:40\n", site, fn)
	} else {
		fmt.Fprintf(&b, "TRACING CACHE MISS at /app/train.py:%s (main):\n  for %s defined at /app/train.py:40\n  all previously seen cache keys differ. For the closest previous key:\n  different input types:\n  * at x, now f32[24,8] and before f32[32,8]\n", site, fn)
	}
	fmt.Fprintf(&b, "Finished tracing %s for jit in 0.012 sec\n", fn)
	fmt.Fprintf(&b, "Compiling jit(%s) with global shapes and types (%s). Argument mapping: (UnspecifiedValue, UnspecifiedValue).\n", fn, args)
	fmt.Fprintf(&b, "Finished jaxpr to MLIR module conversion jit(%s) in 0.03 sec\n", fn)
	fmt.Fprintf(&b, "Finished XLA compilation of jit(%s) in %.3f sec\n", fn, took)
	return b.String()
}

// rankHead is what every rank prints before training: its compilations (four programs, each at
// compiles/4 batch sizes); one block shared by all the ranks' logs.
func rankHead(compiles int) []byte {
	var b strings.Builder
	for i, fn := range []string{"train_step", "eval_step", "init_params", "update_metrics"} {
		for j := range max(1, compiles/4) {
			args := fmt.Sprintf("ShapedArray(float32[8,4]), ShapedArray(float32[%d,8])", 32*(j+1))
			b.WriteString(jaxCompileLines(fn, args, fmt.Sprintf("%d:18", 80+i), j == 0, 0.4+float64(i)/10))
		}
	}
	return []byte(b.String())
}

var headCache []byte

// rankLog is one rank's log, made as it is read: the head, then noise blocks, with the
// divergent rank's extra compilation after half of them.
type rankLog struct {
	segs [][]byte
	reps []int // how often each segment is repeated
	seg  int
	rep  int
	off  int
}

func newRankLog(rank, diverging, mb, compiles int) *rankLog {
	noise := noiseCache[rank%8] // eight noise blocks shared by all ranks: memory stays small
	if noise == nil {
		noise = rankNoise(rank % 8)
		noiseCache[rank%8] = noise
	}
	blocks := max(1, (mb<<20)/len(noise))
	l := &rankLog{}
	if headCache == nil {
		headCache = rankHead(compiles)
	}
	l.segs = append(l.segs, []byte(fmt.Sprintf("rank %d of the job: process %d, local devices [CpuDevice(id=%d)]\n", rank, rank, rank)), headCache)
	l.reps = append(l.reps, 1, 1)
	if rank == diverging {
		extra := []byte(jaxCompileLines("train_step", "ShapedArray(float32[8,4]), ShapedArray(float32[24,8])", "80:18", false, 0.45))
		l.segs = append(l.segs, noise, extra, noise)
		l.reps = append(l.reps, blocks/2, 1, blocks-blocks/2)
	} else {
		l.segs = append(l.segs, noise)
		l.reps = append(l.reps, blocks)
	}
	for i := 0; i < len(l.segs); i++ { // a segment repeated 0 times is no segment
		if l.reps[i] == 0 {
			l.segs, l.reps = append(l.segs[:i], l.segs[i+1:]...), append(l.reps[:i], l.reps[i+1:]...)
			i--
		}
	}
	return l
}

func (l *rankLog) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		if l.seg == len(l.segs) {
			if n == 0 {
				return 0, io.EOF
			}
			break
		}
		c := copy(p[n:], l.segs[l.seg][l.off:])
		n += c
		l.off += c
		if l.off == len(l.segs[l.seg]) {
			l.off = 0
			if l.rep++; l.rep == l.reps[l.seg] {
				l.rep, l.seg = 0, l.seg+1
			}
		}
	}
	return n, nil
}

func (l *rankLog) size() int64 {
	var s int64
	for i, seg := range l.segs {
		s += int64(len(seg)) * int64(l.reps[i])
	}
	return s
}

// noiseCache shares the eight noise blocks between the ranks' logs.
var noiseCache = map[int][]byte{}

func runRanks(ranks, mb, compiles int) error {
	if ranks < 2 || mb <= 0 {
		return fmt.Errorf("-ranks must be at least 2 and -rank-mb positive")
	}
	diverging := ranks * 3 / 4
	var logs []ledger.Log
	var total int64
	for r := range ranks {
		l := newRankLog(r, diverging, mb, compiles)
		total += l.size()
		logs = append(logs, ledger.Log{Path: fmt.Sprintf("rank%04d.log", r), Reader: l})
	}
	fmt.Printf("inputs: %d rank logs of %d MB (%.1f GB in all, made as they are read), %d compilations each; rank %d compiles the train step again half-way\n",
		ranks, mb, float64(total)/(1<<30), 4*max(1, compiles/4), diverging)
	fmt.Printf("machine: %d CPUs, %s/%s, %s\n", runtime.NumCPU(), runtime.GOOS, runtime.GOARCH, runtime.Version())
	start := time.Now()
	r, err := across.ReadRanks(logs, across.RanksOptions{})
	if err != nil {
		return err
	}
	elapsed := time.Since(start)
	var read int64
	var lines int
	for _, in := range r.Scan.Inputs {
		read, lines = read+in.Bytes, lines+in.Lines
	}
	if read != total {
		return fmt.Errorf("read %d bytes of %d", read, total)
	}
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	fmt.Printf("recomp ranks: %.1f s for %d lines, %.2f GB/s, peak RSS %.1f MB (the whole process, generator included)\n",
		elapsed.Seconds(), lines, float64(total)/(1<<30)/elapsed.Seconds(), float64(ru.Maxrss)/1024)
	fmt.Printf("found: %s\n", report.RanksHeadline(r))
	for _, d := range r.Divergences {
		cause := "-"
		if d.Cause != nil {
			cause = string(d.Cause.Kind) + " (from the " + d.CauseFrom + ")"
		}
		fmt.Printf("  rank %s, request %d: %s of %s %s; cause %s\n", d.Rank, d.Index, d.Kind, d.Program, d.Args, cause)
	}
	if len(r.Divergences) != 1 || r.Divergences[0].Rank != fmt.Sprint(diverging) {
		return fmt.Errorf("expected rank %d to diverge, found %d divergences", diverging, len(r.Divergences))
	}
	return nil
}
