# expect: pytorch/pack-padded-invalid-lengths
import torch
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

lstm = nn.LSTM(4, 8, batch_first=True)
padded = torch.randn(3, 12, 4)
packed = pack_padded_sequence(padded, torch.tensor([12, 9, 4]), batch_first=True)
out, _ = lstm(packed)
out, lengths = pad_packed_sequence(out, batch_first=True, total_length=10)
