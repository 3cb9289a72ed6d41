# expect: pytorch/rnn-input-rank-mismatch
# A PackedSequence built by hand around 3-D data.
import torch
from torch import nn
from torch.nn.utils.rnn import PackedSequence

gru = nn.GRU(4, 8)
data = torch.randn(6, 1, 4)
packed = PackedSequence(data, torch.tensor([2, 2, 1, 1]))
out, _ = gru(packed)
