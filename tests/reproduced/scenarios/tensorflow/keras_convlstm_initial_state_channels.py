# expect: keras/rnn-initial-state-mismatch
import tf_keras as keras

frames = keras.Input(shape=(5, 8, 8, 3))
state_h = keras.Input(shape=(8, 8, 4))
state_c = keras.Input(shape=(8, 8, 4))
out = keras.layers.ConvLSTM2D(filters=16, kernel_size=3, padding="same")(frames, initial_state=[state_h, state_c])
