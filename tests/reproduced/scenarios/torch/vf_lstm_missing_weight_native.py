# expect: pytorch/rnn-native-params-hiddens-mismatch
# The same missing weight with oneDNN off: the native kernels' own check.
import torch
from torch import nn

torch.backends.mkldnn.enabled = False
lstm = nn.LSTM(8, 16)
weights = list(lstm._flat_weights)[:-1]
x = torch.randn(5, 2, 8)
h0 = torch.zeros(1, 2, 16)
c0 = torch.zeros(1, 2, 16)
out, h, c = torch.lstm(x, (h0, c0), weights, True, 1, 0.0, False, False, False)
