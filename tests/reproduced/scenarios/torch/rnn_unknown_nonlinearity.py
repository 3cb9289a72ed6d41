# expect: pytorch/rnn-constructor-invalid-argument
from torch import nn

rnn = nn.RNN(32, 64, nonlinearity="sigmoid")
