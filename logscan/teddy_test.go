package logscan

import (
	"bytes"
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"
)

// plainLines is the specification of the prefilter: the lines of text that contain an anchor.
func plainLines(anchors []string, text []byte) []span {
	var out []span
	start := 0
	for i := 0; i <= len(text); i++ {
		if i == len(text) || text[i] == '\n' {
			line := string(text[start:i])
			for _, a := range anchors {
				if strings.Contains(line, a) {
					out = append(out, span{start: start, end: i})
					break
				}
			}
			start = i + 1
		}
	}
	return out
}

// plainSwept is the specification of the prefilter's second class: the lines of text that
// contain a sweep word and no anchor.
func plainSwept(anchors, sweep []string, text []byte) []span {
	var out []span
	with := plainLines(anchors, text)
	for _, sp := range plainLines(sweep, text) {
		if !slices.Contains(with, sp) {
			out = append(out, sp)
		}
	}
	return out
}

// scanAll runs a Teddy scan over all of text the way teddy.lines does (the vector scan, then the
// generic one where it stops) and returns every position it reports.
func scanAll(t *teddy, scan teddyScanner, text []byte, batch int) []uint32 {
	var all []uint32
	buf := make([]uint32, batch)
	for pos := 0; pos < len(text); {
		n, next := scan(t, text, pos, buf)
		if n == 0 && next == pos {
			if n, next = teddyScanGeneric(t, text, pos, buf); n == 0 && next == pos {
				break
			}
		}
		all = append(all, buf[:n]...)
		pos = next
	}
	return all
}

// checkPaths fails the test unless every search of the prefilter (the shift tables, the generic
// Teddy scan and each vector scan this machine runs) finds the lines plainLines finds, and the
// lines plainSwept finds apart, and the vector scans report the positions the generic scan
// reports.
func checkPaths(t testing.TB, anchors, sweep []string, text []byte) {
	t.Helper()
	p := newPrefilter(anchors, sweep)
	want, wantSwept := plainLines(anchors, text), plainSwept(anchors, sweep, text)
	check := func(path string, got, swept []span) {
		t.Helper()
		if !slices.Equal(got, want) {
			t.Fatalf("anchors %q, sweep %q, text %q: %s %v, want %v", anchors, sweep, text, path, got, want)
		}
		if !slices.Equal(swept, wantSwept) {
			t.Fatalf("anchors %q, sweep %q, text %q: %s swept %v, want %v", anchors, sweep, text, path, swept, wantSwept)
		}
	}
	if got := p.anchorLines(text, 0, nil); !slices.Equal(got, want) {
		t.Fatalf("anchors %q, text %q: shift table %v, want %v", anchors, text, got, want)
	}
	got, swept := p.shiftBoth(text, 0, nil, nil)
	check("shift tables", got, swept)
	if p.teddy == nil {
		return
	}
	// the static fingerprints, and those chosen on the text itself (prefilter.adapt)
	for _, td := range []*teddy{p.teddy, newTeddyFrom(p.anchorPats(), p.sweepPats(), countGrams(text, p.teddy.fpLen))} {
		got, swept := td.lines(teddyScanGeneric, text, 0, nil, nil)
		check("generic Teddy", got, swept)
		generic := scanAll(td, teddyScanGeneric, text, teddyBatch)
		for _, v := range teddyVectors {
			got, swept := td.lines(v.scan, text, 0, nil, nil)
			check(v.name, got, swept)
			for _, batch := range []int{32, 33, teddyBatch} {
				if got := scanAll(td, v.scan, text, batch); !slices.Equal(got, generic) {
					t.Fatalf("anchors %q, text %q, batch %d: %s positions %v, generic %v", anchors, text, batch, v.name, got, generic)
				}
			}
		}
	}
}

