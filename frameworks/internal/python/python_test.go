package python

import "testing"

func TestIsUserFrame(t *testing.T) {
	for file, user := range map[string]bool{
		"/home/u/proj/train.py": true,
		"/usr/lib/python3.11/site-packages/torch/nn/modules/module.py":                  false,
		"site-packages/transformers/models/mpnet/modeling_mpnet.py":                     false,
		"/workspaces/dk3/pytorch/xla/torch_xla/core/xla_model.py":                       false,
		"/workspaces/dk4/pytorch/xla/torch_xla/torch_xla.py":                            false,
		"/src/pytorch/xla/test/test_train_mp_imagenet.py":                               true,
		"/workspaces/dk2/pytorch/torch/_dynamo/backends/torchxla.py":                    false,
		"/home/u/jax/jax/_src/api.py":                                                   false,
		"/home/u/transformers/examples/pytorch/run_glue.py":                             true,
		"/home/u/transformers/src/transformers/trainer.py":                              false,
		"/home/u/keras/mnist.py":                                                        true,
		"/home/u/mytorch/train.py":                                                      true,
		"<eval_with_key>.7":                                                             false,
		"torch_xla/core/xla_model.py":                                                   false,
		"/opt/neuron/lib/torch_neuronx/xla_impl/trace.py":                               false,
		"/home/u/proj/recomp-runs/20261127-051807-train/.recomp-probe/sitecustomize.py": false,
	} {
		if got := IsUserFrame(file); got != user {
			t.Errorf("IsUserFrame(%q) = %v, want %v", file, got, user)
		}
	}
}
