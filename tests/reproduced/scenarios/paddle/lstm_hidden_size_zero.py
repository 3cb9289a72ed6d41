# expect: paddle/rnn-kernel-check
# hidden_size=0 (paddlepaddle 3.3.1, CPU).
import paddle

lstm = paddle.nn.LSTM(16, 0)
