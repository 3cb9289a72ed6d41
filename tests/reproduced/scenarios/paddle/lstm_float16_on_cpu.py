# expect: paddle/rnn-kernel-check
# A float16 input to paddle.nn.LSTM on the CPU, whose rnn kernel is float32/float64 only (paddlepaddle 3.3.1).
import paddle

lstm = paddle.nn.LSTM(16, 32)
x = paddle.randn((4, 10, 16)).astype("float16")
y, (h, c) = lstm(x)
