# expect: pytorch/rnn-constructor-invalid-argument
# proj_size exists only for LSTM.
from torch import nn

gru = nn.GRU(32, 64, proj_size=16)
