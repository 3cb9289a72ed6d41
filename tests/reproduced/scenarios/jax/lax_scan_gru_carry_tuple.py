# expect: jax/scan-rnn-carry-mismatch
# A GRU step for jax.lax.scan returns (h, h) as the carry where the initial carry is the bare hidden state.
import jax
import jax.numpy as jnp

batch, hidden, features, steps = 4, 8, 3, 10
wx = jnp.zeros((features, 3 * hidden))
wh = jnp.zeros((hidden, 3 * hidden))


def gru_step(h, x_t):
    xr, xz, xn = jnp.split(x_t @ wx, 3, axis=-1)
    hr, hz, hn = jnp.split(h @ wh, 3, axis=-1)
    r = jax.nn.sigmoid(xr + hr)
    z = jax.nn.sigmoid(xz + hz)
    n = jnp.tanh(xn + r * hn)
    h = (1 - z) * n + z * h
    return (h, h), h


h_last, hs = jax.lax.scan(gru_step, jnp.zeros((batch, hidden)), jnp.ones((steps, batch, features)))
