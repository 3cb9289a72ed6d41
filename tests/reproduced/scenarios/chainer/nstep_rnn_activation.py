# expect: chainer/nstep-invalid-activation
# F.n_step_rnn with an activation cuDNN's plain RNN cell does not have.
import chainer.functions as F
import numpy as np

n_layers, units, size = 1, 8, 4
hx = np.zeros((n_layers, 2, units), np.float32)
ws = [[np.zeros((units, size), np.float32), np.zeros((units, units), np.float32)]]
bs = [[np.zeros(units, np.float32), np.zeros(units, np.float32)]]
xs = [np.zeros((3, size), np.float32), np.zeros((2, size), np.float32)]
hy, ys = F.n_step_rnn(n_layers, 0.0, hx, ws, bs, xs, activation="sigmoid")
