# expect: pytorch/rnn-constructor-invalid-argument
# The feature count came out as 0 (an empty column selection).
from torch import nn

columns = []
gru = nn.GRU(len(columns), 64)
