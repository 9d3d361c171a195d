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

// testSweep are the sweep words of recomp's frameworks (their Vocabulary.Sweep) when these tests
// were written.
var testSweep = []string{"ompiled", "ompiling", "ompilation", "ompile ", "ompile:", "ompile.", "ompile,", "ompiles",
	"OMPILED", "OMPILING", "OMPILATION", "OMPILE ", "etrace", "etracing", "racing ", "TRACING", "traced",
	"ache hit", "ache miss", "ACHE HIT", "ACHE MISS"}

var testFilter = newPrefilter(testAnchors, testSweep)

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
	words = append(words, testSweep...)
	words = append(words, "recompiled ", "retracing", "cache hit")
	plain := func(text []byte) []span { return plainLines(testAnchors, text) }
	for round := 0; round < 3000; round++ {
		var b strings.Builder
		for n := rng.Intn(40); n > 0; n-- {
			b.WriteString(words[rng.Intn(len(words))])
		}
		text := []byte(b.String())
		got, swept := testFilter.lines(text, 0, nil, nil)
		want, wantSwept := plain(text), plainSwept(testAnchors, testSweep, text)
		if !slices.Equal(got, want) || !slices.Equal(swept, wantSwept) {
			t.Fatalf("%q: got %v and swept %v, want %v and %v", text, got, swept, want, wantSwept)
		}
		var parts []partScratch
		if par, parSwept, _ := testFilter.candidates(text, nil, nil, &parts, false); len(par) != len(want) || !slices.Equal(parSwept, wantSwept) {
			t.Fatalf("%q: candidates %v and swept %v, want %v and %v", text, par, parSwept, want, wantSwept)
		}
	}
}

// The parallel split must give the same candidates as one pass, each with the newlines before
// it, the region's newline count, and the first NUL byte, whichever part it is in.
func TestPrefilterParallelSplit(t *testing.T) {
	text := noisyLog(3 * parallelMin)
	// lines holding a sweep word and no anchor, spread over the parts
	for _, at := range []int{0, parallelMin, 2*parallelMin + 100} {
		i := bytes.IndexByte(text[at:], '\n') + at + 1
		text = slices.Insert(text, i, []byte("jit(f) was recompiled\n")...)
	}
	one, oneSwept := testFilter.lines(text, 0, nil, nil)
	if len(oneSwept) != 3 {
		t.Errorf("%d swept lines, want 3", len(oneSwept))
	}
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
			var parts []partScratch
			par, parSwept, rs := testFilter.candidates(text, nil, nil, &parts, true)
			if !slices.Equal(parSwept, oneSwept) {
				t.Fatalf("%d procs: swept %v, want %v", procs, parSwept, oneSwept)
			}
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
	want, _ := testFilter.shiftBoth(text, 0, nil, nil)
	paths := []namedScanner{{"teddy-generic", teddyScanGeneric}}
	paths = append(paths, teddyVectors...)
	run := func(name string, lines func() []span) {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			b.ReportAllocs()
			for b.Loop() {
				if got := len(lines()); got != len(want) {
					b.Fatalf("%d lines, want %d", got, len(want))
				}
			}
		})
	}
	var out, swept []span
	run("shift", func() []span { out, swept = testFilter.shiftBoth(text, 0, out[:0], swept[:0]); return out })
	for _, p := range paths {
		run(p.name, func() []span { out, swept = testFilter.teddy.lines(p.scan, text, 0, out[:0], swept[:0]); return out })
	}
}
