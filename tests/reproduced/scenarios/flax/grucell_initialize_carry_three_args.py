# expect: jax/flax-rnn-cell-api-changed
# Flax <= 0.7.0 habit on a Flax >= 0.7.1 cell: initialize_carry(rng, batch_size, hidden_size).
import jax
import flax.linen as nn

cell = nn.GRUCell(features=32)
carry = cell.initialize_carry(jax.random.PRNGKey(0), 16, 32)
