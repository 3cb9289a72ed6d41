# expect: jax/flax-rnn-cell-api-changed
# Flax <= 0.7.0 code builds the cell without features (Flax >= 0.7.1 requires it).
import jax
import jax.numpy as jnp
import flax.linen as nn


class Encoder(nn.Module):
    @nn.compact
    def __call__(self, x):
        cell = nn.OptimizedLSTMCell()
        return nn.RNN(cell)(x)


Encoder().init(jax.random.PRNGKey(0), jnp.ones((2, 5, 3)))
