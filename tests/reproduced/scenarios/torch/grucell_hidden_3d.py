# expect: pytorch/rnn-input-rank-mismatch
import torch
from torch import nn

cell = nn.GRUCell(8, 16)
h = cell(torch.randn(4, 8), torch.zeros(1, 4, 16))
