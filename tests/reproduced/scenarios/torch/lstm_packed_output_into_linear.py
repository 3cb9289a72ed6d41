# expect: pytorch/packed-sequence-used-as-tensor
# A tagger packs its padded batch for the LSTM, then hands the LSTM's packed output straight to nn.Linear.
import torch
import torch.nn as nn
from torch.nn.utils.rnn import pack_padded_sequence


class Tagger(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(8, 16, batch_first=True)
        self.fc = nn.Linear(16, 3)

    def forward(self, x, lengths):
        packed = pack_padded_sequence(x, lengths, batch_first=True)
        out, _ = self.lstm(packed)
        return self.fc(out)


model = Tagger()
scores = model(torch.randn(4, 5, 8), torch.tensor([5, 4, 2, 1]))