// Fingerprints chosen on a sample of a TF log keep its common words out: on a log dense in
// compile requests, whose every line names a source path under tensorflow/compiler, the vector
// scan reports far fewer candidates to verify, and the same lines.
func TestAdaptedFingerprints(t *testing.T) {
	var b bytes.Buffer
	WriteSynthetic(&b, Synthetic{Size: 2 << 20, Every: 20, Seed: 3})
	text := b.Bytes()
	p := newPrefilter(testAnchors, testSweep)
	if p.teddy == nil {
		t.Fatal("no Teddy tables for the test anchors")
	}
	if teddyVector == nil {
		if q := p.adapt(text); q != p {
			t.Fatal("adapted without a vector scan to use it")
		}
		return
	}
	q := p.adapt(text[len(text)/2:]) // a sample of the same log, not the text scanned
	before := len(scanAll(p.teddy, teddyScanGeneric, text, teddyBatch))
	after := len(scanAll(q.teddy, teddyScanGeneric, text, teddyBatch))
	lines := bytes.Count(text, []byte{'\n'})
	t.Logf("%d lines: %d candidates with the static fingerprints, %d adapted", lines, before, after)
	if after*3 > before {
		t.Errorf("adapted fingerprints: %d candidates, static %d", after, before)
	}
	got, gotSwept := q.lines(text, 0, nil, nil)
	want, wantSwept := p.shiftBoth(text, 0, nil, nil)
	if !slices.Equal(got, want) || !slices.Equal(gotSwept, wantSwept) {
		t.Errorf("adapted: %d lines and %d swept, the shift tables %d and %d", len(got), len(gotSwept), len(want), len(wantSwept))
	}
	// Where the counts' choice would let more through the nibble tables (Poplar's debug lines:
	// "tile", "Lowering"), the static choice stays.
	var pop strings.Builder
	for i := 0; pop.Len() < 256<<10; i++ {
		fmt.Fprintf(&pop, "10:00:02.%03d 4242 PO:COMPILER [D] Lowering vertex poplin::ConvPartialnx1<half,float,true,false,4,0,0,true> for tile %d\n", i%1000, i%1472)
		fmt.Fprintf(&pop, "10:00:02.%03d 4242 PO:GRAPH    [D] Created tensor 'conv2d/Conv2D/fwd/partials' on tile %d\n", i%1000, i%1472)
	}
	sample := []byte(pop.String())
	p = newPrefilter(append(slices.Clone(testAnchors), "w compile?", "ration took", "input shapes", "batch_size: ",
		"num_tokens: ", "RecompileLimitHit", "MetricsData; step=", "it config.", "seconds to compile"), testSweep)
	r := p.adapt(sample)
	if a, b := teddyCandidates(r.teddy, sample), teddyCandidates(p.teddy, sample); a > b {
		t.Errorf("adapted to a Poplar log: %d candidates, static %d", a, b)
	}
}

// Cases where a vector scan could go wrong: anchors at the very start and end of the text, across
// block boundaries (32 bytes), in the last bytes a block cannot load, short anchors (a shorter
// fingerprint), bytes above 0x7f (a shuffle index with its top bit set reads zero), no text.
func TestPrefilterPathsTable(t *testing.T) {
	pad := func(n int) string { return strings.Repeat("x", n) }
	for _, c := range []struct {
		anchors, sweep []string
		text           string
	}{
		{testAnchors, testSweep, ""},
		{testAnchors, testSweep, "compiling \n"},
		{testAnchors, testSweep, "compiling "},
		{testAnchors, testSweep, pad(28) + "compiling " + pad(40)},
		{testAnchors, testSweep, pad(30) + "\n" + pad(60) + "Executable"},
		{testAnchors, testSweep, pad(90) + "\nExecutable\n"},
		{testAnchors, testSweep, pad(25) + "executable" + pad(25) + "\n" + pad(7) + "ompilation\n\n"},
		{[]string{"ab"}, nil, "ab"},
		{[]string{"ab", "abc"}, nil, pad(31) + "ab" + pad(31) + "\nab"},
		{[]string{"zq", "q\xffz"}, nil, pad(40) + "q\xffz" + pad(40) + "\n" + pad(33) + "zq"},
		{[]string{"\xe2\x96\x88\xe2\x96\x88", "\x80\x81\x82"}, nil, pad(33) + "\xe2\x96\x88\xe2\x96\x88\n\x80\x81\x82" + pad(70)},
		{[]string{"abc", "bcd", "cde", "def", "efg", "fgh", "ghi", "hij", "ijk", "jkl"}, nil, strings.Repeat("abcdefghijkl\n", 20)},
		{[]string{"phase: ", "CACHE"}, nil, strings.Repeat("p", 100) + "\n" + strings.Repeat("CACH", 30) + "E"},
		// a sweep word before, after and around an anchor in one line; one alone; both classes
		// sharing a fingerprint
		{testAnchors, testSweep, pad(20) + "recompiled " + pad(30) + "executable\n" + pad(40) + "traced\nexecutable traced\n"},
		{testAnchors, testSweep, "ompiled compiling ompiled\n" + pad(33) + "ache hit\nTRACING CACHE MISS\n"},
		{[]string{"abcdef"}, []string{"abcd", "cdef", "bcde"}, "abcd abcdef\nabcde\n" + pad(31) + "bcdef\n"},
		{[]string{"abcd"}, []string{"abcd", "abc"}, "abcd\nabc\n"},
	} {
		for cut := 0; cut <= len(c.text); cut++ {
			checkPaths(t, c.anchors, c.sweep, []byte(c.text[cut:]))
			checkPaths(t, c.anchors, c.sweep, []byte(c.text[:len(c.text)-cut]))
		}
	}
}

