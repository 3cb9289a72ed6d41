# expect: mxnet/rnn-operator-check
# A layout other than TNC/NTC for a Gluon LSTM (MXNet 1.9.1).
from mxnet import gluon

lstm = gluon.rnn.LSTM(32, num_layers=2, layout='BTC')
