# expect: tensorflow/cudnnrnn-invalid-op-arguments
# A misspelt rnn_mode on the raw cuDNN op: the op definition's allowed values reject it (eagerly), on any device.
import tensorflow as tf

num_layers, num_units, input_size, batch, seq = 1, 8, 4, 2, 5
out = tf.raw_ops.CudnnRNN(
    input=tf.zeros([seq, batch, input_size]),
    input_h=tf.zeros([num_layers, batch, num_units]),
    input_c=tf.zeros([num_layers, batch, num_units]),
    params=tf.zeros([4 * num_units * (input_size + num_units + 2)]),
    rnn_mode="LSTM",
)
