# expect: pytorch/rnn-hx-rank-mismatch
import torch
from torch import nn

gru = nn.GRU(10, 20)
x = torch.randn(5, 3, 10)
h0 = torch.zeros(3, 20)
out, h = gru(x, h0)
