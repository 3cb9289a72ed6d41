# expect: mxnet/rnn-operator-check
# mx.nd.RNN in LSTM mode called without the cell state (MXNet 1.9.1).
from mxnet import nd

seq, batch, inp, hid = 5, 2, 4, 8
params = nd.random.uniform(shape=(4 * hid * (inp + hid + 2),))
x = nd.random.uniform(shape=(seq, batch, inp))
h0 = nd.zeros((1, batch, hid))
out = nd.RNN(x, params, h0, state_size=hid, num_layers=1, mode='lstm')
out.wait_to_read()
