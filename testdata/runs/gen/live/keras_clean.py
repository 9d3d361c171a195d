"""Keras 3 with jit_compile (TF or JAX) with every batch full (fit with validation, evaluate, predict): run
by recomp's live test of `recomp run`, whose guard must pass with its defaults."""
import numpy as np
import keras

keras.utils.set_random_seed(0)
model = keras.Sequential([keras.Input((6,)), keras.layers.Dense(12, activation="relu"), keras.layers.Dense(3)])
model.compile(optimizer="adam", loss="mse", jit_compile=True)
rng = np.random.default_rng(4)
x, y = rng.random((256, 6), np.float32), rng.random((256, 3), np.float32)
xv, yv = rng.random((128, 6), np.float32), rng.random((128, 3), np.float32)
model.fit(x, y, batch_size=64, epochs=2, validation_data=(xv, yv), verbose=0)   # every batch full
print(model.evaluate(xv, yv, batch_size=64, verbose=0))
print(model.predict(rng.random((512, 6), np.float32), batch_size=256, verbose=0).shape)
