"""A TF function compiled with XLA that recompiles after warm-up and keeps running (a batch of 24
from step 3 on, for a minute): run by recomp's live tests of `recomp run --fail-on-recompile`."""
import time

import numpy as np
import tensorflow as tf


@tf.function(jit_compile=True)
def train_step(x):
    return tf.reduce_sum(tf.tanh(tf.matmul(x, tf.ones((8, 4)))))


for step in range(1200):
    batch = 32 if step < 3 else 24
    train_step(tf.constant(np.ones((batch, 8), np.float32))).numpy()
    print(f"step {step} batch {batch}", flush=True)
    time.sleep(0.05)
