# expect: pytorch/packed-sequence-used-as-tensor
# An encoder returns the LSTM's packed output; the caller reads its batch size as if it were a padded tensor.
import torch
import torch.nn as nn
from torch.nn.utils.rnn import pack_padded_sequence

encoder = nn.GRU(8, 16, batch_first=True)
x = torch.randn(4, 5, 8)
lengths = torch.tensor([5, 4, 2, 1])
outputs, hidden = encoder(pack_padded_sequence(x, lengths, batch_first=True))
batch_size = outputs.size(0)
