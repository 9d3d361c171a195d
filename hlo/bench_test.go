package hlo

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

func synthetic(tb testing.TB, n int) []byte {
	var buf bytes.Buffer
	if err := WriteSynthetic(&buf, Synthetic{Instructions: n, Batch: 32, Scale: 0.5}); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

// BenchmarkParseLarge parses a ~60 MB long-form module (200 000 instructions).
func BenchmarkParseLarge(b *testing.B) {
	src := synthetic(b, 200_000)
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Parse("big.hlo", src); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFingerprintLarge fingerprints the same module.
func BenchmarkFingerprintLarge(b *testing.B) {
	src := synthetic(b, 200_000)
	m, err := Parse("big.hlo", src)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		Fingerprint(m)
	}
}

// TestParseMemory reports the heap a parsed module holds relative to its text (the bar is 4x).
func TestParseMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 6 MB module")
	}
	src := synthetic(t, 20_000)
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	m, err := Parse("big.hlo", src)
	if err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	held := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	ratio := float64(held+int64(len(src))) / float64(len(src))
	t.Logf("input %d bytes, module holds %d bytes more: %.2fx input in all", len(src), held, ratio)
	if ratio > 4 {
		t.Errorf("parsed module and its input take %.2fx the input size, want <= 4x", ratio)
	}
	runtime.KeepAlive(m)
}

// fuzzSeeds are the test modules and the grammar inputs: every form the parser reads.
func fuzzSeeds(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.hlo")
	grammar, _ := filepath.Glob("testdata/grammar/*.hlo")
	for _, file := range append(files, grammar...) {
		b, _ := os.ReadFile(file)
		f.Add(b)
	}
}

func FuzzParse(f *testing.F) {
	fuzzSeeds(f)
	f.Add([]byte("HloModule m\nENTRY e {\n ROOT a = f32[] constant(1)\n}\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		m, _ := Parse("fuzz.hlo", src)
		if m == nil {
			t.Fatal("nil module")
		}
		Fingerprint(m) // must not panic or loop
		var buf bytes.Buffer
		if err := Print(&buf, m); err != nil {
			t.Fatal(err)
		}
	})
}

// FuzzRoundTrip checks that every module that parses cleanly prints to text that parses to
// the same fingerprint.
func FuzzRoundTrip(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, src []byte) {
		m, err := Parse("fuzz.hlo", src)
		if err != nil {
			return
		}
		var buf bytes.Buffer
		Print(&buf, m)
		m2, err := Parse("printed.hlo", buf.Bytes())
		if err != nil {
			t.Fatalf("printed module does not parse: %v\n%s", err, buf.String())
		}
		if Fingerprint(m) != Fingerprint(m2) {
			t.Fatalf("fingerprint changed by print and parse:\n%s", buf.String())
		}
	})
}
