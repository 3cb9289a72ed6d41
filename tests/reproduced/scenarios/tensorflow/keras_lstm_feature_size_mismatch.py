# expect: tensorflow/rnn-cell-matmul-dimension-mismatch
# The model was built for 1 feature per time step; the training windows carry 2.
import numpy as np
import keras

model = keras.Sequential([keras.Input((30, 1)), keras.layers.LSTM(8), keras.layers.Dense(1)])
model.compile(optimizer="adam", loss="mse")
x = np.zeros((16, 30, 2), dtype="float32")
y = np.zeros((16, 1), dtype="float32")
model.fit(x, y, epochs=1, verbose=0)
