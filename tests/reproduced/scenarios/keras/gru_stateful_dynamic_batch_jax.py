# expect: keras/stateful-rnn-batch-size
# Keras 3 on the JAX backend: a stateful GRU built on an input without a batch size.
import os

os.environ["KERAS_BACKEND"] = "jax"

import keras

model = keras.Sequential([keras.Input((10, 4)), keras.layers.GRU(16, stateful=True)])
