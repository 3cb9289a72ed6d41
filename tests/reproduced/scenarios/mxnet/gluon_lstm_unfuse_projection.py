# expect: mxnet/rnn-operator-check
# Unfusing a projected LSTM into per-step cells (MXNet 1.9.1).
from mxnet import gluon

lstm = gluon.rnn.LSTM(64, input_size=16, projection_size=32)
cells = lstm._unfuse()
