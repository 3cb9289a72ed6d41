# expect: pytorch/rnn-native-params-hiddens-mismatch
# The op is told of more layers than the weight list holds.
import torch
from torch import nn

gru = nn.GRU(8, 16, num_layers=1)
x = torch.randn(5, 2, 8)
h0 = torch.zeros(2, 2, 16)
out, h = torch.gru(x, h0, gru._flat_weights, True, 2, 0.0, False, False, False)
