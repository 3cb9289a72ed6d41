# expect: pytorch/rnn-constructor-invalid-argument
from torch import nn

d_model = 256
lstm = nn.LSTM(128, d_model * 0.5, num_layers=2)
