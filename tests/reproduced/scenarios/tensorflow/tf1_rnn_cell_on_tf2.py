# expect: tensorflow/tf1-rnn-api-moved-or-removed
# TF 1.x seq2seq code (tf.nn.rnn_cell + tf.nn.dynamic_rnn) run on TensorFlow 2.x.
import numpy as np
import tensorflow as tf

inputs = tf.constant(np.random.rand(4, 10, 8).astype("float32"))
cell = tf.nn.rnn_cell.LSTMCell(32)
outputs, state = tf.nn.dynamic_rnn(cell, inputs, dtype=tf.float32)
print(outputs.shape)
