# expect: pytorch/pack-padded-traced-list-lengths
# Tracing an encoder whose forward packs with a Python list of lengths.
import torch
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.GRU(4, 8, batch_first=True)

    def forward(self, x):
        lengths = [x.size(1), x.size(1) - 2]
        packed = pack_padded_sequence(x, lengths, batch_first=True)
        out, _ = self.rnn(packed)
        return pad_packed_sequence(out, batch_first=True)[0]


traced = torch.jit.trace(Encoder(), torch.randn(2, 6, 4))
print("traced")
