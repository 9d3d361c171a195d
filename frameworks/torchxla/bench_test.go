package torchxla_test

import (
	"bytes"
	"os"
	"testing"

	"github.com/recomp/recomp/frameworks"
	"github.com/recomp/recomp/logscan"
)

// BenchmarkScanAnalysisBlocks scans a real PT_XLA_DEBUG_LEVEL=2 log (every line an analysis
// block's: the worst case for torch_xla's block reader), repeated to 8 MiB.
func BenchmarkScanAnalysisBlocks(b *testing.B) {
	one, err := os.ReadFile("../../testdata/runs/torch-xla-2.9/python-int/run.log")
	if err != nil {
		b.Fatal(err)
	}
	data := bytes.Repeat(one, 8<<20/len(one)+1)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		s := logscan.NewScanner(bytes.NewReader(data), "bench", logscan.Options{Grammar: frameworks.Grammar()})
		n := 0
		for s.Scan() {
			n++
		}
		if n == 0 {
			b.Fatal("no events")
		}
	}
}
