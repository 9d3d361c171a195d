package frameworks

import (
	"bytes"
	"slices"
	"testing"

	"github.com/recomp/recomp/logscan"
)

// BenchmarkScanFrontEndAnchors scans a noisy TF log (1 line in 500 matters, no Keras line) with
// the grammar recomp uses and with the same grammar less the front ends' progress rules
// (Keras's "Epoch " and "/step", shorter than the stacks' anchors): what reading Keras's
// progress lines costs a log without them. Run the two alternately (-count) on a quiet machine.
func BenchmarkScanFrontEndAnchors(b *testing.B) {
	var buf bytes.Buffer
	logscan.WriteSynthetic(&buf, logscan.Synthetic{Size: 64 << 20})
	data := buf.Bytes()
	var stacks []*logscan.Framework
	for _, f := range slices.Concat(compilers, all) {
		l := *f.Log
		l.Vocabulary = f.Vocabulary
		stacks = append(stacks, &l)
	}
	without, err := logscan.NewGrammar(stacks...)
	if err != nil {
		b.Fatal(err)
	}
	for _, g := range []struct {
		name string
		g    *logscan.Grammar
	}{{"with", Grammar()}, {"without", without}} {
		b.Run(g.name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				s := logscan.NewScanner(bytes.NewReader(data), "noisy.log", logscan.Options{Grammar: g.g})
				for s.Scan() {
				}
				if err := s.Err(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
