# expect: paddle/rnn-input-state-shape
# An initial state built for another batch size (the last, shorter batch) (paddlepaddle 3.3.1, CPU).
import paddle

gru = paddle.nn.GRU(16, 32)
x = paddle.randn((4, 10, 16))
h0 = paddle.zeros((1, 3, 32))
y, h = gru(x, h0)
