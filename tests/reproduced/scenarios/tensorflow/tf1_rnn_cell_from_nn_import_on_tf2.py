# expect: tensorflow/tf1-rnn-api-moved-or-removed
import tensorflow as tf
from tensorflow.nn import rnn_cell

cell = rnn_cell.LSTMCell(128)
