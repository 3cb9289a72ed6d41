# expect: pytorch/onnx-export-packed-sequence-shape-warning
# TorchScript ONNX export of a GRU encoder that packs padded sequences (pack_padded_sequence / pad_packed_sequence):
# the exporter warns that prim::PackPadded / prim::PadPacked have no shape inference; the export succeeds and onnxruntime
# runs the model at other batch sizes and lengths (needs onnxruntime next to torch).
import numpy as np
import onnxruntime as ort
import torch
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence


class Encoder(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.gru = torch.nn.GRU(10, 32, batch_first=True)

    def forward(self, x, lengths):
        packed = pack_padded_sequence(x, lengths, batch_first=True, enforce_sorted=False)
        out, _ = self.gru(packed)
        out, _ = pad_packed_sequence(out, batch_first=True, total_length=x.shape[1])
        return out


x = torch.randn(1, 12, 10)
lengths = torch.tensor([9])
torch.onnx.export(Encoder().eval(), (x, lengths), "encoder.onnx", dynamo=False, input_names=["x", "lengths"],
                  output_names=["out"], dynamic_axes={"x": {0: "batch", 1: "time"}, "lengths": {0: "batch"}})
session = ort.InferenceSession("encoder.onnx", providers=["CPUExecutionProvider"])
out = session.run(None, {"x": np.random.randn(3, 12, 10).astype(np.float32), "lengths": np.array([12, 5, 9])})[0]
print("onnxruntime output", out.shape)
