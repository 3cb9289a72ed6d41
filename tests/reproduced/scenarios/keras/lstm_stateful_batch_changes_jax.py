# expect: keras/stateful-rnn-batch-size
# Keras 3 on the JAX backend: a stateful LSTM built for batches of 4 is called on a batch of 2 (the short last batch).
import os

os.environ["KERAS_BACKEND"] = "jax"

import keras
import numpy as np

model = keras.Sequential([keras.Input(batch_shape=(4, 5, 3)), keras.layers.LSTM(8, stateful=True)])
model.predict(np.zeros((4, 5, 3), "float32"), batch_size=4, verbose=0)
model(np.zeros((2, 5, 3), "float32"))
