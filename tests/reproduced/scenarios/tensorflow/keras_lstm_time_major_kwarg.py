# expect: keras/rnn-unrecognized-keyword-arguments
# A TF 2.x tutorial's layer arguments under Keras 3: time_major was removed from the recurrent layers.
import keras

model = keras.Sequential([
    keras.Input((30, 1)),
    keras.layers.LSTM(64, return_sequences=True, time_major=False),
    keras.layers.Dense(1),
])
