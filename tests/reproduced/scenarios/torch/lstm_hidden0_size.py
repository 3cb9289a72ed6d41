# expect: pytorch/rnn-hidden-size-mismatch
# A bidirectional LSTM given states built for one direction.
import torch
from torch import nn

lstm = nn.LSTM(16, 32, num_layers=2, bidirectional=True)
x = torch.randn(7, 4, 16)
h0 = torch.zeros(2, 4, 32)
c0 = torch.zeros(2, 4, 32)
out, _ = lstm(x, (h0, c0))
