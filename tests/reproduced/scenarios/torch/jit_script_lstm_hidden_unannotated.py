# expect: pytorch/torchscript-rnn-module-misuse
# A decoder whose forward passes the LSTM state on; without a type annotation TorchScript takes `hidden` for a Tensor.
import torch
from torch import nn


class Decoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(16, 32, batch_first=True)
        self.out = nn.Linear(32, 10)

    def forward(self, x, hidden):
        y, hidden = self.lstm(x, hidden)
        return self.out(y), hidden


decoder = torch.jit.script(Decoder())
h0 = (torch.zeros(1, 4, 32), torch.zeros(1, 4, 32))
print(decoder(torch.randn(4, 7, 16), h0)[0].shape)
