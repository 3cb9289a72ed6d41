# expect: tensorflow/tf1-rnn-api-moved-or-removed
# The usual TF 2 port of TF 1.x RNN code (tf.compat.v1) on TensorFlow 2.16+, whose tf.keras is Keras 3.
import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_v2_behavior()
inputs = tf.placeholder(tf.float32, [None, 10, 8])
cell = tf.nn.rnn_cell.LSTMCell(32)
outputs, state = tf.nn.dynamic_rnn(cell, inputs, dtype=tf.float32)
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    print(sess.run(outputs, {inputs: np.random.rand(4, 10, 8)}).shape)
