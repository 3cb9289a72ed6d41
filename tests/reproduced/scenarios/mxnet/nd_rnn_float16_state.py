# expect: mxnet/rnn-operator-check
# float32 data with a float16 initial state: the RNN operator needs one dtype (MXNet 1.9.1).
from mxnet import nd

seq, batch, inp, hid = 5, 2, 4, 8
params = nd.random.uniform(shape=(3 * hid * (inp + hid + 2),))
x = nd.random.uniform(shape=(seq, batch, inp))
h0 = nd.zeros((1, batch, hid), dtype='float16')
out = nd.RNN(x, params, h0, state_size=hid, num_layers=1, mode='gru')
out.wait_to_read()
