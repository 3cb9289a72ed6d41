# expect: mxnet/rnn-operator-check
# An LSTM with a projection layer trains only through cuDNN: CPU training is refused (MXNet 1.9.1).
from mxnet import autograd, gluon, nd

lstm = gluon.rnn.LSTM(64, input_size=16, projection_size=32)
lstm.initialize()
x = nd.random.uniform(shape=(10, 4, 16))
with autograd.record():
    out = lstm(x)
out.backward()
out.wait_to_read()
