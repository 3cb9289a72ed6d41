# expect: pytorch/pack-padded-invalid-lengths
# batch_first forgotten: the time axis is read as the batch.
import torch
from torch.nn.utils.rnn import pack_padded_sequence

padded = torch.randn(4, 10, 8)   # (batch, time, features)
lengths = torch.tensor([10, 7, 5, 2])
packed = pack_padded_sequence(padded, lengths)
