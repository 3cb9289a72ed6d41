# expect: paddle/rnn-kernel-check
# The cudnn_lstm op (fluid.layers.lstm's kernel) on a CPU place (paddlepaddle 3.3.1, CPU).
import paddle
from paddle import _C_ops

x = paddle.randn((10, 4, 16))
init_h = paddle.zeros((1, 4, 32))
init_c = paddle.zeros((1, 4, 32))
w = paddle.randn((4 * 32 * (16 + 32 + 2),))
out = _C_ops.cudnn_lstm(x, init_h, init_c, w, None, None, 0.0, False, 32, 1, True, 0)
