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

// TF's SavedModel writer warns, at a Keras model.save() on TF, of the functions it found no
// trace of (saved_model/save.py, absl's or glog's layout; TF 2.3's one line a function); the optimizer's XLA step is one of
// them. It says nothing was compiled: neither a record nor one recomp could not read.
func TestUntracedFunctionsWarningIsKnown(t *testing.T) {
	log := "WARNING:absl:Found untraced functions such as _update_step_xla, _jit_compiled_convolution_op while saving (showing 2 of 2). These functions will not be directly callable after loading.\n" +
		"W1202 00:41:07.123456 140288236451648 save.py:271] Found untraced functions such as _update_step_xla while saving (showing 1 of 1). These functions will not be directly callable after loading.\n" +
		"I1202 00:41:07.123456 140288236451648 save.py:271] Found untraced functions such as dense_layer_call_fn, dense_layer_call_and_return_conditional_losses while saving (showing 2 of 2). These functions will not be directly callable after loading.\n" +
		"W1022 17:38:15.026157 140288236451648 save.py:228] No concrete functions found for untraced function `_update_step_xla` while saving. This function will not be callable after loading.\n"
	evs, st := scantest.Scan(t, log, logscan.Options{})
	if len(evs) != 0 || st.Unread != 0 {
		t.Errorf("events %+v, unread %+v", evs, st.UnreadLines)
	}
}
