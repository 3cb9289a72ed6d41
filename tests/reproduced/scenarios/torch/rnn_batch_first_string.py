# expect: pytorch/rnn-constructor-invalid-argument
# batch_first read from the command line as a string.
from torch import nn

args = {"batch_first": "True"}
lstm = nn.LSTM(10, 20, batch_first=args["batch_first"])
