package ledger

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/recomp/recomp/frameworks"
	"github.com/recomp/recomp/logscan"
)

// tfCompile is TF's device compiler compiling Keras 3's one_step_on_data (function id, its
// num_inputs: the train step has the optimizer's, the test step fewer, predict fewer still), in
// the words of tensorflow 2.21 (TF_CPP_VMODULE=device_compiler=3,device_compilation_profiler=2).
func tfCompile(id, inputs, times int) string {
	return fmt.Sprintf("I0000 00:00:1795505217.198924     923 device_compiler.h:480] num_inputs=%d\n", inputs) +
		fmt.Sprintf("I0000 00:00:1795505217.198947     923 device_compiler.h:551] Instantly compiling for signature: __inference_one_step_on_data_%d\n", id) +
		fmt.Sprintf("I0000 00:00:1795505217.461951     923 device_compilation_profiler.cc:113] Compiled __inference_one_step_on_data_%d %d times, "+
			"compile time: 262937 us, cumulative: 262937 us (0 us / 263 ms)\n", id, times)
}

// bar1 is one state of Keras 3's verbose=1 bar as a terminal (or, on Linux, a pipe) gets it: the
// last one's backspaces, a carriage return, ANSI colours, and no newline until the last state.
func bar1(cur, of int, metrics string, last bool) string {
	s := fmt.Sprintf("\b\b\b\b\b\r\x1b[1m%d/%d\x1b[0m \x1b[32m%s\x1b[0m\x1b[37m%s\x1b[0m \x1b[1m0s\x1b[0m 12ms/step",
		cur, of, strings.Repeat("━", 20*cur/of), strings.Repeat("━", 20-20*cur/of))
	if metrics != "" {
		s += " - " + metrics
	}
	if last {
		s += "  \n"
	}
	return s
}

// ownTrainStep is JAX compiling a program's own train_step for a batch of rows (JAX_LOG_COMPILES=1).
func ownTrainStep(rows int) string {
	return fmt.Sprintf("Compiling jit(train_step) with global shapes and types (ShapedArray(float32[%d,6]),). Argument mapping: (UnspecifiedValue,).\n", rows) +
		"Finished XLA compilation of jit(train_step) in 0.5 sec\n"
}

// loops gives, for each compiled unit of a one-process report, its program's step, loop and epoch.
func loops(r *Report) []string {
	var out []string
	var us []*Unit
	for _, m := range r.Modules {
		us = append(us, m.Compiled()...)
	}
	SortUnits(us)
	for _, u := range us {
		out = append(out, fmt.Sprintf("%s|%s|%d", u.LogStep, u.LogLoop, u.Epoch))
	}
	return out
}

