package torchxla

import (
	"testing"
	"time"
)

// TestParseDurationUndoesRounding holds the reading of torch_xla's durations to the values the
// program itself read (metric_data('CompileTime') accumulators of real runs): every part but
// the last is printed rounded, so 1.5629 s reads 02s563ms900.000us.
func TestParseDurationUndoesRounding(t *testing.T) {
	for _, c := range []struct {
		in   string
		want time.Duration
	}{
		{"02s563ms900.000us", 1562900 * time.Microsecond},   // CI's adamw-clean: 1.5629 s
		{"02s317ms656.324us", 2316656324 * time.Nanosecond}, // ms part 316.656 rounded up
		{"01s486ms070.232us", 1486070232 * time.Nanosecond}, // nothing rounded up
		{"205ms156.851us", 205156851 * time.Nanosecond},     // below a second
		{"60s500ms000.000us", 59500 * time.Millisecond},     // 59.5 s: s rounded up
		{"02m60s700ms000.000us", 119700 * time.Millisecond}, // 1m59.7s: m and s rounded up
		{"02d00h00m00s000ms000.000us", 48 * time.Hour},      // days
		{"001.000us", time.Microsecond},                     // the last part alone
		{"01m12s", 72 * time.Second},                        // no fraction: as printed
		{"garbage", 0},
	} {
		if got := parseDuration(c.in); got != c.want {
			t.Errorf("parseDuration(%q) = %v, want %v", c.in, got, c.want)
		}
	}
}
