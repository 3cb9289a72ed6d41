# expect: pytorch/rnn-output-tuple-used-as-tensor
# nn.Sequential(nn.LSTM, nn.Linear): the LSTM returns (output, (h_n, c_n)) and Sequential hands the tuple to Linear.
import torch
import torch.nn as nn

model = nn.Sequential(
    nn.LSTM(input_size=8, hidden_size=16, batch_first=True),
    nn.Linear(16, 1),
)
print(model)
pred = model(torch.randn(4, 10, 8))
