package hlo

import (
	"bytes"
	"strings"
	"testing"

	"github.com/cespare/xxhash/v2"
)

var literalSeeds = []string{
	"{ { /*i0=0*/ {1}, {2.5} }, { /*i0=1*/ {-3e+2}, {inf} } }", "{1, 2 // a comment to the end of the line\n, 3}", "{1/*x*/2}", "{1, /* unclosed",
	"{1, 2, 3}", "{1.0, 2, 3e0}", "{ {1, 2}, {3, 4} }", "(1, {2.5, -inf}, nan)", "{...}", "true", "7.4505806e-09",
	"{0.5, 1.5, 2.5, 3.5, 4.5, 5.5}", "{1, 2}", "{1, 2, 3, 4}", "nan(0x7fc00000)", "{ }", "",
}

// TestWriteCanonicalLiteral: the streaming form writes exactly CanonicalLiteral's bytes (the
// fingerprints of every module stay what they were).
func TestWriteCanonicalLiteral(t *testing.T) {
	for _, lit := range literalSeeds {
		var b bytes.Buffer
		WriteCanonicalLiteral(&b, lit)
		if b.String() != CanonicalLiteral(lit) {
			t.Errorf("%q: streamed %q, canonical %q", lit, b.String(), CanonicalLiteral(lit))
		}
		d, want := xxhash.New(), xxhash.Sum64String(CanonicalLiteral(lit))
		if hashCanonicalLiteral(d, lit); d.Sum64() != want {
			t.Errorf("%q: hashed differently", lit)
		}
	}
}

func TestCompareLiterals(t *testing.T) {
	for _, c := range []struct {
		a, b  string
		equal bool
		first int
		shape bool
		elems [2]int
	}{
		{"{1, 2, 3}", "{1.0, 2, 3e0}", true, -1, false, [2]int{3, 3}},
		{"{1, 2, 3}", "{1, 2, 4}", false, 2, false, [2]int{3, 3}},
		{"{1, 2, 3}", "{1, 2}", false, -1, true, [2]int{3, 2}},
		{"{ {1, 2}, {3, 4} }", "{ {1, 2, 3, 4} }", false, -1, true, [2]int{4, 4}},
		{"{9, 2, 3, 8}", "{1, 2, 3, 4}", false, 0, false, [2]int{4, 4}},
	} {
		d := CompareLiterals(c.a, c.b)
		if d.Equal != c.equal || d.First != c.first || d.Shape != c.shape || d.Elements != c.elems {
			t.Errorf("CompareLiterals(%q, %q) = %+v", c.a, c.b, d)
		}
		if d.Equal != (CanonicalLiteral(c.a) == CanonicalLiteral(c.b)) {
			t.Errorf("%q %q: Equal %v disagrees with CanonicalLiteral", c.a, c.b, d.Equal)
		}
	}
	d := CompareLiterals("{9, 2, 3, 8}", "{1, 2, 3, 4}")
	if d.Differ != 2 || d.Old != "9" || d.New != "1" {
		t.Errorf("differ %+v", d)
	}
}

func TestLiteralSummary(t *testing.T) {
	lit := "{" + strings.Repeat("0.5, ", 999) + "0.5}"
	s := LiteralSummary(lit)
	if !strings.HasPrefix(s, "{0.5, 0.5, 0.5, 0.5, …} (1000 elements, 4.9 KiB, xxhash ") || len(s) > 90 {
		t.Errorf("summary %q", s)
	}
	if LiteralSummary(lit) != s || LiteralSummary(strings.Replace(lit, "0.5}", "0.25}", 1)) == s {
		t.Error("the digest does not tell values apart")
	}
}

func FuzzCompareLiterals(f *testing.F) {
	for _, a := range literalSeeds {
		f.Add(a, literalSeeds[len(a)%len(literalSeeds)])
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		var w bytes.Buffer
		WriteCanonicalLiteral(&w, a)
		if w.String() != CanonicalLiteral(a) {
			t.Fatalf("%q: streamed %q, canonical %q", a, w.String(), CanonicalLiteral(a))
		}
		if d := CompareLiterals(a, b); d.Equal && CanonicalLiteral(a) != CanonicalLiteral(b) {
			t.Fatalf("%q and %q compare equal, canonically differ", a, b)
		}
		if !CompareLiterals(a, a).Equal {
			t.Fatalf("%q differs from itself", a)
		}
	})
}

// TestCanonicalLiteralValues pins CanonicalLiteral's output for the seeds, as it was before it
// was written over WriteCanonicalLiteral (TestWriteCanonicalLiteral compares the two forms,
// which agree whatever either prints).
func TestCanonicalLiteralValues(t *testing.T) {
	for _, c := range []struct{ lit, want string }{
		{"{ { /*i0=0*/ {1}, {2.5} }, { /*i0=1*/ {-3e+2}, {inf} } }", "{{{1},{2.5}},{{-300},{inf}}}"},
		{"{1, 2 // a comment to the end of the line\n, 3}", "{1,2,3}"},
		{"{1/*x*/2}", "{12}"},
		{"{1, /* unclosed", "{1,"},
		{"{1, 2, 3}", "{1,2,3}"},
		{"{1.0, 2, 3e0}", "{1,2,3}"},
		{"{ {1, 2}, {3, 4} }", "{{1,2},{3,4}}"},
		{"(1, {2.5, -inf}, nan)", "(1,{2.5,-inf},nan)"},
		{"{...}", "{...}"},
		{"true", "true"},
		{"7.4505806e-09", "7.4505806e-09"},
		{"{0.5, 1.5, 2.5, 3.5, 4.5, 5.5}", "{0.5,1.5,2.5,3.5,4.5,5.5}"},
		{"{1, 2}", "{1,2}"},
		{"{1, 2, 3, 4}", "{1,2,3,4}"},
		{"nan(0x7fc00000)", "nan(0x7fc00000)"},
		{"{ }", "{}"},
		{"", ""},
	} {
		if got := CanonicalLiteral(c.lit); got != c.want {
			t.Errorf("CanonicalLiteral(%q) = %q, want %q", c.lit, got, c.want)
		}
	}
}
