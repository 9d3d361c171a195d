"""Keras 3 with jit_compile (TF, or JAX with KERAS_BACKEND=jax): fit on full batches, then evaluate and predict whose last batch is
partial (100 = 64 + 36, 488 = 256 + 232). Run by recomp's live test of `recomp run`: the predict step,
traced twice by Keras, is one step compiled again; the test step is evaluate's."""
import numpy as np
import keras

keras.utils.set_random_seed(0)
model = keras.Sequential([keras.Input((6,)), keras.layers.Dense(12, activation="relu"), keras.layers.Dense(3)])
model.compile(optimizer="adam", loss="mse", jit_compile=True)
rng = np.random.default_rng(0)
x, y = rng.random((256, 6), np.float32), rng.random((256, 3), np.float32)
model.fit(x, y, batch_size=64, epochs=2, verbose=0)          # 256 = 4 x 64: no partial batch
xe, ye = rng.random((100, 6), np.float32), rng.random((100, 3), np.float32)
model.evaluate(xe, ye, batch_size=64, verbose=0)              # 100 = 64 + 36
p = rng.random((488, 6), np.float32)
model.predict(p, batch_size=256, verbose=0)                    # 488 = 256 + 232
