# expect: pytorch/onnx-export-rnn-unsupported-config
# An LSTM with projections (proj_size) exported with the TorchScript exporter.
import torch

lstm = torch.nn.LSTM(80, 512, num_layers=1, proj_size=128).eval()
x = torch.randn(50, 1, 80)
torch.onnx.export(lstm, (x,), "lstmp.onnx", dynamo=False, opset_version=13)
print("exported lstmp.onnx")
