package ipu

import (
	"regexp"
	"testing"
)

// The regexps xlaCompilation stands for.
var (
	reXLABegin = regexp.MustCompile(`Begin XLA compilation: (\S+) +\(Hash: (0x[0-9a-fA-F]+)\)`)
	reXLAEnd   = regexp.MustCompile(`End XLA compilation: (\S+) +\(Hash: (0x[0-9a-fA-F]+)\)`)
)

var xlaCases = []string{
	"Begin XLA compilation: cluster_3  (Hash: 0x1b2c3d4e5f607182) for ordinal  0",
	"End XLA compilation: cluster_3 (Hash: 0xABCdef0)",
	"Begin XLA compilation: a_b.c (Hash: 0x) Begin XLA compilation: d (Hash: 0x12)",
	"Begin XLA compilation: x(Hash: 0x1)",
	"Begin XLA compilation:  x (Hash: 0x1)",
	"Begin XLA compilation: x\t(Hash: 0x1)",
	"Begin XLA compilation: x (Hash: 0x1",
	"Begin XLA compilation: x (Hash: 0x1g)",
	"Begin XLA compilation: m\xff\xfe (Hash: 0xff)",
	"Begin XLA compilation: Begin XLA compilation: m (Hash: 0x2)",
	"End XLA compilation: m (Hash: 0x2) Begin XLA compilation: n (Hash: 0x3)",
	"XLA compilation: m (Hash: 0x2)",
	"",
}

func TestXLACompilation(t *testing.T) {
	for _, msg := range xlaCases {
		checkXLA(t, msg)
	}
	if m, h, ok := xlaCompilation(xlaCases[0], xlaBegin); !ok || m != "cluster_3" || h != "0x1b2c3d4e5f607182" {
		t.Errorf("got %q %q %v", m, h, ok)
	}
}

func checkXLA(t *testing.T, msg string) {
	t.Helper()
	for _, c := range []struct {
		head string
		re   *regexp.Regexp
	}{{xlaBegin, reXLABegin}, {xlaEnd, reXLAEnd}} {
		m, h, ok := xlaCompilation(msg, c.head)
		want := c.re.FindStringSubmatch(msg)
		if ok != (want != nil) || ok && (m != want[1] || h != want[2]) {
			t.Fatalf("xlaCompilation(%q, %q) = %q, %q, %v; the regexp: %q", msg, c.head, m, h, ok, want)
		}
	}
}

// FuzzXLACompilation holds xlaCompilation to the regexps it replaces.
func FuzzXLACompilation(f *testing.F) {
	for _, c := range xlaCases {
		f.Add(c)
	}
	f.Fuzz(checkXLA)
}
