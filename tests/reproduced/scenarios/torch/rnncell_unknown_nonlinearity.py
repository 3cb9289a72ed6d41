# expect: pytorch/rnn-constructor-invalid-argument
# The nonlinearity attribute was changed after construction.
import torch
from torch import nn

cell = nn.RNNCell(8, 16)
cell.nonlinearity = "gelu"
h = cell(torch.randn(4, 8))
