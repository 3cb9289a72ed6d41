# expect: pytorch/rnn-module-pickled-by-other-release
# A whole model (torch.save(model), not its state_dict) saved by torch 1.3 and loaded by a newer torch. Torch 1.3's
# nn.LSTM pickled no _flat_weights / _flat_weights_names (1.4 added them) nor proj_size (1.8); the pickle is made
# here by leaving them out of the saved state, which is what a torch 1.3 pickle holds.
import torch
from torch import nn


class Tagger(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(100, 16)
        self.lstm = nn.LSTM(16, 32, batch_first=True, bidirectional=True)
        self.out = nn.Linear(64, 5)

    def forward(self, x):
        y, _ = self.lstm(self.embed(x))
        return self.out(y)


def torch13_getstate(module):
    state = module.__dict__.copy()
    for name in ("_flat_weights_names", "_flat_weights", "_flat_weight_refs", "proj_size"):
        state.pop(name, None)
    return state


current_getstate = nn.RNNBase.__getstate__
nn.RNNBase.__getstate__ = torch13_getstate
torch.save(Tagger(), "tagger.pt")
nn.RNNBase.__getstate__ = current_getstate

model = torch.load("tagger.pt", map_location="cpu", weights_only=False)
model.eval()
print(model(torch.randint(0, 100, (2, 7))).shape)
