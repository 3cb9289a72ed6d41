# expect: pytorch/rnn-output-modified-inplace
# The LSTM's output is edited in place (out[:, -1] += ...) before the loss: the RNN kernel saved that output for its
# backward, so autograd finds it at a newer version. On the CPU of torch 2.x the node is oneDNN's MkldnnRnnLayer; on a
# GPU the same code names CudnnRnnBackward0.
import torch
from torch import nn

torch.manual_seed(0)
rnn = nn.LSTM(8, 16, batch_first=True)
head = nn.Linear(16, 1)
x = torch.randn(4, 10, 8)
out, (h, c) = rnn(x)
out[:, -1] += 1.0
loss = head(out[:, -1]).pow(2).mean()
loss.backward()
