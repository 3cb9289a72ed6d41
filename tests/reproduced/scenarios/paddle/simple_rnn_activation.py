# expect: paddle/rnn-kernel-check
# SimpleRNN with an activation other than tanh/relu (paddlepaddle 3.3.1, CPU).
import paddle

rnn = paddle.nn.SimpleRNN(16, 32, activation='sigmoid')
