# expect: keras/bidirectional-invalid-arguments
# Keras 3 on the JAX backend: Bidirectional given the LSTM class instead of an LSTM layer.
import os

os.environ["KERAS_BACKEND"] = "jax"

import keras

layer = keras.layers.Bidirectional(keras.layers.LSTM)
