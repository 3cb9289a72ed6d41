# expect: pytorch/cudnn-rnn-private-op-misuse
# Flattening RNN weights with the private cuDNN helper on CPU tensors (code copied from a CUDA-only repo).
import torch
from torch import nn

gru = nn.GRU(input_size=4, hidden_size=8, num_layers=2)
weights = list(gru._flat_weights)
flat = torch._cudnn_rnn_flatten_weight(weights, 4, 4, 3, 8, 0, 2, False, False)
