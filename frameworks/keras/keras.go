// Package keras declares Keras as a front end (see framework.FrontEnd): on the JAX, TF or
// PyTorch backend, the programs compiled under its fit, evaluate and predict have remedies of
// Keras's own. The probe records those calls (runner's sitecustomize).
package keras

import (
	"github.com/recomp/recomp/frameworks/cause"
	"github.com/recomp/recomp/frameworks/framework"
)

// Name is the front end's name, as the probe's records give it.
const Name = "keras"

// FrontEnd is Keras.
var FrontEnd = &framework.FrontEnd{
	Name: Name,
	Probe: &framework.Probe{Package: "keras", Hook: probeHook, Function: "_on_keras", Records: "each Keras fit, evaluate and predict",
		Attach: framework.AttachCallSpan},
	Causes: map[cause.Kind]string{
		cause.BatchSize: "fit, evaluate and predict on arrays end each pass with a smaller batch: give them a batch_size that divides the number " +
			"of samples (validation_batch_size for the validation data), or pass a dataset that drops the remainder " +
			"(tf.data batch(..., drop_remainder=True))",
		cause.InputShape: "give the model inputs of a few fixed shapes: pad the sequences before fit (keras.utils.pad_sequences with maxlen), " +
			"or to a few lengths by bucket (tf.data bucket_by_sequence_length)",
	},
}
