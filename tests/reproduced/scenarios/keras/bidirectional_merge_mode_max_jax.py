# expect: keras/bidirectional-invalid-arguments
# Keras 3 on the JAX backend: Bidirectional with a merge_mode it does not know.
import os

os.environ["KERAS_BACKEND"] = "jax"

import keras

layer = keras.layers.Bidirectional(keras.layers.LSTM(8, return_sequences=True), merge_mode="max")
