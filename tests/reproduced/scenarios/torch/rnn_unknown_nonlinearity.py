# expect: pytorch/rnn-constructor-invalid-argument
import torch
from torch import nn

rnn = nn.RNN(32, 64, nonlinearity="sigmoid")
