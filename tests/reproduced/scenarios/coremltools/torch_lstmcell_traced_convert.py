# expect: pytorch/coremltools-rnn-cell-op-not-implemented
# coremltools#1344: a streaming model that runs one nn.LSTMCell step, traced and converted to Core ML. TorchScript
# lowers the cell to aten::unsafe_chunk, for which the PyTorch frontend of coremltools has no converter. The
# converter's stack is 30 frames deep: the scenario prints its last frames, so the example keeps the message.
import traceback

import coremltools as ct
import torch
from torch import nn


class OneStep(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstmcell = nn.LSTMCell(input_size=3, hidden_size=3)

    def forward(self, sequence, hidden_state, cell_state):
        return self.lstmcell(sequence, (hidden_state, cell_state))


lstm_cell = OneStep().eval()
dummy_input = [torch.zeros((1, 3)), torch.zeros((1, 3)), torch.zeros((1, 3))]
traced = torch.jit.trace(lstm_cell, dummy_input)
try:
    ct.convert(
        traced,
        inputs=[ct.TensorType(name=name, shape=(1, 3)) for name in ("sequence", "hidden_state", "cell_state")],
        convert_to="mlprogram",
    )
except NotImplementedError:
    traceback.print_exc(limit=-4)
    raise SystemExit(1)
