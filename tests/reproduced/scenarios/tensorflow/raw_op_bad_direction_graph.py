# expect: tensorflow/cudnnrnn-invalid-op-arguments
# The same check while a tf.function builds its graph: op_def_library rejects direction="bidirection".
import tensorflow as tf


@tf.function(autograph=False)
def step(x, h, c, p, lengths):
    return tf.raw_ops.CudnnRNNV3(
        input=x, input_h=h, input_c=c, params=p, sequence_lengths=lengths,
        rnn_mode="lstm", direction="bidirection", time_major=True,
    )


units, size = 8, 4
out = step(tf.zeros([5, 2, size]), tf.zeros([2, 2, units]), tf.zeros([2, 2, units]),
           tf.zeros([8 * units * (size + units + 2)]), tf.constant([5, 5]))
