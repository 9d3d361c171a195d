package ledger

import (
	"bytes"
	"os"
	"path/filepath"
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
					got.Summary.Recompilations != want.Ledger.Summary.Recompilations || got.Processes != want.Ledger.Processes {
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
			g.Events != w.Events || late != w.AfterWarmup {
			t.Errorf("pieces of %d: live %+v (%d late said), whole %+v", n, g, late, w)
		}
	})
}
