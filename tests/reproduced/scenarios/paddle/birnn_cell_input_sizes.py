# expect: paddle/rnn-kernel-check
# BiRNN whose forward and backward cells take different input sizes (paddlepaddle 3.3.1, CPU).
import paddle

birnn = paddle.nn.BiRNN(paddle.nn.LSTMCell(16, 32), paddle.nn.LSTMCell(8, 32))
