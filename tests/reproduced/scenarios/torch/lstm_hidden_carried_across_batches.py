# expect: pytorch/rnn-hidden-state-not-detached
# Language-model style training that carries the LSTM state into the next batch without detaching it.
import torch
from torch import nn


class LM(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(100, 16)
        self.lstm = nn.LSTM(16, 32, batch_first=True)
        self.out = nn.Linear(32, 100)

    def forward(self, x, hidden):
        y, hidden = self.lstm(self.embed(x), hidden)
        return self.out(y), hidden


model = LM()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
hidden = (torch.zeros(1, 4, 32), torch.zeros(1, 4, 32))
for step in range(3):
    x = torch.randint(0, 100, (4, 10))
    logits, hidden = model(x, hidden)   # hidden still holds the previous batch's graph
    loss = nn.functional.cross_entropy(logits.reshape(-1, 100), x.reshape(-1))
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step} loss {loss.item():.3f}")
