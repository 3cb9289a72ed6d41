# expect: pytorch/rnn-constructor-invalid-argument
# input_size computed with true division.
from torch import nn

features = 300
lstm = nn.LSTM(features / 2, 128)
