# expect: keras/use-cudnn-invalid-value
# Keras 3 on the JAX backend: use_cudnn given a string other than 'auto'.
import os

os.environ["KERAS_BACKEND"] = "jax"

import keras

layer = keras.layers.LSTM(16, use_cudnn="true")
