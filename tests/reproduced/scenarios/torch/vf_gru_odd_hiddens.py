# expect: pytorch/rnn-native-params-hiddens-mismatch
# A custom bidirectional GRU calls the op with a state for one direction only.
import torch
from torch import nn

gru = nn.GRU(8, 16, bidirectional=True)
x = torch.randn(5, 2, 8)
h0 = torch.zeros(1, 2, 16)
out, h = torch.gru(x, h0, gru._flat_weights, True, 1, 0.0, False, True, False)
