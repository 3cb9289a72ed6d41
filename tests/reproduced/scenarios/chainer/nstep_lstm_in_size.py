# expect: chainer/nstep-input-size-mismatch
# An NStepLSTM built for 50 input features, fed word vectors of 300: Chainer checks the width before choosing cuDNN.
import chainer.links as L
import numpy as np

lstm = L.NStepLSTM(n_layers=1, in_size=50, out_size=64, dropout=0.1)
xs = [np.zeros((n, 300), np.float32) for n in (7, 5, 3)]
print("batch of", len(xs), "sequences")
hy, cy, ys = lstm(None, None, xs)
