package ledger

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/recomp/recomp/logscan"
)

// A log fed to a Live piece by piece, the pieces cut anywhere (inside lines too): each
// compilation after warm-up is known as soon as the line that closes it was written, before
// the lines after it, and the Report at the end is the one ReadLogs makes of the whole log.
func TestLiveMatchesReadLogs(t *testing.T) {
	for _, run := range []string{"jax-0.12/partial-batch", "tf-2.21/keras-fit-partial-batch", "torch-xla-2.9/batch-size", "jax-0.12/prefix-mpirun"} {
		t.Run(run, func(t *testing.T) {
			path := filepath.Join("../testdata/runs", run, "run.log")
			if _, err := os.Stat(path); err != nil {
				matches, _ := filepath.Glob(filepath.Join("../testdata/runs", run, "*.log"))
				if len(matches) == 0 {
					t.Fatalf("no log in %s", run)
				}
				path = matches[0]
			}
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			want, err := ReadLogs([]Log{{Path: "log", Reader: bytes.NewReader(data)}}, ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			for _, size := range []int{1, 7, 4096, len(data)} {
				lv := NewLive(LiveOptions{Name: "log"})
				var late []LiveUnit
				lines := 0
				for off := 0; off < len(data); off += size {
					piece := data[off:min(off+size, len(data))]
					lv.Write(piece)
					lines += bytes.Count(piece, []byte{'\n'})
					for _, u := range lv.Compiled() {
						if u.Line > lines {
							t.Fatalf("piece %d: a compilation closed at line %d known before that line was written (%d)", size, u.Line, lines)
						}
						if u.AfterWarmup {
							late = append(late, u)
							// Known no later than the end of the record that closed it (a record
							// whose lines continue — PyTorch/XLA's Post Compilation Analysis, 8
							// lines — is read when the line after it comes).
							if lines > u.Line+maxRecord && size < 4096 {
								t.Errorf("piece %d: the compilation closed at line %d was known only at line %d", size, u.Line, lines)
							}
						}
					}
				}
				got := lv.Close()
				for _, u := range lv.Compiled() {
					if u.AfterWarmup {
						late = append(late, u)
					}
				}
				if got.Summary.Compilations != want.Ledger.Summary.Compilations || got.Summary.AfterWarmup != want.Ledger.Summary.AfterWarmup ||
					got.Summary.Recompilations != want.Ledger.Summary.Recompilations || got.Processes != want.Ledger.Processes ||
					got.Summary.UnreadRecords != want.Ledger.Summary.UnreadRecords {
					t.Errorf("piece %d: live %+v\nread %+v", size, got.Summary, want.Ledger.Summary)
				}
				if len(late) != want.Ledger.Summary.AfterWarmup {
					t.Errorf("piece %d: %d compilations after warm-up said live, %d at the end", size, len(late), want.Ledger.Summary.AfterWarmup)
				}
				for i, u := range late {
					if i < len(want.Ledger.Late) && (u.Family != want.Ledger.Late[i].Family || u.Why != want.Ledger.Late[i].Why) {
						t.Errorf("piece %d: live late %d is %s (%q), at the end %s", size, i, u.Family, u.Why, want.Ledger.Late[i].Family)
					}
				}
			}
			if want.Ledger.Summary.AfterWarmup == 0 {
				t.Errorf("%s: the run has no compilation after warm-up: it tests nothing", run)
			}
		})
	}
}

// maxRecord is the longest record of the logs above, in lines.
const maxRecord = 8

// The warm-up as guard defines it: --warmup N and --after REGEX decide live as at the end.
func TestLiveWarmupPolicies(t *testing.T) {
	log := strings.Join([]string{
		"WARNING:jax._src.interpreters.pxla:Compiling jit(a) with global shapes and types (ShapedArray(float32[2]),). Argument mapping: (UnspecifiedValue,).",
		"WARNING:jax._src.dispatch:Finished XLA compilation of jit(a) in 0.1 sec",
		"WARNING:jax._src.interpreters.pxla:Compiling jit(b) with global shapes and types (ShapedArray(float32[2]),). Argument mapping: (UnspecifiedValue,).",
		"WARNING:jax._src.dispatch:Finished XLA compilation of jit(b) in 0.1 sec",
		"warm-up done",
		"WARNING:jax._src.interpreters.pxla:Compiling jit(c) with global shapes and types (ShapedArray(float32[2]),). Argument mapping: (UnspecifiedValue,).",
		"WARNING:jax._src.dispatch:Finished XLA compilation of jit(c) in 0.1 sec",
		"",
	}, "\n")
	marker, err := logscan.NewLineRegexp("^warm-up done$")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		opt  LiveOptions
		want []string // the late compilations' families, and the line each was closed at
	}{
		{"default", LiveOptions{}, nil},
		{"warmup 1", LiveOptions{Ledger: Options{Warmup: 1}}, []string{"jit_b@4", "jit_c@7"}},
		{"after", LiveOptions{Marker: marker}, []string{"jit_c@7"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.opt.Name = "log"
			lv := NewLive(c.opt)
			var got []string
			for _, line := range strings.SplitAfter(log, "\n") {
				lv.Write([]byte(line))
				for _, u := range lv.Compiled() {
					if u.AfterWarmup {
						got = append(got, u.Family+"@"+strconv.Itoa(u.Line))
					}
				}
			}
			lv.Close()
			if strings.Join(got, " ") != strings.Join(c.want, " ") {
				t.Errorf("late %v, want %v", got, c.want)
			}
		})
	}
}

