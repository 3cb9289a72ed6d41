# expect: jax/scan-rnn-carry-mismatch
# A hand-written LSTM step for jax.lax.scan returns a cell state with an extra leading axis.
import jax
import jax.numpy as jnp

batch, hidden, features, steps = 4, 8, 3, 10
w = jnp.zeros((features + hidden, 4 * hidden))


def lstm_step(carry, x_t):
    h, c = carry
    z = jnp.concatenate([x_t, h], axis=-1) @ w
    i, f, g, o = jnp.split(z, 4, axis=-1)
    c = jax.nn.sigmoid(f) * c + jax.nn.sigmoid(i) * jnp.tanh(g)
    h = jax.nn.sigmoid(o) * jnp.tanh(c)
    return (h, c[None]), h


h0 = jnp.zeros((batch, hidden))
c0 = jnp.zeros((batch, hidden))
xs = jnp.ones((steps, batch, features))
(h, c), hs = jax.lax.scan(lstm_step, (h0, c0), xs)
