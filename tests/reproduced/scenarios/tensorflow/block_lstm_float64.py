# expect: tensorflow/rnn-block-op-dtype-not-allowed
# The fused LSTM op (what LSTMBlockFusedCell builds) run eagerly in float64: its op definition allows half/float only.
import tensorflow as tf

T, B, I, H = 5, 2, 4, 8
dt = tf.float64
out = tf.raw_ops.BlockLSTM(
    seq_len_max=tf.constant(T, tf.int64), x=tf.zeros([T, B, I], dt), cs_prev=tf.zeros([B, H], dt),
    h_prev=tf.zeros([B, H], dt), w=tf.zeros([I + H, 4 * H], dt), wci=tf.zeros([H], dt), wcf=tf.zeros([H], dt),
    wco=tf.zeros([H], dt), b=tf.zeros([4 * H], dt),
)
