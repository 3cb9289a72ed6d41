# expect: keras/use-cudnn-not-supported
# Keras 3 on the JAX backend: a Bidirectional LSTM forced onto cuDNN (use_cudnn=True) where there is no GPU.
import os

os.environ["KERAS_BACKEND"] = "jax"

import keras
import numpy as np

model = keras.Sequential([keras.Input((10, 4)), keras.layers.Bidirectional(keras.layers.LSTM(8, use_cudnn=True))])
model.predict(np.zeros((2, 10, 4), "float32"), verbose=0)
