# expect: pytorch/rnn-native-params-hiddens-mismatch
# Every token of the batch was filtered out: a sequence of length 0 reaches the GRU.
import torch
from torch import nn

gru = nn.GRU(8, 16)
tokens = torch.randn(0, 3, 8)
out, h = gru(tokens)
