# expect: mxnet/rnn-operator-check
# mx.nd.RNN given a 2-D batch (no time axis) (MXNet 1.9.1).
from mxnet import nd

batch, inp, hid = 2, 4, 8
params = nd.random.uniform(shape=(3 * hid * (inp + hid + 2),))
x = nd.random.uniform(shape=(batch, inp))
h0 = nd.zeros((1, batch, hid))
out = nd.RNN(x, params, h0, state_size=hid, num_layers=1, mode='gru')
out.wait_to_read()
