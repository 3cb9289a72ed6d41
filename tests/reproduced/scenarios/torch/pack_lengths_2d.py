# expect: pytorch/pack-padded-lengths-on-cuda
# lengths kept as a column vector (batch, 1).
import torch
from torch.nn.utils.rnn import pack_padded_sequence

padded = torch.randn(3, 6, 4)
lengths = torch.tensor([[6], [4], [2]])
packed = pack_padded_sequence(padded, lengths, batch_first=True)
