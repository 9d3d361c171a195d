"""A TF function compiled with XLA whose last batch is partial: run by recomp's live test of
`recomp run`, which switches the evidence on."""
import numpy as np
import tensorflow as tf


@tf.function(jit_compile=True)
def train_step(x):
    return tf.reduce_sum(tf.tanh(tf.matmul(x, tf.ones((8, 4)))))


for step, batch in enumerate((32, 32, 32, 24)):
    train_step(tf.constant(np.ones((batch, 8), np.float32)))
    print(f"step {step} batch {batch}", flush=True)
