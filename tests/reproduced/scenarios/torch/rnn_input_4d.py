# expect: pytorch/rnn-input-rank-mismatch
# CNN feature maps passed to an RNN without flattening.
import torch
from torch import nn

rnn = nn.RNN(32, 64, batch_first=True)
feats = torch.randn(2, 8, 4, 32)
out, h = rnn(feats)
