# expect: tensorflow/rnn-cell-matmul-dimension-mismatch
# One LSTM layer shared by two inputs with different feature counts: its kernel was built for the first.
import numpy as np
import keras

encoder = keras.layers.LSTM(8)
encoder(np.zeros((2, 5, 3), dtype="float32"))        # builds the kernel for 3 features
encoder(np.zeros((2, 5, 4), dtype="float32"))        # 4 features per step
