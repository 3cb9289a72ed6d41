# expect: pytorch/rnn-constructor-invalid-argument
from torch import nn

lstm = nn.LSTM(32, 0)
