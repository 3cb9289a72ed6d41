# expect: paddle/rnn-kernel-check
# proj_size larger than hidden_size (paddlepaddle 3.3.1, CPU).
import paddle

lstm = paddle.nn.LSTM(16, 32, proj_size=64)
