# expect: keras/stateful-rnn-batch-changed-in-graph
# A stateful LSTM built for batches of 8, evaluated on 20 samples: the last batch holds 4, and inside the compiled
# step the LSTM cell adds the 4-row input projection to the 8-row state projection kept from the previous batch.
# (fit() on the same data often fails first at the loss's gradient, "Incompatible shapes: [4,1] vs. [8,1]", a message
# that names no RNN and is left to the generic answer.) The evaluation job logs the error and exits, as a harness does.
import logging
import os

os.environ["TF_CPP_MIN_LOG_LEVEL"] = "2"
import numpy as np
import keras
import tensorflow as tf

model = keras.Sequential([
    keras.Input(batch_shape=(8, 5, 3)),
    keras.layers.LSTM(16, stateful=True),
    keras.layers.Dense(1),
])
model.compile(optimizer="adam", loss="mse")
x = np.random.rand(20, 5, 3).astype("float32")
y = np.random.rand(20, 1).astype("float32")
try:
    model.evaluate(x, y, batch_size=8, verbose=0)
except tf.errors.InvalidArgumentError as err:
    logging.error("evaluation failed: %s", err)
    raise SystemExit(1)
