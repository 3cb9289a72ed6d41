# expect: paddle/rnn-kernel-check
# direction='backward' is not a paddle.nn.LSTM direction (paddlepaddle 3.3.1, CPU).
import paddle

lstm = paddle.nn.LSTM(16, 32, direction='backward')
