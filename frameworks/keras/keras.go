// Package keras declares Keras as a front end (see framework.FrontEnd): on the JAX, TF or
// PyTorch backend, the programs compiled under its fit, evaluate and predict have remedies of
// Keras's own. The probe records those calls (runner's sitecustomize).
package keras

import (
	"slices"
	"strings"

	"github.com/recomp/recomp/frameworks/cause"
	"github.com/recomp/recomp/frameworks/framework"
)

// Name is the front end's name, as the probe's records give it.
const Name = "keras"

// FrontEnd is Keras.
var FrontEnd = &framework.FrontEnd{
	Name:     Name,
	Title:    "Keras",
	StepRole: StepRole,
	AnyStack: "tf.data",
	Probe: &framework.Probe{Package: "keras", Hook: probeHook, Function: "_on_keras", Records: "each Keras fit, evaluate and predict",
		Attach: framework.AttachCallSpan},
	Step:      Step,
	Functions: Functions,
	Log:       Log,
	Stepped:   Stepped,
	LoopStep:  LoopStep,
	LoopOf:    LoopOf,
	Causes: map[cause.Kind]string{
		"batch_size": "fit, evaluate and predict on arrays end each pass with a smaller batch: give them a batch_size that divides the number " +
			"of samples (validation_batch_size for the validation data), or pass a dataset that drops the remainder " +
			"(tf.data batch(..., drop_remainder=True))",
		cause.InputShape: "give the model inputs of a few fixed shapes: pad the sequences before fit (keras.utils.pad_sequences with maxlen), " +
			"or to a few lengths by bucket (tf.data bucket_by_sequence_length)",
	},
	Steps: map[string]map[cause.Kind]string{
		TrainStep: {
			cause.BatchSize: "the training loop can drop its last partial batch: a tf.data dataset batched with batch(..., drop_remainder=True), " +
				"or fit on arrays with a batch_size that divides the number of samples",
			cause.InputShape: inputShape,
		},
		TestStep: {
			cause.BatchSize: "do not drop evaluation data (the metric would skip samples): give evaluate (validation_batch_size in fit) a " +
				"batch_size that divides the number of samples, and the same one in fit's validation and in evaluate so the compiled " +
				"test step is reused; or pad the set to a multiple of the batch size and give the padded rows sample_weight 0",
			cause.InputShape: inputShape,
		},
		PredictStep: {
			cause.BatchSize: "give predict a batch_size that divides the number of samples, or pad the inputs to a multiple of the batch " +
				"size and drop the padded rows' predictions (do not drop samples); serving: pad each request to a few fixed batch sizes",
			cause.InputShape: inputShape,
		},
	},
	// Keras on JAX batches arrays itself, with no tf.data: its remedies on arrays, in Keras's own
	// utilities (a program that feeds tf.data has TF installed, and its Steps' remedies apply too).
	On: map[string]map[string]map[cause.Kind]string{
		"jax": {
			"": {
				"batch_size": "fit, evaluate and predict on arrays end each pass with a smaller batch: give them a batch_size that divides " +
					"the number of samples (validation_batch_size for the validation data)",
				"input_shape": inputShapeArrays,
			},
			TrainStep: {
				"batch_size": "the training loop can drop its last partial batch: fit on arrays with a batch_size that divides the number of " +
					"samples, or cut the arrays to a multiple of it (x[:len(x) // batch_size * batch_size]), or a keras.utils.PyDataset " +
					"whose batches are all full",
				"input_shape": inputShapeArrays,
			},
			TestStep:    {"input_shape": inputShapeArrays},
			PredictStep: {"input_shape": inputShapeArrays},
		},
	},
}

// inputShapeArrays is inputShape where Keras batches arrays itself (on JAX).
const inputShapeArrays = "pad to fixed lengths: keras.utils.pad_sequences(..., maxlen=...) to one length, or to a few lengths by bucket " +
	"(sort the sequences by length and pad each bucket to its boundary: one compilation per boundary)"

// Step is FrontEnd.Step: the functions Keras's JAX trainer (keras/src/backend/jax/trainer.py) jits
// are its steps. Keras 3.0 named them compiled_train_step (one_train_step, multi_train_steps inside).
func Step(file, function string) string {
	f := strings.ReplaceAll(file, "\\", "/")
	if !strings.HasSuffix(f, "/keras/src/backend/jax/trainer.py") && !strings.HasSuffix(f, "/keras/backend/jax/trainer.py") {
		return ""
	}
	switch strings.TrimPrefix(strings.TrimPrefix(function, "compiled_"), "one_") {
	case "train_step", "multi_train_steps":
		return TrainStep
	case "test_step", "multi_test_steps":
		return TestStep
	case "predict_step", "multi_predict_steps":
		return PredictStep
	}
	return ""
}

