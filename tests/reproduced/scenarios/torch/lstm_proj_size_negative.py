# expect: pytorch/rnn-constructor-invalid-argument
from torch import nn

lstm = nn.LSTM(32, 64, proj_size=-1)
