# expect: jax/flax-rnn-cell-api-changed
# Flax <= 0.7.0 code: initialize_carry called on the class as (rng, batch_dims, size).
import jax
import flax.linen as nn

carry = nn.LSTMCell.initialize_carry(jax.random.PRNGKey(0), (16,), 32)
