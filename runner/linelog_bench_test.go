package runner

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkLineLog writes output to a run.log file as a command's output arrives, in pieces of
// 4 KiB (a program printing a line at a time through a pipe arrives in small pieces).
func BenchmarkLineLog(b *testing.B) {
	line := []byte("step 12 loss 0.123456 accuracy 0.987654 lr 0.001 throughput 1234.5 samples/s\n")
	chunk := bytes.Repeat(line, 4096/len(line))
	f, err := os.Create(filepath.Join(b.TempDir(), "run.log"))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	l := newLineLog(f, time.Now)
	b.SetBytes(int64(len(chunk)))
	b.ReportAllocs()
	for range b.N {
		l.write(0, chunk)
	}
	l.flush()
}
