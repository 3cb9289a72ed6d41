# expect: pytorch/onnx-export-rnn-unsupported-config
# Exporting a 2-layer LSTM with dropout while the model is still in training mode (no model.eval()).
import torch


class Encoder(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = torch.nn.LSTM(32, 64, num_layers=2, dropout=0.3)

    def forward(self, x):
        out, _ = self.lstm(x)
        return out


model = Encoder()  # model.eval() forgotten
x = torch.randn(10, 2, 32)
torch.onnx.export(model, (x,), "encoder.onnx", dynamo=False, training=torch.onnx.TrainingMode.TRAINING)
print("exported encoder.onnx")
