# expect: pytorch/rnn-input-rank-mismatch
import torch
from torch import nn

cell = nn.LSTMCell(8, 16)
h, c = cell(torch.randn(4, 8), (torch.zeros(1, 4, 16), torch.zeros(1, 4, 16)))
