# expect: pytorch/export-rnn-flat-weights-assigned
# torch.export of a bare nn.GRU (the module itself is the root): the attributes are named self._flat_weights[i].
import torch

gru = torch.nn.GRU(8, 16, num_layers=2)
program = torch.export.export(gru, (torch.randn(5, 3, 8),))
print(program.graph_signature.user_inputs)
