"""A TF/Keras-style training loop of N steps of one shape (argv[1]), the step an XLA-compiled
tf.function: recomp-bench -overhead runs it plain and under `recomp run`."""
import sys

import numpy as np
import tensorflow as tf

steps = int(sys.argv[1])
rng = np.random.default_rng(0)
w1 = tf.Variable(rng.normal(size=(64, 128)).astype(np.float32))
w2 = tf.Variable(rng.normal(size=(128, 8)).astype(np.float32))
x = tf.constant(rng.normal(size=(32, 64)).astype(np.float32))
y = tf.constant(rng.normal(size=(32, 8)).astype(np.float32))


@tf.function(jit_compile=True)
def train_step(x, y):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean((tf.matmul(tf.tanh(tf.matmul(x, w1)), w2) - y) ** 2)
    g1, g2 = tape.gradient(loss, [w1, w2])
    w1.assign_sub(0.01 * g1)
    w2.assign_sub(0.01 * g2)
    return loss


for step in range(steps):
    l = train_step(x, y)
    if step % 500 == 0:
        print(f"step {step} loss {float(l):.4f}", flush=True)
print("done", flush=True)
