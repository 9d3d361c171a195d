package keras

import (
	"strings"
	"testing"
)

func TestStepRole(t *testing.T) {
	for _, c := range []struct {
		step    string
		methods []string
		want    string
	}{
		{"", nil, ""},
		{TrainStep, []string{"fit"}, "train step"},
		{TestStep, nil, "test step (validation or evaluate)"},
		{TestStep, []string{"fit"}, "test step (validation in fit)"},
		{TestStep, []string{"evaluate"}, "test step (evaluate)"},
		{TestStep, []string{"fit", "evaluate"}, "test step (validation in fit, and evaluate)"},
		{"", []string{"evaluate"}, "test step (evaluate)"},
		{"", []string{"predict"}, "predict step"},
		{"", []string{"fit"}, ""}, // fit runs the train and the test step
		{"", []string{"predict", "evaluate"}, ""},
		{PredictStep, nil, "predict step"},
	} {
		if got := StepRole(c.step, c.methods); got != c.want {
			t.Errorf("StepRole(%q, %q) = %q, want %q", c.step, c.methods, got, c.want)
		}
	}
}

// Only training may drop its last partial batch; an evaluation or a prediction keeps every sample.
func TestStepAdviceByLoop(t *testing.T) {
	for step, byKind := range FrontEnd.Steps {
		drop := strings.Contains(byKind["batch_size"], "drop_remainder=True")
		if drop != (step == TrainStep) {
			t.Errorf("%s: batch_size advice %q", step, byKind["batch_size"])
		}
		if !strings.Contains(byKind["input_shape"], "padded_shapes") {
			t.Errorf("%s: input_shape advice %q", step, byKind["input_shape"])
		}
	}
}
