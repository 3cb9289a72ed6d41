# expect: pytorch/lstm-hidden-tuple-invalid
import torch
from torch import nn

cell = nn.LSTMCell(8, 16)
x = torch.randn(4, 8)
h = torch.zeros(4, 16)
h, c = torch.lstm_cell(x, (h,), cell.weight_ih, cell.weight_hh, cell.bias_ih, cell.bias_hh)
