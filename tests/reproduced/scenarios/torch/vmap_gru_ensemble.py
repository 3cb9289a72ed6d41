# expect: pytorch/vmap-rnn-no-batching-rule
# torch.func.vmap over an nn.GRU (model ensembling / per-sample work): aten::gru has no batching rule.
import torch
from torch.func import vmap

gru = torch.nn.GRU(input_size=10, hidden_size=2, num_layers=1)
x = torch.randn(3, 5, 10)    # 3 unbatched sequences, one per vmapped call
h0 = torch.zeros(3, 1, 2)
out = vmap(lambda xi, hi: gru(xi, hi)[0])(x, h0)
print(out.shape)
