# expect: pytorch/onnx-export-rnn-batch-size-warning
# The same warning for a bidirectional GRU exported with a batch of 4 (the exporter says "LSTM" for every RNN).
import torch

gru = torch.nn.GRU(40, 64, num_layers=2, bidirectional=True).eval()
x = torch.randn(50, 4, 40)
torch.onnx.export(gru, (x,), "gru.onnx", dynamo=False, opset_version=13)
print("exported gru.onnx")
