# expect: pytorch/rnn-constructor-invalid-argument
# A custom subclass passes its own mode name to RNNBase.
from torch import nn


class BiLSTM(nn.RNNBase):
    def __init__(self, *args, **kwargs):
        super().__init__("BILSTM", *args, **kwargs)


m = BiLSTM(32, 64)
