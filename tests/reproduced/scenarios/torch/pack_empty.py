# expect: pytorch/pack-padded-invalid-lengths
# Every sample of the batch was filtered out before packing.
import torch
from torch.nn.utils.rnn import pack_padded_sequence

padded = torch.randn(0, 12, 8)
lengths = torch.tensor([], dtype=torch.int64)
packed = pack_padded_sequence(padded, lengths, batch_first=True)