// Random anchor sets over a small alphabet (many near misses) and random texts made of them.
func TestPrefilterPathsRandom(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	const alphabet = "abcAB \n:\xe2\x88"
	word := func(n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = alphabet[rng.Intn(len(alphabet)-1)] // no newline in anchors
		}
		return string(b)
	}
	rounds := 2000
	if testing.Short() {
		rounds = 300
	}
	for range rounds {
		var anchors, sweep []string
		for n := 1 + rng.Intn(12); n > 0; n-- {
			if a := strings.ReplaceAll(word(2+rng.Intn(6)), "\n", ""); len(a) >= 2 {
				anchors = append(anchors, a)
			}
		}
		for n := rng.Intn(8); n > 0; n-- {
			if a := strings.ReplaceAll(word(2+rng.Intn(6)), "\n", ""); len(a) >= 2 {
				sweep = append(sweep, a)
			}
		}
		if len(anchors) == 0 {
			continue
		}
		all := slices.Concat(anchors, sweep)
		var b bytes.Buffer
		for b.Len() < rng.Intn(400) {
			if rng.Intn(3) == 0 {
				b.WriteString(all[rng.Intn(len(all))])
			} else {
				b.WriteString(word(1 + rng.Intn(8)))
			}
			if rng.Intn(6) == 0 {
				b.WriteByte('\n')
			}
		}
		checkPaths(t, anchors, sweep, b.Bytes())
	}
}

// FuzzPrefilterPaths: anchors (one a line, shorter than 2 bytes dropped; a line starting with
// "!" is a sweep word, the "!" left out) and a text; every search of the prefilter must find the
// same lines, and the same swept lines.
func FuzzPrefilterPaths(f *testing.F) {
	f.Add("compiling \nExecutable\nab", "xx compiling yy\nab\n"+strings.Repeat("Executable ", 5))
	f.Add(strings.Join(testAnchors, "\n"), string(noisyLog(1<<10)))
	f.Add("compiling \n!ompiled\n!ache hit\nab", "xx compiled ab\nrecompiled\n"+strings.Repeat("ache hit ", 5)+"compiling ")
	f.Add(strings.Join(testAnchors, "\n")+"\n!"+strings.Join(testSweep, "\n!"), string(noisyLog(2<<10)))
	f.Fuzz(func(t *testing.T, anchorText, text string) {
		var anchors, sweep []string
		for _, a := range strings.Split(anchorText, "\n") {
			if w, ok := strings.CutPrefix(a, "!"); ok && len(w) >= 2 && len(w) <= 64 && len(sweep) < 64 {
				sweep = append(sweep, w)
			} else if !ok && len(a) >= 2 && len(a) <= 64 && len(anchors) < 64 {
				anchors = append(anchors, a)
			}
		}
		if len(anchors) == 0 || len(text) > 8<<10 {
			return
		}
		checkPaths(t, anchors, sweep, []byte(text))
	})
}

// The vector scan is in use where the CPU has one (all arm64 CPUs Go runs on have NEON), so the
// tests above compared it with the generic paths.
func TestVectorScanSelected(t *testing.T) {
	names := []string{}
	for _, v := range teddyVectors {
		names = append(names, v.name)
	}
	t.Logf("vector scans: %v", names)
	if want := wantVectors(); !slices.Equal(names, want) {
		t.Fatalf("vector scans %v, want %v", names, want)
	}
	if (teddyVector != nil) != (len(teddyVectors) > 0) {
		t.Fatalf("prefilter's scan set: %v, vectors %v", teddyVector != nil, names)
	}
}

// The sweep words, folded into the prefilter as a second class of literal, add few positions to
// verify once the buckets are chosen on a sample of the log (gramCounts.assign): sorted into 8
// runs, their windows' nibble cross products let through ten times the anchors' candidates.
func TestSweepWordsAddFewCandidates(t *testing.T) {
	if teddyVector == nil {
		t.Skip("no vector scan: the shift tables search the sweep words")
	}
	for _, every := range []int{20, 500} {
		var b bytes.Buffer
		WriteSynthetic(&b, Synthetic{Size: 4 << 20, Every: every, Seed: 5})
		text := b.Bytes()
		sample := text[len(text)/2:]
		alone := newPrefilter(testAnchors, nil).adapt(sample)
		both := newPrefilter(testAnchors, testSweep).adapt(sample)
		a, w := len(scanAll(alone.teddy, teddyScanGeneric, text, teddyBatch)), len(scanAll(both.teddy, teddyScanGeneric, text, teddyBatch))
		lines := bytes.Count(text, []byte{'\n'})
		t.Logf("1 line in %d: %d lines, %d candidates with the anchors, %d with the sweep words too", every, lines, a, w)
		if w > 2*a+lines/100 {
			t.Errorf("1 line in %d: %d candidates with the sweep words, %d without", every, w, a)
		}
	}
}
