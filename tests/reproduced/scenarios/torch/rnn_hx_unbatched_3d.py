# expect: pytorch/rnn-hx-rank-mismatch
# A single step of a batch (2-D input) is read as one unbatched sequence.
import torch
from torch import nn

rnn = nn.RNN(10, 20)
step = torch.randn(3, 10)
h = torch.zeros(1, 3, 20)
out, h = rnn(step, h)
