# expect: pytorch/rnn-constructor-invalid-argument
import torch
from torch import nn

lstm = nn.LSTM(32, 0)
