package ledger

import (
	"strings"
	"testing"
)

// ctReport is a PyTorch/XLA metrics report as torch_xla.debug.metrics.metrics_report() prints
// it (pytorch/xla#2511: "[MetricsData; step=4]", CompileTime, CachedCompile).
func ctReport(step, samples, cached string) string {
	s := ""
	if step != "" {
		s = "[MetricsData; step=" + step + "]\n"
	}
	s += "Metric: CompileTime\n  TotalSamples: " + samples + "\n  Accumulator: 08s849ms784.283us\n  ValueRate: 415ms999.549us / second\n" +
		"  Rate: 0.211497 / second\n  Percentiles: 1%=016ms372.081us; 5%=016ms372.081us\n" +
		"Metric: ExecuteTime\n  TotalSamples: 6\n  Accumulator: 141ms248.232us\n"
	if cached != "" {
		s += "Counter: CachedCompile\n  Value: " + cached + "\n"
	}
	return s
}

func TestMetricsReportCounts(t *testing.T) {
	for _, c := range []struct {
		name, log                        string
		opt                              Options
		compiled, recompiled, late, hits int
		kinds                            string
	}{
		{"one report", ctReport("4", "4", "2"), Options{}, 4, 0, 0, 2, "metrics_compilations"},
		// pytorch/xla#1368: CompileTime 12, then 14: two graphs compiled after the first report
		{"growth", ctReport("", "12", "") + "...\n" + ctReport("", "14", ""), Options{}, 14, 2, 2, 0, "metrics_compilations metrics_recompiled"},
		// glued onto the output before it, with the step header
		{"glued", "epoch 0 loss 0.31" + ctReport("0", "3", "") + "epoch 1 loss 0.29[MetricsData; step=1]Metric: CompileTime\n  TotalSamples: 5\n", Options{}, 5, 2, 2, 0,
			"metrics_compilations metrics_recompiled"},
		// PT_XLA_DEBUG's profiler (pytorch/xla#3149): 21 compilations by step 11, 23 by step 12
		{"profiler", "pt-xla-profiler: CompileTime too frequent: 21 counts during 11 steps\nstep 12\n" +
			"pt-xla-profiler: CompileTime too frequent: 23 counts during 12 steps\n", Options{}, 23, 2, 2, 0,
			"frequent_retracing metrics_compilations metrics_recompiled"},
		{"no growth", ctReport("0", "3", "1") + ctReport("1", "3", "9"), Options{}, 3, 0, 0, 9, "metrics_compilations"},
		{"--warmup 1", ctReport("0", "3", ""), Options{Warmup: 1}, 3, 0, 2, 0, "compiled_after_warmup metrics_compilations metrics_recompiled"},
		{"marker", ctReport("0", "3", "") + "Epoch 2/\n" + ctReport("1", "7", ""), Options{AfterMarker: true}, 7, 4, 4, 0,
			"compiled_after_warmup metrics_compilations metrics_recompiled"},
	} {
		r := report(t, c.opt, c.log)
		s := r.Summary
		var kinds []string
		for _, f := range r.Findings {
			kinds = append(kinds, string(f.Kind))
		}
		if s.Compilations != c.compiled || s.ReportedCompilations != c.compiled || s.Recompilations != c.recompiled || s.AfterWarmup != c.late || s.CacheHits != c.hits ||
			strings.Join(kinds, " ") != c.kinds {
			t.Errorf("%s: compilations %d, recompilations %d, after warm-up %d, cache hits %d, findings %v", c.name,
				s.Compilations, s.Recompilations, s.AfterWarmup, s.CacheHits, kinds)
		}
		if len(r.Late) != c.late || c.late > 0 && !strings.Contains(r.Late[0].Late, "metrics report") {
			t.Errorf("%s: late %+v", c.name, r.Late)
		}
	}
}

// A run with both PT_XLA_DEBUG's analysis blocks and a metrics report is counted once: each
// total is the larger of the two, and CachedCompile (the in-memory graph cache) counts as cache
// hits only where nothing else in the log records compilations.
func TestMetricsReportAndBlocksAreNotAddedUp(t *testing.T) {
	block := "Compilation Analysis: ================================================================================\n" +
		"Compilation Analysis: Compilation Cause\nCompilation Analysis:   most likely user code trying to access tensor value before mark_step\n" +
		"Compilation Analysis: Graph Info: \nCompilation Analysis:   Graph Hash: HASH\n" +
		"Compilation Analysis: Python Frame Triggered Execution: \nCompilation Analysis:   train_loop (/tmp/train.py:12)\n" +
		"Compilation Analysis: --------------------------------------------------------------------------------\n" +
		"Compilation Analysis: ================================================================================\n"
	r := report(t, Options{}, strings.Replace(block, "HASH", "aa", 1)+strings.Replace(block, "HASH", "bb", 1)+ctReport("", "2", "6"))
	if s := r.Summary; s.Compilations != 2 || s.Recompilations != 1 || s.CacheHits != 0 {
		t.Errorf("blocks and report: %+v", s)
	}
	// the report counts one more than the blocks (logging switched on late): counted once
	r = report(t, Options{}, strings.Replace(block, "HASH", "aa", 1)+ctReport("", "3", "6"))
	if s := r.Summary; s.Compilations != 3 || s.CacheHits != 0 {
		t.Errorf("report beyond the blocks: %+v", s)
	}
}
