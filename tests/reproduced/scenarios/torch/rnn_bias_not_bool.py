# expect: pytorch/rnn-constructor-invalid-argument
# A config file gave bias as 0/1 instead of a bool.
from torch import nn

cfg = {"hidden": 64, "layers": 2, "bias": 1}
gru = nn.GRU(32, cfg["hidden"], num_layers=cfg["layers"], bias=cfg["bias"])
