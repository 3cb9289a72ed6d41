# expect: tensorflow/cudnnrnn-no-gpu-device
# Sizing the cuDNN RNN's opaque parameter buffer on a machine without a GPU: CudnnRNNParamsSize has GPU kernels only.
import tensorflow as tf

size = tf.raw_ops.CudnnRNNParamsSize(num_layers=2, num_units=128, input_size=64, T=tf.float32, S=tf.int32,
                                     rnn_mode="gru", direction="bidirectional")
print(int(size))
