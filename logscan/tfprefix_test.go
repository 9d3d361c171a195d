package logscan

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
)

// checkTFPrefix fails unless tfPrefix agrees with reTFPrefix on rec.
func checkTFPrefix(t *testing.T, rec string) {
	t.Helper()
	stamp, thread, source, n := tfPrefix([]byte(rec))
	m := reTFPrefix.FindStringSubmatch(rec)
	if m == nil {
		if n != 0 {
			t.Fatalf("%q: tfPrefix matched %d bytes (%q, %q), the regexp nothing", rec, n, stamp, source)
		}
		return
	}
	if n != len(m[0]) || string(stamp) != m[1] || string(thread) != m[2] || string(source) != m[3] {
		t.Fatalf("%q: tfPrefix (%d, %q, %q, %q), regexp (%d, %q, %q, %q)", rec, n, stamp, thread, source, len(m[0]), m[1], m[2], m[3])
	}
}

func TestTFPrefixMatchesRegexp(t *testing.T) {
	const stamp = "2021-03-10 12:34:56.789012"
	for _, rec := range []string{
		stamp + ": I tensorflow/compiler/plugin/poplar/driver/poplar_compiler.cc:1487] Begin XLA compilation",
		stamp + ": W  123 xla_compilation_cache.cc:312] Compiled cluster",
		stamp + ": E 12 34:5] x",
		stamp + ": I 1234:5] x",
		stamp + ": I  x.cc:1] ",
		stamp + ": I x.cc:1]",
		stamp + ": I x.cc:] y",
		stamp + ": I x cc:1] y",
		stamp + ": I x]cc:1] y",
		stamp + ": I \xff\xfe.cc:1] y",
		stamp + ": I 12 \tx.cc:1] y",
		stamp + ": D x.cc:1] y",
		stamp + ": I 12",
		stamp + ": I ",
		stamp + ":I x.cc:1] y",
		"2021-03-10T12:34:56.789012: I x.cc:1] y",
		"2021-03-10 12:34:56.78901: I x.cc:1] y",
		"",
	} {
		for cut := 0; cut <= len(rec); cut++ {
			checkTFPrefix(t, rec[:cut])
		}
		checkTFPrefix(t, strings.Replace(rec, "1", "x", 1))
	}
}

func FuzzTFPrefix(f *testing.F) {
	f.Add("2021-03-10 12:34:56.789012: I tensorflow/core/x.cc:12] msg")
	f.Add("2021-03-10 12:34:56.789012: W  77 a:1] ")
	f.Fuzz(func(t *testing.T, rec string) { checkTFPrefix(t, rec) })
}

// mayStartRecord must hold wherever one of the glued-record expressions matches.
func TestMayStartRecord(t *testing.T) {
	for _, rec := range []string{
		"2021-03-10 12:34:56.789012: I x", "2021-03-10T12:34:56.789012Z x", "[2021-03-10 12:34:56.789] [popart]",
		"[12:34:56.789] [poptorch:cpp]", "I0310 12:34:56.789012 77 x.cc:1] ", "12:34:56.789 4242 PO:ENGINE",
		"12:34:56.789 4242 POPRUN", "W0310 12:34:56.789012   -1 a.cc:9] ",
	} {
		seg := []byte("x" + rec)
		if !reRecordStart.Match(seg[1:]) && !reRecordStartWord.Match(seg[1:]) && !reAbslGlued.Match(seg[1:]) {
			t.Fatalf("%q: no expression matches", rec)
		}
		if !mayStartRecord(seg, 1) {
			t.Errorf("%q: mayStartRecord says no", rec)
		}
	}
}

func FuzzMayStartRecord(f *testing.F) {
	f.Add("2021-03-10 12:34:56.789012: I x")
	f.Add("12:34:56.789 4242 PO:ENGINE")
	f.Fuzz(func(t *testing.T, rec string) {
		seg := []byte("x" + rec)
		if (reRecordStart.Match(seg[1:]) || reRecordStartWord.Match(seg[1:]) || reAbslGlued.Match(seg[1:])) && !mayStartRecord(seg, 1) {
			t.Fatalf("%q: an expression matches, mayStartRecord says no", rec)
		}
	})
}

// reGCOldPrefix is the expression gcOldPrefix stands for.
var reGCOldPrefix = regexp.MustCompile(`^(\d{2}:\d{2}:\d{2}\.\d{3}) \d+ (P[OL](?::[A-Z]+)?|POPRUN) +\[[TDIWEC]\] `)

