# expect: pytorch/export-rnn-flat-weights-assigned
# torch.export (non-strict, the default) of a tagger with an nn.LSTM inside: the RNN re-assigns its _flat_weights
# list in forward(), which export's attribute-assignment check reports (a warning since torch 2.10, a ValueError before).
import torch
import torch.nn as nn


class Tagger(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(100, 16)
        self.lstm = nn.LSTM(16, 32, batch_first=True)
        self.fc = nn.Linear(32, 5)

    def forward(self, tokens):
        out, _ = self.lstm(self.emb(tokens))
        return self.fc(out)


model = Tagger().eval()
tokens = torch.randint(0, 100, (2, 7))
program = torch.export.export(model, (tokens,))
print(program.module()(tokens).shape)
