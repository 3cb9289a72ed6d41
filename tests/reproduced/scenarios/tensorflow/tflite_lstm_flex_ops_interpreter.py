# expect: tensorflow/tflite-rnn-flex-ops-at-runtime
# A Keras LSTM with a variable number of time steps, converted to TFLite with SELECT_TF_OPS (as the converter's error
# suggests) and then run by an interpreter that has no Flex delegate linked.
import numpy as np
import tensorflow as tf

model = tf.keras.Sequential([
    tf.keras.Input((None, 3)),
    tf.keras.layers.LSTM(8),
    tf.keras.layers.Dense(1),
])
converter = tf.lite.TFLiteConverter.from_keras_model(model)
converter.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS, tf.lite.OpsSet.SELECT_TF_OPS]
with open("lstm.tflite", "wb") as f:
    f.write(converter.convert())

interpreter = tf.lite.Interpreter(model_path="lstm.tflite")
interpreter.allocate_tensors()
inp = interpreter.get_input_details()[0]
interpreter.set_tensor(inp["index"], np.random.rand(1, 10, 3).astype("float32"))
interpreter.invoke()
