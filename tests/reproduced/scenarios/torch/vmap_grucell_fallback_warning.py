# expect: pytorch/vmap-rnn-batching-rule-fallback-warning
# vmap over a GRUCell (an ensemble of recurrent dynamics models): it runs, through the slow per-sample fallback.
import torch
from torch.func import vmap

cell = torch.nn.GRUCell(10, 20)
x = torch.randn(4, 3, 10)
h = torch.zeros(4, 3, 20)
out = vmap(cell)(x, h)
print(out.shape)
