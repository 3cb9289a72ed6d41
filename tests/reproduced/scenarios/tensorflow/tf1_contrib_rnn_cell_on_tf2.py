# expect: tensorflow/tf1-rnn-api-moved-or-removed
import tensorflow as tf

cell = tf.contrib.rnn.LSTMCell(num_units=64)
