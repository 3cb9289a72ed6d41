# expect: pytorch/quantized-rnn-op-wrong-backend
# A dynamically quantized LSTM fed a tensor that a QuantStub already quantized: the dynamic LSTM takes float input.
import torch
from torch import nn


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(16, 32, batch_first=True)

    def forward(self, x, state):
        out, _ = self.lstm(x, state)
        return out


model = torch.ao.quantization.quantize_dynamic(Encoder().eval(), {nn.LSTM}, dtype=torch.qint8)
x = torch.quantize_per_tensor(torch.randn(4, 10, 16), scale=0.05, zero_point=64, dtype=torch.quint8)
state = (torch.zeros(1, 4, 32), torch.zeros(1, 4, 32))
print(model(x, state).shape)
