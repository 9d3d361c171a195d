package logscan

import (
	"bytes"
	"testing"
)

// BenchmarkSweepNoisyLog is the sweep's vector search alone (sweepFilter adapted to the log, one
// goroutine) over BenchmarkScanNoisyLog's log: the cost the sweep adds to a scan.
func BenchmarkSweepNoisyLog(b *testing.B) {
	var buf bytes.Buffer
	WriteSynthetic(&buf, Synthetic{Size: 64 << 20})
	text := buf.Bytes()
	p := sweepFilter.adapt(text)
	b.SetBytes(int64(len(text)))
	var out []span
	for b.Loop() {
		out = p.lines(text, 0, out[:0])
	}
	b.ReportMetric(float64(len(out)), "lines")
}
