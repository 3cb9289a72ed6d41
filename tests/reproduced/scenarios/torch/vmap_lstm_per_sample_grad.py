# expect: pytorch/vmap-rnn-batching-rule-fallback-warning
# Per-sample gradients of an LSTM with torch.func (vmap over grad), as in the per-sample-gradients tutorial.
import torch
from torch.func import functional_call, grad, vmap

model = torch.nn.LSTM(input_size=8, hidden_size=16, batch_first=True)
params = {k: v.detach() for k, v in model.named_parameters()}


def loss_fn(p, x, y):
    out, _ = functional_call(model, p, (x.unsqueeze(0),))
    return ((out[:, -1] - y) ** 2).mean()


x = torch.randn(4, 12, 8)
y = torch.randn(4, 16)
per_sample = vmap(grad(loss_fn), in_dims=(None, 0, 0))(params, x, y)
print({k: v.shape for k, v in per_sample.items()})
