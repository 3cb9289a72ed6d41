# expect: jax/lstm-argument-check
# The cuDNN LSTM is float32 only: bfloat16 inputs are refused before anything reaches the GPU.
import jax.numpy as jnp
from jax.experimental import rnn

batch, seq, input_size, hidden, layers = 2, 5, 4, 8, 1
weights = jnp.zeros((rnn.get_num_params_in_lstm(input_size, hidden, layers, False),), dtype=jnp.bfloat16)
x = jnp.zeros((batch, seq, input_size), dtype=jnp.bfloat16)
h0 = jnp.zeros((layers, batch, hidden), dtype=jnp.bfloat16)
c0 = jnp.zeros((layers, batch, hidden), dtype=jnp.bfloat16)
seq_lengths = jnp.array([seq, seq], dtype=jnp.int32)
y, h, c = rnn.lstm(x, h0, c0, weights, seq_lengths, input_size, hidden, layers, 0.0, False,
                   precision="bfloat16")