var gcOldCases = []string{
	"10:00:02.123 4242 PO:ENGINE   [I] Ending phase: x", "10:00:02.123 4242 POPRUN [I] x", "10:00:02.123 4242 PL:POPLIN [D] x",
	"10:00:02.123 4242 PO [W] x", "10:00:02.123 4242 PO: [W] x", "10:00:02.123 4242 PO:engine [W] x", "10:00:02.123 4242 POPRUNX [I] x",
	"10:00:02.123 4242 PO:ENGINE[I] x", "10:00:02.123 4242 PO:ENGINE [X] x", "10:00:02.123 PO:ENGINE [I] x", "1:00:02.123 4 PO [I] x",
	"10:00:02.123 4242 PO:ENGINE [I]x", "10:00:02.123 4242 PO:ENGINE [I] ", "10:00:02.1234 42 PO [I] x", "", "10:00:02.123 4242 P",
}

func checkGCOld(t *testing.T, rec string) {
	t.Helper()
	stamp, comp, n := gcOldPrefix([]byte(rec))
	m := reGCOldPrefix.FindStringSubmatch(rec)
	if (n > 0) != (m != nil) || m != nil && (string(stamp) != m[1] || string(comp) != m[2] || n != len(m[0])) {
		t.Fatalf("gcOldPrefix(%q) = %q, %q, %d; the regexp: %q", rec, stamp, comp, n, m)
	}
}

func TestGCOldPrefix(t *testing.T) {
	for _, c := range gcOldCases {
		checkGCOld(t, c)
	}
	if _, _, n := gcOldPrefix([]byte(gcOldCases[0])); n == 0 {
		t.Error("a Poplar prefix not read")
	}
}

// FuzzGCOldPrefix holds gcOldPrefix to the regexp it replaces.
func FuzzGCOldPrefix(f *testing.F) {
	for _, c := range gcOldCases {
		f.Add(c)
	}
	f.Fuzz(checkGCOld)
}

// abslPrefix is reAbslPrefix, by hand: the same submatches on every record, cut anywhere.
func TestAbslPrefixMatchesRegexp(t *testing.T) {
	for _, rec := range []string{
		"I1202 03:53:03.230000 25137 torch/_dynamo/utils.py:1749] [0/0] x",
		"V1202 03:53:03.230000 25137 torch/_logging/structured.py:28] {\"str\": [\"a\", 1]}",
		"W0310 12:34:56.789012   -1 a.cc:9] ",
		"E0310 1:34:56.789012 1 a.cc:9] x",
		"F0310 12:34:5678.789012 1 a.cc:9] x",
		"I0310 12:34:56.7890123 1 a.cc:9] x",
		"I0310 12:34:56.789012 1 a b.cc:9] x",
		"I0310 12:34:56.789012 1 a]b.cc:9] x",
		"I0310 12:34:56.789012 1 \xff\xfe.cc:9] x",
		"I0310 12:34:56.789012 1 a.cc:] x",
		"I0310 12:34:56.789012 1 a.cc:9]x",
		"I0310 12:34:56.789012 - a.cc:9] x",
		"I0310 12:34:56.789012 1\ta.cc:9] x",
		"D0310 12:34:56.789012 1 a.cc:9] x",
		"I0310  12:34:56.789012 1 a.cc:9] x",
	} {
		for cut := 0; cut <= len(rec); cut++ {
			checkAbslPrefix(t, rec[:cut])
		}
		checkAbslPrefix(t, strings.Replace(rec, "1", "x", 1))
		checkAbslPrefix(t, strings.Replace(rec, " ", "  ", 2))
	}
}

func FuzzAbslPrefix(f *testing.F) {
	f.Add("I1202 03:53:03.230000 25137 torch/_dynamo/utils.py:1749] x")
	f.Add("W0310 12:34:56.789012   -1 a.cc:9] ")
	f.Fuzz(func(t *testing.T, rec string) { checkAbslPrefix(t, rec) })
}

func checkAbslPrefix(t *testing.T, rec string) {
	t.Helper()
	want, got := reAbslPrefix.FindSubmatch([]byte(rec)), abslPrefix([]byte(rec))
	if len(want) != len(got) {
		t.Fatalf("%q: regexp %q, by hand %q", rec, want, got)
	}
	for i := range want {
		if !bytes.Equal(want[i], got[i]) {
			t.Fatalf("%q: submatch %d: regexp %q, by hand %q", rec, i, want[i], got[i])
		}
	}
}
