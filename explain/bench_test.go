package explain

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/recomp/recomp/ledger"
	"github.com/recomp/recomp/logscan"
)

// BenchmarkLogsDense is recomp scan's whole read of a dense TF VLOG (1 line in 20 is a compile
// request with a new hash): scanner, ledger, merge and verdict, from a file.
func BenchmarkLogsDense(b *testing.B) { benchmarkLogs(b, 20) }

// BenchmarkLogsNoisy is the same for a log where 1 line in 500 matters.
func BenchmarkLogsNoisy(b *testing.B) { benchmarkLogs(b, 500) }

func benchmarkLogs(b *testing.B, every int) {
	path := filepath.Join(b.TempDir(), "train.log")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	n, _, err := logscan.WriteSynthetic(f, logscan.Synthetic{Size: 32 << 20, Every: every})
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(n)
	b.ReportAllocs()
	for b.Loop() {
		s, err := Logs([]string{path}, ledger.ReadOptions{})
		if err != nil {
			b.Fatal(err)
		}
		if s.Ledger.Summary.Compilations == 0 {
			b.Fatal("no compilations")
		}
	}
}
