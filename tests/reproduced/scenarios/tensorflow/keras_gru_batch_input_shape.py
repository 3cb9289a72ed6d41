# expect: keras/rnn-unrecognized-keyword-arguments
# A Keras 2 stateful-GRU recipe under Keras 3: batch_input_shape is no longer a layer argument.
import keras

model = keras.Sequential()
model.add(keras.layers.GRU(4, batch_input_shape=(1, 1, 7), stateful=True))
model.add(keras.layers.Dense(1))
