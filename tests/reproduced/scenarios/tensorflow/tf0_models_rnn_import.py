# expect: tensorflow/tf1-rnn-api-moved-or-removed
# TF 0.x seq2seq code (tensorflow.models.rnn) run on a later TensorFlow.
import tensorflow as tf
from tensorflow.models.rnn import rnn_cell, seq2seq

cell = rnn_cell.BasicLSTMCell(256)
