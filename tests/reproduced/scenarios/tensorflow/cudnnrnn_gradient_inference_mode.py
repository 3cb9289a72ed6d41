# expect: tensorflow/cudnnrnn-gradient-needs-is-training
# Saliency on a trained cuDNN LSTM: the forward is built for inference (is_training=False, as
# tf.contrib.cudnn_rnn's CudnnLSTM does with training=False), then the gradient of the output
# with respect to the input is asked for.
import tensorflow as tf

T, B, I, H = 5, 2, 4, 8
params = tf.Variable(tf.zeros([4 * H * (I + H + 2)]))


@tf.function
def saliency(x):
    with tf.GradientTape() as tape:
        tape.watch(x)
        out, h, c, _ = tf.raw_ops.CudnnRNN(
            input=x, input_h=tf.zeros([1, B, H]), input_c=tf.zeros([1, B, H]), params=params,
            rnn_mode="lstm", is_training=False,
        )
        score = tf.reduce_sum(out[-1])
    return tape.gradient(score, x)


print(saliency(tf.random.normal([T, B, I])))
