# expect: keras/stateful-rnn-batch-changed-in-graph
# predict() on a stateful GRU with 20 samples and the layer's batch size 8: the third batch has 4 samples. The
# forecasting job logs the error and exits.
import logging
import os

os.environ["TF_CPP_MIN_LOG_LEVEL"] = "2"
import numpy as np
import keras
import tensorflow as tf

model = keras.Sequential([
    keras.Input(batch_shape=(8, 5, 3)),
    keras.layers.GRU(4, stateful=True),
    keras.layers.Dense(1),
])
series = np.random.rand(20, 5, 3).astype("float32")
try:
    print(model.predict(series, batch_size=8, verbose=0).shape)
except tf.errors.InvalidArgumentError as err:
    logging.error("forecast failed: %s", err)
    raise SystemExit(1)
