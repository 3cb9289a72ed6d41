# expect: pytorch/rnn-input-rank-mismatch
import torch
from torch import nn

cell = nn.LSTMCell(8, 16)
h, c = cell(torch.randn(5, 4, 8))
