# expect: pytorch/onnx-export-packed-sequence-unpaired
# torch.onnx.export (the TorchScript exporter, dynamo=False) of an encoder that packs its padded batch, normalises
# the packed rows (a PackedSequence rebuilt around packed.data) and returns the GRU's last hidden state: the
# pack_padded_sequence has no pad_packed_sequence right after the RNN, so the exporter cannot fold it into the ONNX GRU.
import torch
from torch import nn
from torch.nn.utils.rnn import PackedSequence, pack_padded_sequence


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.norm = nn.LayerNorm(16)
        self.rnn = nn.GRU(16, 32)

    def forward(self, feats, lengths):
        packed = pack_padded_sequence(feats, lengths, batch_first=True, enforce_sorted=False)
        packed = PackedSequence(self.norm(packed.data), packed.batch_sizes, packed.sorted_indices, packed.unsorted_indices)
        _, h = self.rnn(packed)
        return h[-1]


model = Encoder().eval()
feats = torch.randn(3, 7, 16)
lengths = torch.tensor([7, 4, 5])
print(model(feats, lengths).shape)
torch.onnx.export(model, (feats, lengths), "encoder.onnx", input_names=["feats", "lengths"], dynamo=False)
