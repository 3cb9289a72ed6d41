# expect: pytorch/rnn-hx-rank-mismatch
import torch
from torch import nn

lstm = nn.LSTM(10, 20)
x = torch.randn(5, 10)
h0 = torch.zeros(1, 1, 20)
c0 = torch.zeros(1, 1, 20)
out, _ = lstm(x, (h0, c0))
