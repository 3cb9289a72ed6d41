# expect: paddle/rnn-kernel-check
# SimpleRNNCell with an activation other than tanh/relu (paddlepaddle 3.3.1, CPU).
import paddle

cell = paddle.nn.SimpleRNNCell(16, 32, activation='sigmoid')