func TestKerasProgressGivesStepsLoopsAndEpochs(t *testing.T) {
	for _, tc := range []struct {
		name   string
		log    string
		want   []string
		epochs []int
	}{{
		// verbose=2 (the generator's runs): the train step, its last partial batch, the test step
		// on the validation data, its partial batch; nothing in epoch 2
		name: "verbose 2, validation",
		log: "Epoch 1/2\n" + tfCompile(272, 10, 1) + tfCompile(272, 10, 2) + tfCompile(436, 8, 1) + tfCompile(436, 8, 2) +
			"5/5 - 1s - 195ms/step - loss: 0.5922 - val_loss: 0.3190\nEpoch 2/2\n5/5 - 0s - 13ms/step - loss: 0.2780 - val_loss: 0.1718\n",
		want:   []string{"train step|fit|1", "train step|fit|1", "test step|fit.evaluate|1", "test step|fit.evaluate|1"},
		epochs: []int{0, 5},
	}, {
		// verbose=1 into a file: the bar's states joined by carriage returns, TF's records glued
		// after a state; the epoch's last state before validation (4/4, no val_) and then the
		// one with val_ after the test step compiled
		name: "verbose 1, redrawn bars, validation after the last train state",
		log: "Epoch 1/3\n" + tfCompile(272, 10, 1) + bar1(1, 4, "loss: 0.69", false) + bar1(2, 4, "loss: 0.68", false) +
			bar1(3, 4, "loss: 0.67", false) + tfCompile(272, 10, 2) + bar1(4, 4, "loss: 0.66", false) + tfCompile(436, 8, 1) +
			bar1(4, 4, "loss: 0.66 - val_loss: 0.70", true) +
			"Epoch 2/3\n" + bar1(4, 4, "loss: 0.6 - val_loss: 0.7", true) + "Epoch 3/3\n" + tfCompile(272, 10, 3) + bar1(4, 4, "loss: 0.5 - val_loss: 0.6", true),
		want:   []string{"train step|fit|1", "train step|fit|1", "test step|fit.evaluate|1", "train step|fit|3"},
		epochs: []int{0, 4, 8},
	}, {
		// fit, then evaluate and predict with their bars (verbose=2): evaluate's test step compiled
		// again for another batch size, predict's step first compiled before its bar
		name: "evaluate and predict bars after fit",
		log: "Epoch 1/2\n" + tfCompile(272, 10, 1) + tfCompile(436, 8, 1) + "3/3 - 1s - 195ms/step - loss: 0.59 - val_loss: 0.31\n" +
			"Epoch 2/2\n3/3 - 0s - 13ms/step - loss: 0.27 - val_loss: 0.17\n" +
			tfCompile(436, 8, 2) + "4/4 - 0s - 3ms/step - loss: 0.2\n" +
			tfCompile(600, 5, 1) + tfCompile(600, 5, 2) + "2/2 - 0s - 5ms/step\n",
		want: []string{"train step|fit|1", "test step|fit.evaluate|1", "test step|evaluate|0", "predict step|predict|0",
			"predict step|predict|0"},
		epochs: []int{0, 3},
	}, {
		// verbose=0: no line of Keras's, no role
		name: "no progress lines",
		log:  tfCompile(272, 10, 1) + tfCompile(272, 10, 2) + tfCompile(436, 8, 1),
		want: []string{"||0", "||0", "||0"},
	}, {
		// one epoch without validation (no epoch line) is a bar like evaluate's: open
		name: "a bar with a loss and no epoch line",
		log:  tfCompile(272, 10, 1) + tfCompile(272, 10, 2) + "4/4 - 1s - 195ms/step - loss: 0.59\n",
		want: []string{"||0", "||0"},
	}, {
		// a silent evaluate (verbose=0) between two fits' bars: its test step compiled with no bar
		// of its own, then fit again with validation added: two programs first compiled in the
		// second fit's first epoch are not told apart from the earlier train step
		name: "a program first compiled after a step compiled before",
		log: "Epoch 1/2\n" + tfCompile(272, 10, 1) + "3/3 - 1s - 195ms/step - loss: 0.59\nEpoch 2/2\n3/3 - 0s - 1ms/step - loss: 0.5\n" +
			"Epoch 1/2\n" + tfCompile(436, 8, 1) + "3/3 - 1s - 195ms/step - loss: 0.59 - val_loss: 0.31\nEpoch 2/2\n3/3 - 0s - 1ms/step - loss: 0.5 - val_loss: 0.3\n",
		want: []string{"train step|fit|0", "||0"},
	}, {
		// after fit's last epoch a silent evaluate (verbose=0) compiles the test step again: outside
		// fit, in no loop the log shows; between two epochs a callback's compilation is in the epoch
		name: "compilations after an epoch's bar",
		log: "Epoch 1/2\n" + tfCompile(272, 10, 1) + tfCompile(436, 8, 1) + "3/3 - 1s - 195ms/step - loss: 0.59 - val_loss: 0.31\n" +
			tfCompile(436, 8, 2) + "Epoch 2/2\n3/3 - 0s - 13ms/step - loss: 0.27 - val_loss: 0.17\n" + tfCompile(436, 8, 3),
		want:   []string{"train step|fit|1", "test step|fit.evaluate|1", "test step||1", "test step||0"},
		epochs: []int{0, 3},
	}, {
		// predict, then a silent evaluate, then predict again (its step compiled before): the step
		// first compiled under the second predict bar is the evaluate's, and is not named
		name: "a silent evaluate between two predict bars",
		log:  tfCompile(272, 5, 1) + "2/2 - 0s - 5ms/step\n" + tfCompile(436, 8, 1) + "2/2 - 0s - 5ms/step\n",
		want: []string{"predict step|predict|0", "||0"},
	}, {
		// a JAX program's own train_step under its own Keras-like lines: JAX names no Keras trainer
		name: "a program's own jit_train_step",
		log: "Epoch 1/2\n" + ownTrainStep(32) + ownTrainStep(24) + "4/4 - 1s - 10ms/step - loss: 0.5 - val_loss: 0.6\n" +
			"Epoch 2/2\n4/4 - 0s - 1ms/step - loss: 0.4 - val_loss: 0.5\n",
		want:   []string{"||1", "||1"},
		epochs: []int{0, 4},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			r := ledgerOf(t, Options{}, tc.log)
			if got := loops(r); !slices.Equal(got, tc.want) {
				t.Errorf("step|loop|epoch\n got %q\nwant %q", got, tc.want)
			}
			if got := r.Procs[0].Epochs; !slices.Equal(got, tc.epochs) {
				t.Errorf("epochs %v, want %v", got, tc.epochs)
			}
		})
	}
}

// Live lines are written as each compilation is accounted, before the log ends: the first step
// program compiled inside an epoch is already fit's train step then (the test step waits for the
// epoch's last bar).
func TestKerasTrainStepKnownBeforeTheEpochEnds(t *testing.T) {
	log := "Epoch 1/2\n" + tfCompile(272, 10, 1) + tfCompile(272, 10, 2) + tfCompile(436, 8, 1) + tfCompile(436, 8, 2)
	s := logscan.NewScanner(strings.NewReader(log), "run.log", logscan.Options{Grammar: frameworks.Grammar()})
	l := NewLedger(Options{})
	var seen []string
	l.onCompiled = func(u *Unit) { seen = append(seen, u.LogStep) }
	l.BeginInput(0, "run.log")
	for s.Scan() {
		l.Add(s.Event())
	}
	l.EndInput(false)
	l.Report()
	if want := []string{"train step", "train step", "", ""}; !slices.Equal(seen, want) {
		t.Errorf("steps as compiled %q, want %q", seen, want)
	}
}
