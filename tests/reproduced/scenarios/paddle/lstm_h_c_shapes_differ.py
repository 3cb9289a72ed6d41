# expect: paddle/rnn-input-state-shape
# An LSTM whose h0 and c0 have different shapes (paddlepaddle 3.3.1, CPU).
import paddle

lstm = paddle.nn.LSTM(16, 32, num_layers=2)
x = paddle.randn((4, 10, 16))
h0 = paddle.zeros((2, 4, 32))
c0 = paddle.zeros((1, 4, 32))
y, (h, c) = lstm(x, (h0, c0))
