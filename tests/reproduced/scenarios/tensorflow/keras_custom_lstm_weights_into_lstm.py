# expect: keras/rnn-cell-weights-not-loaded
# keras#20322: weights saved from a model whose LSTM is a subclass (MyCustomLSTM) loaded into the same model built with
# a plain keras.layers.LSTM. Keras 3 files a layer's variables under a path named after its class, so the LSTM's cell
# finds no variables at its own path.
import keras
from keras import layers


@keras.saving.register_keras_serializable()
class MyCustomLSTM(keras.layers.LSTM):
    def __init__(self, units, **kwargs):
        super().__init__(units, **kwargs)


def make_model(use_custom_lstm):
    inputs = layers.Input(shape=(None, 4), name="inputs")
    lstm = MyCustomLSTM if use_custom_lstm else layers.LSTM
    outputs = lstm(units=8, return_sequences=True, name="my_LSTM")(inputs)
    return keras.models.Model(inputs=inputs, outputs=outputs)


model = make_model(use_custom_lstm=True)
model.save_weights("this_is_a_test.weights.h5")
new_model = make_model(use_custom_lstm=False)
new_model.load_weights("this_is_a_test.weights.h5")
