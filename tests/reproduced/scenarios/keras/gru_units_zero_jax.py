# expect: keras/rnn-invalid-units
# Keras 3 on the JAX backend: a GRU whose units were computed as 0.
import os

os.environ["KERAS_BACKEND"] = "jax"

import keras

hidden = 48
layer = keras.layers.GRU(hidden // 64)
