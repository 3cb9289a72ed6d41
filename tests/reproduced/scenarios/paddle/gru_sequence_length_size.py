# expect: paddle/rnn-input-state-shape
# sequence_length with fewer entries than the batch (paddlepaddle 3.3.1, CPU).
import paddle

gru = paddle.nn.GRU(16, 32)
x = paddle.randn((4, 10, 16))
lengths = paddle.to_tensor([10, 9, 8], dtype="int64")
y, h = gru(x, sequence_length=lengths)
