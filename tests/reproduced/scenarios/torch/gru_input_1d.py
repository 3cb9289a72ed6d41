# expect: pytorch/rnn-input-rank-mismatch
import torch
from torch import nn

gru = nn.GRU(10, 20)
out, h = gru(torch.randn(10))
