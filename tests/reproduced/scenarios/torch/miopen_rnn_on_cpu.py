# expect: pytorch/cudnn-rnn-private-op-misuse
# Calling the private MIOpen (ROCm) RNN op directly with CPU tensors: no CPU kernel is registered for it.
import torch
from torch import nn

lstm = nn.LSTM(input_size=4, hidden_size=8)
x = torch.randn(5, 2, 4)
h0 = torch.zeros(1, 2, 8)
c0 = torch.zeros(1, 2, 8)
weights = list(lstm._flat_weights)
out = torch.ops.aten.miopen_rnn(x, weights, 4, h0, c0, 2, 8, 1, False, 0.0, True, False, [], None)
