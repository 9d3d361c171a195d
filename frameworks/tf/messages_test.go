package tf_test

import (
	"testing"
	"time"

	"github.com/recomp/recomp/internal/scantest"
	"github.com/recomp/recomp/logscan"
)

// Lines as tensorflow 2.x prints them, under the prefixes its loggers add.
func TestMessages(t *testing.T) {
	for _, c := range []struct {
		line     string
		kind     logscan.Kind
		producer string
		module   string
		hash     string
		dur      time.Duration
		detail   string // Detail, or Signature for a compile request
	}{
		{"WARNING:tensorflow:5 out of the last 6 calls to <function step at 0x7fd5e3ebd760> triggered tf.function retracing. Tracing is expensive and the excessive number of tracings could be due to (1) creating @tf.function repeatedly in a loop",
			logscan.Retrace, "tf", "step", "", 0, "5 out of the last 6 calls to step triggered tf.function retracing"},
		// TF 2.2's wording: the same counting sentence, another explanation after it.
		{"WARNING:tensorflow:6 out of the last 11 calls to <function Model.step at 0x7f00> triggered tf.function retracing. Tracing is expensive and the excessive number of tracings is likely due to passing python objects instead of tensors. Also, tf.function has experimental_relax_shapes=True option that relaxes argument shapes that can avoid unnecessary retracing.",
			logscan.Retrace, "tf", "Model.step", "", 0, "6 out of the last 11 calls to Model.step triggered tf.function retracing"},
		{"I0000 00:00:1795329831.386345    2433 device_compiler.h:551] Instantly compiling for signature: __inference_step_10",
			logscan.CompileBegin, "tf", "__inference_step_10", "", 0, ""},
		{"I0000 00:00:1795329831.481085    2433 device_compilation_profiler.cc:113] Compiled __inference_step_10 1 times, compile time: 94706 us, cumulative: 94706 us (0 us / 94.7 ms)",
			logscan.CompileFinished, "tf", "__inference_step_10", "", 94706 * time.Microsecond, "compiled 1 times"},
	} {
		ev := scantest.One(t, c.line)
		text := ev.Detail
		if ev.Kind == logscan.CompileRequest {
			text = ev.Signature
		}
		if ev.Kind != c.kind || string(ev.Producer) != c.producer || ev.Module != c.module || ev.Hash != c.hash || ev.Duration != c.dur || text != c.detail {
			t.Errorf("%q:\n got %+v", c.line, ev)
		}
	}
}
