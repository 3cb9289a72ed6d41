# expect: pytorch/rnn-native-params-hiddens-mismatch
# A weight-drop wrapper removed one weight from the flat weight list (oneDNN path on the CPU).
import torch
from torch import nn

lstm = nn.LSTM(8, 16)
weights = list(lstm._flat_weights)[:-1]
x = torch.randn(5, 2, 8)
h0 = torch.zeros(1, 2, 16)
c0 = torch.zeros(1, 2, 16)
out, h, c = torch.lstm(x, (h0, c0), weights, True, 1, 0.0, False, False, False)
