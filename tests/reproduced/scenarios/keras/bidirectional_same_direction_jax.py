# expect: keras/bidirectional-invalid-arguments
# Keras 3 on the JAX backend: a custom backward_layer that does not run backwards.
import os

os.environ["KERAS_BACKEND"] = "jax"

import keras

layer = keras.layers.Bidirectional(keras.layers.LSTM(8), backward_layer=keras.layers.LSTM(8))
