# expect: tensorflow/rnn-block-op-dtype-not-allowed
# A GRUBlockCell step traced in a tf.function with float64 tensors: the op accepts float32 only.
import tensorflow as tf

B, I, H = 2, 4, 8


@tf.function
def step(x, h):
    dt = x.dtype
    return tf.raw_ops.GRUBlockCell(
        x=x, h_prev=h, w_ru=tf.zeros([I + H, 2 * H], dt), w_c=tf.zeros([I + H, H], dt),
        b_ru=tf.zeros([2 * H], dt), b_c=tf.zeros([H], dt),
    )


r, u, c, h = step(tf.zeros([B, I], tf.float64), tf.zeros([B, H], tf.float64))
