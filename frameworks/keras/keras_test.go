package keras

import (
	"strings"
	"testing"

	"github.com/recomp/recomp/frameworks/cause"
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
		// fit's validation, as the probe sees it: an evaluate inside fit
		{TestStep, []string{Validation}, "test step (validation in fit)"},
		{TestStep, []string{Validation, "evaluate"}, "test step (validation in fit, and evaluate)"},
		{"", []string{Validation}, "test step (validation in fit)"},
		{"", []string{"evaluate", Validation}, "test step (validation in fit, and evaluate)"},
		{"", []string{Validation, "predict"}, ""},
		// a dump's role names the loop of its test step (Functions); other compilations' roles come as methods
		{"test step (validation in fit)", nil, "test step (validation in fit)"},
		{"test step (evaluate)", []string{"test step (validation in fit)"}, "test step (validation in fit, and evaluate)"},
		{"test step (validation or evaluate)", nil, "test step (validation or evaluate)"},
		{"test step (evaluate)", []string{"fit"}, "test step (validation in fit, and evaluate)"},
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

// TestStepOfJAXTrainer: the functions Keras's JAX trainer jits are its steps, and only where its
// trainer defines them (a user's own train_step is no Keras step).
func TestStepOfJAXTrainer(t *testing.T) {
	const trainer = "/venv/lib/python3.12/site-packages/keras/src/backend/jax/trainer.py"
	for _, c := range []struct{ file, fn, want string }{
		{trainer, "train_step", TrainStep},
		{trainer, "test_step", TestStep},
		{trainer, "predict_step", PredictStep},
		{"/old/site-packages/keras/backend/jax/trainer.py", "compiled_train_step", TrainStep}, // Keras 3.0
		{trainer, "one_test_step", TestStep},
		{trainer, "iterator_step", ""},
		{"/home/me/train.py", "train_step", ""},
		{"/venv/site-packages/keras/src/backend/tensorflow/trainer.py", "train_step", ""},
	} {
		if got := Step(c.file, c.fn); got != c.want {
			t.Errorf("Step(%q, %q) = %q, want %q", c.file, c.fn, got, c.want)
		}
	}
}

// TestAdviceOnJAX: on JAX Keras batches arrays itself: no step's advice names tf.data there,
// the train step still may drop its remainder, and on TF the tf.data remedies stay.
func TestAdviceOnJAX(t *testing.T) {
	for _, step := range []string{TrainStep, TestStep, PredictStep} {
		for _, kind := range []cause.Kind{cause.BatchSize, cause.InputShape} {
			a := FrontEnd.StepAdvice("jax", step, kind)
			if a == "" || strings.Contains(a, "tf.data") || strings.Contains(a, "padded_batch") {
				t.Errorf("%s %s on jax: %q", step, kind, a)
			}
		}
	}
	if a := FrontEnd.CauseAdvice("jax", "batch_size"); strings.Contains(a, "tf.data") || a == "" {
		t.Errorf("batch_size on jax, step unknown: %q", a)
	}
	if a := FrontEnd.StepAdvice("jax", TrainStep, "batch_size"); !strings.Contains(a, "drop its last partial batch") {
		t.Errorf("the train step on jax is not told it may drop its remainder: %q", a)
	}
	if a := FrontEnd.StepAdvice("tf", TrainStep, "batch_size"); !strings.Contains(a, "drop_remainder=True") {
		t.Errorf("the train step on tf lost tf.data's remedy: %q", a)
	}
}

// TestFunctionsOfNNXLambda: with flax nnx on, Keras's JAX trainer jits its steps as lambdas; the
// dumped module's stack frames name the trainer's method that made the lambda.
func TestFunctionsOfNNXLambda(t *testing.T) {
	for _, c := range []struct {
		names []string
		want  string
	}{
		{[]string{"<module>", "JAXTrainer.fit", "JAXTrainer.make_train_function.<locals>.<lambda>", "JAXTrainer.train_step"}, TrainStep},
		{[]string{"JAXTrainer.fit", "JAXTrainer.evaluate", "JAXTrainer.make_test_function.<locals>.<lambda>", "JAXTrainer.test_step"}, "test step (validation in fit)"},
		{[]string{"<module>", "JAXTrainer.evaluate", "JAXTrainer.test_step"}, "test step (evaluate)"}, // no lambda: jit_test_step
		{[]string{"JAXTrainer.make_test_function.<locals>.<lambda>"}, TestStep},
		{[]string{"JAXTrainer.make_predict_function.<locals>.predict_step"}, PredictStep},
		{[]string{"<module>", "train_step", "MyTrainer.make_train_function.<locals>.<lambda>"}, ""},
		{nil, ""},
	} {
		if got := Functions(c.names); got != c.want {
			t.Errorf("Functions(%q) = %q, want %q", c.names, got, c.want)
		}
	}
}
