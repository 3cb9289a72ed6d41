# expect: pytorch/rnn-native-params-hiddens-mismatch
# A hand-written decoder calls the LSTM cell op with a GRUCell's weights (3 gates instead of 4).
import torch
from torch import nn

gru_cell = nn.GRUCell(8, 16)
x = torch.randn(4, 8)
h = torch.zeros(4, 16)
c = torch.zeros(4, 16)
h, c = torch.lstm_cell(x, (h, c), gru_cell.weight_ih, gru_cell.weight_hh, gru_cell.bias_ih, gru_cell.bias_hh)