// FuzzLiveChunks: a log fed to a Live in pieces of any size gives the account ReadLogs gives of
// it whole (the Scanner's reading does not depend on how the bytes arrive).
func FuzzLiveChunks(f *testing.F) {
	for _, run := range []string{"jax-0.12/partial-batch", "tf-2.21/keras-fit-partial-batch", "torch-xla-2.9/batch-size"} {
		if b, err := os.ReadFile(filepath.Join("../testdata/runs", run, "run.log")); err == nil {
			f.Add(b[:min(len(b), 8<<10)], uint8(7))
		}
	}
	f.Add([]byte("WARNING:jax._src.dispatch:Finished XLA compilation of jit(f) in 0.1 sec\r\n\x00\xff"), uint8(1))
	f.Fuzz(func(t *testing.T, data []byte, size uint8) {
		want, err := ReadLogs([]Log{{Path: "log", Reader: bytes.NewReader(data)}}, ReadOptions{})
		if err != nil {
			t.Skip()
		}
		n := int(size%64) + 1
		lv := NewLive(LiveOptions{Name: "log"})
		late := 0
		for off := 0; off < len(data); off += n {
			lv.Write(data[off:min(off+n, len(data))])
			for _, u := range lv.Compiled() {
				if u.AfterWarmup {
					late++
				}
			}
		}
		got := lv.Close()
		for _, u := range lv.Compiled() {
			if u.AfterWarmup {
				late++
			}
		}
		w := want.Ledger.Summary
		if g := got.Summary; g.Compilations != w.Compilations || g.AfterWarmup != w.AfterWarmup || g.CompileRequests != w.CompileRequests ||
			g.Events != w.Events || g.UnreadRecords != w.UnreadRecords || late != w.AfterWarmup {
			t.Errorf("pieces of %d: live %+v (%d late said), whole %+v", n, g, late, w)
		}
	})
}

// trainingLog is a training run's log: n steps, each a line of the program's own, and every
// recompileEvery steps a JAX recompilation of train_step at a new batch size (its cache-miss
// explanation, compile request and end).
func trainingLog(n, recompileEvery int) []byte {
	var b bytes.Buffer
	for i := range n {
		if i%recompileEvery == 0 {
			fmt.Fprintf(&b, "WARNING:jax._src.pjit:TRACING CACHE MISS at /srv/train.py:64:12 (main):\n  for train_step defined at /srv/train.py:20\n"+
				"  all previously seen cache keys differ. For the closest previous key:\n  different input types:\n  * at x, now f32[%d,8] and before f32[%d,8]\n", i+1, i)
			fmt.Fprintf(&b, "WARNING:jax._src.interpreters.pxla:Compiling jit(train_step) with global shapes and types (ShapedArray(float32[%d,8]),). Argument mapping: (UnspecifiedValue,).\n", i+1)
			b.WriteString("WARNING:jax._src.dispatch:Finished XLA compilation of jit(train_step) in 0.100000000 sec\n")
		}
		fmt.Fprintf(&b, "2026-11-26T10:00:00.000000000Z step %d loss 0.%06d lr 0.001 throughput 1234.5 samples/s\n", i, i)
	}
	return b.Bytes()
}

// BenchmarkLive reads a training log as recomp run's live lines do (in the pieces a terminal
// gives, each Write waiting until its lines are read) against ReadLogs of the whole log: the
// cost of the live verdict.
func BenchmarkLive(b *testing.B) {
	data := trainingLog(200_000, 1000)
	b.Run("ReadLogs", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for range b.N {
			if _, err := ReadLogs([]Log{{Path: "log", Reader: bytes.NewReader(data)}}, ReadOptions{}); err != nil {
				b.Fatal(err)
			}
		}
	})
	for _, piece := range []int{256, 4 << 10, 64 << 10} {
		b.Run(fmt.Sprintf("Live/piece=%d", piece), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for range b.N {
				lv := NewLive(LiveOptions{Name: "log"})
				late := 0
				for off := 0; off < len(data); off += piece {
					lv.Write(data[off:min(off+piece, len(data))])
					late += len(lv.Compiled())
				}
				lv.Close()
				if late < 150 {
					b.Fatalf("%d compilations said", late)
				}
			}
		})
	}
}

// BenchmarkLiveMemory feeds a Live the log of a job that recompiles for days (n compilations,
// each at a new shape): the heap it keeps (live-MiB) must stay flat as n grows.
func BenchmarkLiveMemory(b *testing.B) {
	for _, n := range []int{10_000, 100_000, 400_000} {
		b.Run(fmt.Sprintf("compilations=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			var kept float64
			for range b.N {
				lv := NewLive(LiveOptions{Name: "log"})
				for i := 0; i < n; i += 1000 {
					lv.Write(trainingLog(1000, 1)) // 1000 compilations, one a step
					lv.Compiled()
				}
				runtime.GC()
				var ms runtime.MemStats
				runtime.ReadMemStats(&ms)
				kept = float64(ms.HeapAlloc) / (1 << 20)
				lv.Close()
			}
			b.ReportMetric(kept, "live-MiB")
		})
	}
}
