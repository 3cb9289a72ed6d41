# expect: pytorch/rnn-op-no-fake-impl
# Shape inference of a dynamically quantized GRU with meta tensors (what torch.export / FakeTensor tracing does).
import torch
from torch import nn

model = torch.ao.quantization.quantize_dynamic(nn.Sequential(nn.GRU(16, 32)), {nn.GRU}, dtype=torch.qint8)
x = torch.empty(10, 4, 16, device="meta")
out, h = model[0](x)
