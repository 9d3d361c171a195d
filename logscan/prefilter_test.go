package logscan

import (
	"bytes"
	"math/rand"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// testAnchors are the anchors of recomp's frameworks when these tests were written: the
// prefilter is tested on a realistic set of literals of several lengths.
var testAnchors = []string{"ompilation", "OMPILATION", "compiling ", "Compiling ", " compiled ", "h compiled",
	"Compiled cluster", " times, compile time:", "executable", "Executable", "ing phase: ", ".poplar_exec", ".xla_engine",
	"ngine loaded", "tf.function retracing", "TRACING CACHE MISS", "pt-xla-profiler", "cution Analysis", "mputation hash:",
	"CompileTime", "achedCompile", "PersistentCache", "new FuncGraph", "num_inputs=", "ady Compiled"}

var testFilter = newPrefilter(testAnchors)

// noisyLog is a TF VLOG-style log where 1 line in 500 matters.
func noisyLog(size int) []byte {
	var b bytes.Buffer
	WriteSynthetic(&b, Synthetic{Size: int64(size)})
	return b.Bytes()
}

// The shift-table prefilter must find exactly the lines a plain search finds.
func TestPrefilterMatchesPlainSearch(t *testing.T) {
	words := append(slices.Clone(testAnchors), "compiler", "compile", "tracing", "phase", "engine", "Compilatio", "xecutabl",
		"\n", "\n", " ", "  ", "ab", "zz", "ompilatio", "g phase:", ".poplar_ex")
	rng := rand.New(rand.NewSource(1))
	plain := func(text []byte) []span { return plainLines(testAnchors, text) }
	for round := 0; round < 3000; round++ {
		var b strings.Builder
		for n := rng.Intn(40); n > 0; n-- {
			b.WriteString(words[rng.Intn(len(words))])
		}
		text := []byte(b.String())
		got := testFilter.lines(text, 0, nil)
		want := plain(text)
		if len(got) != len(want) {
			t.Fatalf("%q: got %v, want %v", text, got, want)
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("%q: got %v, want %v", text, got, want)
			}
		}
		var parts [][]span
		if par, _ := testFilter.candidates(text, nil, &parts, false); len(par) != len(want) {
			t.Fatalf("%q: candidates %v, want %v", text, par, want)
		}
	}
}

// The parallel split must give the same candidates as one pass, each with the newlines before
// it, the region's newline count, and the first NUL byte, whichever part it is in.
func TestPrefilterParallelSplit(t *testing.T) {
	text := noisyLog(3 * parallelMin)
	one := testFilter.lines(text, 0, nil)
	re := regexp.MustCompile(`(?m)^.*Begin XLA compilation.*$`)
	if n := len(re.FindAllIndex(text, -1)); n != len(one) {
		t.Errorf("%d candidate lines, %d compile lines", len(one), n)
	}
	for _, nulAt := range []int{-1, 10, len(text) / 2, len(text) - 2} {
		text := bytes.Clone(text)
		if nulAt >= 0 {
			text[nulAt] = 0
		}
		for _, procs := range []int{1, 2, 3} {
			old := runtime.GOMAXPROCS(procs)
			var parts [][]span
			par, rs := testFilter.candidates(text, nil, &parts, true)
			runtime.GOMAXPROCS(old)
			if len(one) == 0 || len(one) != len(par) {
				t.Fatalf("one pass %d, %d procs %d", len(one), procs, len(par))
			}
			for i := range one {
				want := one[i]
				want.nl = bytes.Count(text[:want.start], []byte{'\n'})
				if par[i] != want {
					t.Fatalf("%d procs, span %d: %v, want %v", procs, i, par[i], want)
				}
			}
			if want := bytes.Count(text, []byte{'\n'}); rs.newlines != want {
				t.Errorf("%d procs: %d newlines, want %d", procs, rs.newlines, want)
			}
			if rs.nul != nulAt {
				t.Errorf("%d procs: NUL at %d, want %d", procs, rs.nul, nulAt)
			}
		}
	}
}

// BenchmarkPrefilter runs each search of the prefilter alone, on one core, over a noisy log: the
// portable shift table, the generic Teddy scan, and each vector scan this CPU runs.
func BenchmarkPrefilter(b *testing.B) {
	text := noisyLog(64 << 20)
	want := len(testFilter.shiftLines(text, 0, nil))
	paths := []namedScanner{{"teddy-generic", teddyScanGeneric}}
	paths = append(paths, teddyVectors...)
	run := func(name string, lines func() []span) {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			b.ReportAllocs()
			for b.Loop() {
				if got := len(lines()); got != want {
					b.Fatalf("%d lines, want %d", got, want)
				}
			}
		})
	}
	var out []span
	run("shift", func() []span { out = testFilter.shiftLines(text, 0, out[:0]); return out })
	for _, p := range paths {
		run(p.name, func() []span { out = testFilter.teddy.lines(p.scan, text, 0, out[:0]); return out })
	}
}
