package verdict

import (
	"testing"
)

// BenchmarkBuild builds the verdict of a log of 2,000 JAX recompilations, each explained by JAX
// (its words read into facts for the cause, the argument's name and the first-trace test).
func BenchmarkBuild(b *testing.B) {
	var log string
	prev := ""
	for i := 0; i < 2000; i++ {
		shape := itoa(8+i%200) + ",16"
		log += jaxStep(shape, prev, 30, 0.5)
		prev = shape
	}
	rep := read(b, log)
	b.SetBytes(int64(len(log)))
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if r := Build(Input{Ledger: rep}); len(r.Verdicts) != 1 {
			b.Fatal(r.Verdicts)
		}
	}
}
