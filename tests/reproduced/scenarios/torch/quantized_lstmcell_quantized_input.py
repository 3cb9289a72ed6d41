# expect: pytorch/quantized-rnn-op-wrong-backend
# A dynamically quantized LSTMCell stepped with a quantized input tensor (the dynamic cell wants float activations).
import torch
from torch import nn

cell = torch.ao.quantization.quantize_dynamic(nn.Sequential(nn.LSTMCell(16, 32)), {nn.LSTMCell}, dtype=torch.qint8)[0]
h, c = torch.zeros(4, 32), torch.zeros(4, 32)
for t in range(3):
    x_t = torch.quantize_per_tensor(torch.randn(4, 16), scale=0.05, zero_point=64, dtype=torch.quint8)
    h, c = cell(x_t, (h, c))
