package logscan

import (
	"bytes"
	"testing"
)

// BenchmarkSweepNoisyLog is the prefilter's one pass (adapted to the log, one goroutine) over
// BenchmarkScanNoisyLog's log with the anchors alone ("anchors") and with the sweep words as
// its second class of literal ("sweep"): what finding the sweep's lines adds to a scan.
func BenchmarkSweepNoisyLog(b *testing.B) {
	var buf bytes.Buffer
	WriteSynthetic(&buf, Synthetic{Size: 64 << 20})
	text := buf.Bytes()
	for _, c := range []struct {
		name  string
		sweep []string
	}{{"anchors", nil}, {"sweep", testSweep}} {
		b.Run(c.name, func(b *testing.B) {
			p := newPrefilter(testAnchors, c.sweep).adapt(text)
			b.SetBytes(int64(len(text)))
			b.ReportAllocs()
			var out, swept []span
			for b.Loop() {
				out, swept = p.lines(text, 0, out[:0], swept[:0])
			}
			b.ReportMetric(float64(len(out)), "lines")
			b.ReportMetric(float64(len(swept)), "swept")
			b.ReportMetric(float64(teddyCandidates(p.teddy, text)), "positions")
		})
	}
}
