package keras

import (
	"slices"
	"strings"
	"testing"

	"github.com/recomp/recomp/frameworks/framework"
)

// Keras 3's bars in each form progbar.py writes them (after logscan has split the redraws at
// "\r" and removed the ANSI colours), and lines that only look like them.
func TestParseBar(t *testing.T) {
	for _, tc := range []struct {
		msg     string
		cur     int
		target  string
		metrics string
		ok      bool
	}{
		{"4/4 ━━━━━━━━━━━━━━━━━━━━ 0s 12ms/step - loss: 0.6931 - val_loss: 0.7012", 4, "4", "loss val_loss", true},
		{"1/4 ━━━━━━━━━━━━━━━━━━━━ 1:05 2s/step - loss: 0.6931\b\b\b\b", 1, "4", "loss", true}, // the next redraw's backspaces
		{"  12/120 ━━━━━━━━━━━━━━━━━━━━ 1:02:09 80us/step - accuracy: 0.5000 - loss: 1.2e-04", 12, "120", "accuracy loss", true},
		{"3/3 ━━━━━━━━━━━━━━━━━━━━ 0s 3ms/step", 3, "3", "", true},                 // predict: no metrics
		{"4/4 ==================== 0s 3ms/step - loss: nan", 4, "4", "loss", true}, // a terminal that cannot encode "━"
		{"      7/Unknown 3s 10ms/step - loss: 0.5", 7, "Unknown", "loss", true},
		{"4/4 - 0s - 12ms/step - loss: 0.6931 - val_loss: 0.7000", 4, "4", "loss val_loss", true}, // verbose=2
		{"2/2 - 0s - 5ms/step", 2, "2", "", true},
		{"4/4 [==============================] - 0s 12ms/step - loss: 0.6931", 4, "4", "loss", true}, // Keras 2
		{"4/4 - 1s - loss: 0.69 - val_loss: 0.7 - 300ms/epoch - 75ms/step", 4, "4", "loss val_loss", true},
		{"The 4/4 rows took 12ms/step - loss: 0.1", 0, "", "", false},
		{"4/4 - 0s - 12ms/step - loss: 0.6931 - val_loss: lots", 0, "", "", false},
		{"4/4 - 0s - 12ms/step - loss: 0.5Finished XLA compilation of jit(f) in 0.2 sec", 0, "", "", false}, // glued: see barLine
		{"4/4 rows took 12ms/step", 0, "", "", false},
		{"4/4 ━━━━ 0s 12ms/stepper - loss: 1", 0, "", "", false},
		{"4/4 ━━━━ 0s 12 ms/step", 0, "", "", false},
		{"4/4 ━━━━ 0s 12ms/epoch - loss: 1", 0, "", "", false}, // no time per step
		{"/4 ━━━━ 0s 12ms/step", 0, "", "", false},
		{"4/ ━━━━ 0s 12ms/step", 0, "", "", false},
		{"1234567890123/4 ━━━━ 0s 12ms/step", 0, "", "", false},
	} {
		cur, target, metrics, ok := ParseBar(tc.msg)
		if ok != tc.ok || cur != tc.cur || target != tc.target || strings.Join(metrics, " ") != tc.metrics {
			t.Errorf("ParseBar(%q) = %d, %q, %q, %v; want %d, %q, %q, %v", tc.msg, cur, target, metrics, ok, tc.cur, tc.target, tc.metrics, tc.ok)
		}
	}
}

func TestStepped(t *testing.T) {
	for _, tc := range []struct {
		family, lambda, step string
		ok                   bool
	}{
		{"__inference_one_step_on_data_N [num_inputs=10]", "", "", true},
		{"jit_train_step", "", "", false}, // a program's own as often: JAX's explanation tells Keras's
		{"jit_predict_step", "", "", false},
		{"jit__lambda [trainer.py:270]", "trainer.py:270", "", true},
		{"jit__lambda [train.py:12]", "train.py:12", "", false},
		{"jit_step", "", "", false},
		{"__inference_train_function_12", "", "", false},
	} {
		if step, ok := Stepped(tc.family, tc.lambda); step != tc.step || ok != tc.ok {
			t.Errorf("Stepped(%q, %q) = %q, %v; want %q, %v", tc.family, tc.lambda, step, ok, tc.step, tc.ok)
		}
	}
}

// Only what Keras's loops decide gives a step: two programs in an epoch with validation, one in
// an epoch without, one under a predict bar; a bar with a loss and no epoch line is left open.
func TestLoopStep(t *testing.T) {
	var got []string
	for _, w := range []struct {
		epoch, bars  int
		val, metrics bool
		n            int
		before       bool
	}{
		{1, 1, true, true, 2, false}, {1, 1, true, true, 1, false}, {1, 1, true, true, 1, true}, {1, 1, true, true, 3, false},
		{1, 1, false, true, 1, true}, {0, 1, false, true, 1, false}, {0, 1, false, false, 1, true}, {0, 1, false, false, 2, false},
	} {
		for i := range w.n {
			got = append(got, LoopStep(frameworkWindow(w.epoch, w.bars, w.val, w.metrics), i, w.n, w.before, nil))
		}
	}
	want := []string{TrainStep, TestStep, TrainStep, "", "", "", "", TrainStep, "", PredictStep, "", ""}
	if !slices.Equal(got, want) {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	// a second predict bar's new step may be a silent evaluate's test step: open
	if s := LoopStep(frameworkWindow(0, 1, false, false), 0, 1, true, []framework.LoopWindow{frameworkWindow(0, 1, false, false)}); s != "" {
		t.Errorf("a new step under a second predict bar is %q", s)
	}
}

func frameworkWindow(epoch, bars int, val, metrics bool) framework.LoopWindow {
	return framework.LoopWindow{Epoch: epoch, Bars: bars, Val: val, Metrics: metrics}
}
