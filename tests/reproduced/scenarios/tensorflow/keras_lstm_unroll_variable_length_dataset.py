# expect: keras/rnn-unroll-undefined-timesteps
# Keras 3 on TensorFlow: an unrolled LSTM fed by a tf.data pipeline of variable-length sequences, so the traced
# predict step sees the time dimension as None.
import keras
import numpy as np
import tensorflow as tf


def sequences():
    for length in (5, 7):
        yield np.zeros((length, 4), "float32")


ds = tf.data.Dataset.from_generator(sequences, output_signature=tf.TensorSpec((None, 4), tf.float32)).batch(1)
model = keras.Sequential([keras.Input((None, 4)), keras.layers.LSTM(8, unroll=True)])
model.predict(ds, verbose=0)
