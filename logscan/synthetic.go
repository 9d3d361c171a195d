package logscan

import (
	"bufio"
	"fmt"
	"io"
)

// Synthetic describes a generated TF-IPU/Poplar-style log for benchmarks, stress tests and the
// performance harness: noise lines (TF VLOG output recomp must skip) with, every Every lines, a
// compile request of one of Families module families (a new graph hash each time) or an
// executable load. The output is deterministic for a given description.
type Synthetic struct {
	// Size stops the log after about this many bytes; with Size 0, the log ends after
	// Compilations compile requests and Loads loads.
	Size         int64
	Compilations int
	Loads        int
	Families     int // default 7
	Every        int // one line in Every matters (default 500)
	Seed         int // varies the content between files
}

var syntheticNoise = []string{
	"I tensorflow/compiler/plugin/poplar/driver/poplar_executor.cc:2201] Executing on Poplar stream ordinal 0 of type ipu",
	"I tensorflow/compiler/xla/service/hlo_pass_pipeline.cc:301] Running HLO pass pipeline on module cluster_7: optimization",
	"I tensorflow/core/common_runtime/executor.cc:812] Process node: 17 step 3 {{node while/body/_1}} = _Recv[client_terminated=false]() device: /job:localhost/replica:0/task:0/device:IPU:0",
	"I tensorflow/compiler/jit/xla_launch_util.cc:512] Executing XLA computation for cluster_7 with 3 arguments on device 0",
}

// WriteSynthetic writes the log s describes and returns its size in bytes and lines.
func WriteSynthetic(w io.Writer, s Synthetic) (int64, int, error) {
	if s.Families <= 0 {
		s.Families = 7
	}
	if s.Every <= 0 {
		s.Every = 500
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	var n int64
	lines, compiles, loads := 0, 0, 0
	done := func() bool {
		if s.Size > 0 {
			return n >= s.Size
		}
		return compiles >= s.Compilations && loads >= s.Loads
	}
	for i := 0; !done(); i++ {
		var k int
		stamp := i % 1000000
		switch {
		case i%s.Every != s.Every-1:
			k, _ = fmt.Fprintf(bw, "2024-05-02 10:00:02.%06d: %s\n", stamp, syntheticNoise[(i+s.Seed)%len(syntheticNoise)])
		case s.Size > 0 || (compiles < s.Compilations && (loads >= s.Loads || compiles <= loads)):
			k, _ = fmt.Fprintf(bw, "2024-05-02 10:00:02.%06d: I tensorflow/compiler/plugin/poplar/driver/poplar_compiler.cc:1487] Begin XLA compilation: cluster_%d  (Hash: 0x%x) for ordinal  0\n",
				stamp, (compiles+s.Seed)%s.Families, i+s.Seed)
			compiles++
		default:
			k, _ = fmt.Fprintf(bw, "10:00:02.%03d %d PO:ENGINE   [I] Ending phase: Loading executable (duration 600 ms; diff RSS: 0 MB)\n",
				stamp%1000, 4242)
			loads++
		}
		n += int64(k)
		lines++
	}
	return n, lines, bw.Flush()
}
