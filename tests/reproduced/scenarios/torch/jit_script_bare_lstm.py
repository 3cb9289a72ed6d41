# expect: pytorch/torchscript-rnn-module-misuse
# Scripting an nn.LSTM on its own and calling the result, as in pytorch#32976.
import torch
from torch import nn

scripted_lstm = torch.jit.script(nn.LSTM(3, 3, num_layers=2))
output, (h_n, c_n) = scripted_lstm(torch.randn(3, 3, 3))
print(output.shape)
