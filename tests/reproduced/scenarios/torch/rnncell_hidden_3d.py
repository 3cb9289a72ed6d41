# expect: pytorch/rnn-input-rank-mismatch
# The state of an nn.RNN, (layers, batch, hidden), handed to a cell.
import torch
from torch import nn

cell = nn.RNNCell(8, 16)
h = cell(torch.randn(4, 8), torch.zeros(1, 4, 16))
