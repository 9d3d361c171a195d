import numpy as np
import keras

keras.utils.set_random_seed(0)
model = keras.Sequential([keras.Input((6,)), keras.layers.Dense(12, activation="relu"), keras.layers.Dense(3)])
model.compile(optimizer="adam", loss="mse", jit_compile=True)
rng = np.random.default_rng(4)
x, y = rng.random((256, 6), np.float32), rng.random((256, 3), np.float32)
xv, yv = rng.random((128, 6), np.float32), rng.random((128, 3), np.float32)
model.fit(x, y, batch_size=64, epochs=1, validation_data=(xv, yv), verbose=0)
model.evaluate(xv, yv, batch_size=32, verbose=0)
