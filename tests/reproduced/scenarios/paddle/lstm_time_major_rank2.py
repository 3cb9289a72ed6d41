# expect: paddle/rnn-input-state-shape
# A time-major LSTM given a 2-D input (paddlepaddle 3.3.1, CPU).
import paddle

lstm = paddle.nn.LSTM(16, 32, time_major=True)
y, (h, c) = lstm(paddle.randn((4, 16)))
