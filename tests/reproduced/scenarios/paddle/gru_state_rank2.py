# expect: paddle/rnn-input-state-shape
# A 2-D initial state (batch, hidden) without the layer axis (paddlepaddle 3.3.1, CPU).
import paddle

gru = paddle.nn.GRU(16, 32)
x = paddle.randn((4, 10, 16))
h0 = paddle.zeros((4, 32))
y, h = gru(x, h0)
