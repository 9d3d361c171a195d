"""A TF suite (XLA on the CPU): a jit-compiled tf.function traced and compiled again at each new
batch size inside one test, and a test that compiles it once. The probe records each trace but
no compilation, and TF's compile log lines are written by C++ code to the standard error, which
pytest takes: the run folder's log holds only tf.function's retracing warning while its dump
holds the modules. pytest --recomp cannot judge the session and says so: exit status 1
(python/suites_test.go); recomp run -- pytest -s finds the test's line."""
import numpy as np
import tensorflow as tf


@tf.function(jit_compile=True)
def predict(x):
    return tf.reduce_sum(tf.tanh(x @ tf.ones((16, 4))))


def test_growing_batches():
    for n in (2, 3, 4, 5):
        predict(tf.constant(np.ones((n, 16), np.float32)))


def test_compile_once():
    for _ in range(2):
        predict(tf.constant(np.ones((8, 16), np.float32)))
