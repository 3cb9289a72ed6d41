# expect: tensorflow/tf1-rnn-api-moved-or-removed
# TF 1.x code that imports the RNN cells as a module path, run on TensorFlow 2.x.
import tensorflow as tf
from tensorflow.nn.rnn_cell import GRUCell

cell = GRUCell(64)