// Stepped is FrontEnd.Stepped: Keras 3 on TF compiles each of its train, test and predict steps as
// a function named one_step_on_data (multi_step_on_iterator around it), whose XLA module is
// __inference_one_step_on_data_N; with flax nnx on JAX it jits each as a lambda of its trainer.py
// (where JAX's explanation says it is defined). Its JAX steps' names (jit_train_step) are a
// program's own as often: JAX's explanation tells them (Step), not the name.
func Stepped(family, lambda string) (string, bool) {
	if strings.Contains(family, "inference_one_step_on_") || strings.Contains(family, "inference_multi_step_on_") {
		return "", true
	}
	return "", lambda != "" && strings.HasPrefix(lambda, "trainer.py:")
}

// Functions is FrontEnd.Functions: with flax nnx on, Keras's JAX trainer jits each step as a
// lambda (jit__lambda), which names no step; its dumped module's stack frames name the trainer's
// method that made it ("JAXTrainer.make_train_function.<locals>.<lambda>") and the step it calls
// ("JAXTrainer.train_step").
//
// The test step's frames name the loop too: fit's validation runs evaluate inside fit
// ("JAXTrainer.fit" and "JAXTrainer.evaluate"), evaluate alone has no fit frame.
func Functions(names []string) string {
	step, fit, evaluate := "", false, false
	for _, n := range names {
		for _, s := range []struct{ method, step string }{
			{"make_train_function.", TrainStep}, {"make_test_function.", TestStep}, {"make_predict_function.", PredictStep},
			{"train_step", TrainStep}, {"test_step", TestStep}, {"predict_step", PredictStep},
		} {
			if strings.HasPrefix(n, "JAXTrainer."+s.method) && step == "" {
				step = s.step
			}
		}
		fit = fit || n == "JAXTrainer.fit"
		evaluate = evaluate || n == "JAXTrainer.evaluate"
	}
	switch {
	case step == TestStep && fit && evaluate:
		return TestStep + " (validation in fit)"
	case step == TestStep && evaluate:
		return TestStep + " (evaluate)"
	}
	return step
}

// inputShape is Keras's remedy for a varying sequence length, in any loop. Under jit_compile each
// new shape is an XLA compilation of its own, whatever the traced signature says (None included).
const inputShape = "pad to fixed lengths: tf.data padded_batch(..., padded_shapes=...) with a fixed length, or " +
	"bucket_by_sequence_length with fixed bucket_boundaries and pad_to_bucket_boundary=True (one compilation per boundary); " +
	"keras.utils.pad_sequences(..., maxlen=...) for arrays"

// The steps Keras compiles, as a dumped graph shows them (frameworks.Role) and as a user reads
// them: fit runs the train step, and the test step for its validation data; evaluate runs the
// test step; predict the predict step.
const (
	TrainStep   = "train step"
	TestStep    = "test step"
	PredictStep = "predict step"
)

// StepRole names a Keras step for a user, the loop that ran it first: step is what its graph
// does ("" when no dump said), methods the Keras calls its compilations ran under ("fit",
// "evaluate", "predict", and "fit.evaluate" for fit's validation, which Keras runs as an evaluate
// inside fit; none when no probe saw them). "" when neither tells.
func StepRole(step string, methods []string) string {
	// a dump's role may name the loop of the test step ("test step (evaluate)", Functions); the
	// methods may hold such roles of other compilations of the program (verdict's stepRole)
	var loops []string
	for _, s := range append([]string{step}, methods...) {
		if base, loop, ok := strings.Cut(s, " ("); ok && base == TestStep {
			if strings.Contains(loop, "validation in fit") {
				loops = append(loops, Validation)
			}
			if strings.Contains(loop, "evaluate") && !strings.Contains(loop, "validation or evaluate") {
				loops = append(loops, "evaluate")
			}
			step = base
		}
	}
	methods = append(slices.DeleteFunc(slices.Clone(methods), func(m string) bool { return strings.HasPrefix(m, TestStep+" (") }), loops...)
	has := func(m string) bool { return slices.Contains(methods, m) }
	only := func(ms ...string) bool {
		return len(methods) > 0 && !slices.ContainsFunc(methods, func(x string) bool { return !slices.Contains(ms, x) })
	}
	// fit's validation: an evaluate inside fit, or (older probe records, no nesting) the test
	// step compiled under fit
	validation := has(Validation) || has("fit")
	switch step {
	case TrainStep, PredictStep:
		return step
	case TestStep:
		switch {
		case validation && has("evaluate"):
			return "test step (validation in fit, and evaluate)"
		case has("evaluate"):
			return "test step (evaluate)"
		case validation:
			return "test step (validation in fit)"
		}
		return "test step (validation or evaluate)"
	case "":
		switch {
		case only("predict"):
			return PredictStep
		case only("evaluate"):
			return "test step (evaluate)"
		case only(Validation):
			return "test step (validation in fit)"
		case only(Validation, "evaluate"):
			return "test step (validation in fit, and evaluate)"
		}
	}
	return ""
}

// Validation is the call the probe saw fit's validation as: evaluate, run inside fit
// (ledger.Call.Loop).
const Validation = "fit.evaluate"
