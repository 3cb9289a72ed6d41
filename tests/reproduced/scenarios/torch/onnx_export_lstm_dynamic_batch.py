# expect: pytorch/onnx-export-rnn-batch-size-warning
# TorchScript ONNX export of an LSTM traced with batch 8 and a dynamic batch axis, no h0/c0 inputs.
import torch


class Tagger(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = torch.nn.LSTM(16, 32, batch_first=True)
        self.fc = torch.nn.Linear(32, 4)

    def forward(self, x):
        out, _ = self.lstm(x)
        return self.fc(out[:, -1])


model = Tagger().eval()
x = torch.randn(8, 20, 16)
torch.onnx.export(model, (x,), "tagger.onnx", dynamo=False, input_names=["x"], output_names=["y"],
                  dynamic_axes={"x": {0: "batch", 1: "seq"}, "y": {0: "batch"}})
print("exported tagger.onnx")
