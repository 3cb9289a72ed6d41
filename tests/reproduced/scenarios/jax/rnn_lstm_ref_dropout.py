# expect: jax/lstm-argument-check
# The scan reference of the cuDNN LSTM (used to check it on CPU) cannot reproduce cuDNN's dropout mask.
import jax.numpy as jnp
from jax.experimental import rnn

batch, seq, input_size, hidden, layers = 2, 5, 4, 8, 1
weights = jnp.zeros((rnn.get_num_params_in_lstm(input_size, hidden, layers, False),))
W_ih, W_hh, b_ih, b_hh = rnn.unpack_lstm_weights(weights, input_size, hidden, layers, False)
x = jnp.zeros((batch, seq, input_size))
h0 = jnp.zeros((layers, batch, hidden))
c0 = jnp.zeros((layers, batch, hidden))
seq_lengths = jnp.array([seq, seq], dtype=jnp.int32)
y, h, c = rnn.lstm_ref(x, h0, c0, W_ih, W_hh, b_ih, b_hh, seq_lengths, input_size, hidden, layers,
                       dropout=0.2, bidirectional=False)
