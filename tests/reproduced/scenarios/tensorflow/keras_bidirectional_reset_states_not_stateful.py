# expect: keras/rnn-reset-states-not-stateful
# A text model reset between documents, as one does for a stateful RNN, but the Bidirectional LSTM
# was built with the default stateful=False.
import numpy as np
import tensorflow as tf

model = tf.keras.Sequential([
    tf.keras.Input(shape=(None, 16)),
    tf.keras.layers.Bidirectional(tf.keras.layers.LSTM(32)),
    tf.keras.layers.Dense(3, activation="softmax"),
])
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
for doc in range(2):
    x = np.random.rand(4, 10, 16).astype("float32")
    model.train_on_batch(x, np.zeros(4, dtype="int32"))
    model.layers[0].reset_states()
