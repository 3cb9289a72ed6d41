# expect: pytorch/rnn-op-invalid-argument-types
# A recipe reads --bidirectional with argparse type=int and passes 1 to nn.LSTM: the fused op wants a bool.
import argparse

import torch
import torch.nn as nn

parser = argparse.ArgumentParser()
parser.add_argument("--hidden_size", default=16, type=int)
parser.add_argument("--num_layers", default=2, type=int)
parser.add_argument("--bidirectional", default=1, type=int)
args = parser.parse_args([])

rnn = nn.LSTM(8, args.hidden_size, args.num_layers, batch_first=True, bidirectional=args.bidirectional)
out, _ = rnn(torch.randn(4, 10, 8))
