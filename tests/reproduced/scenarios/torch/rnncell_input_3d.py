# expect: pytorch/rnn-input-rank-mismatch
import torch
from torch import nn

cell = nn.RNNCell(8, 16)
h = cell(torch.randn(5, 4, 8))
