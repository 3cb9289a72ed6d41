# expect: tensorflow/tflite-rnn-op-not-in-runtime
# A Keras 2 (tf_keras) LSTM with a fixed number of time steps converts to one fused UNIDIRECTIONAL_SEQUENCE_LSTM op.
# The file then carries an op version this runtime does not implement, as a model from a newer converter does for an
# older TFLite runtime (the TFLite an app bundles, tflite_runtime, a microcontroller build).
import flatbuffers
import numpy as np
import tensorflow as tf
import tf_keras
from tensorflow.lite.python import schema_py_generated as schema

model = tf_keras.Sequential([
    tf_keras.Input((10, 3), batch_size=1),
    tf_keras.layers.LSTM(8),
    tf_keras.layers.Dense(1),
])
flat = tf.lite.TFLiteConverter.from_keras_model(model).convert()

tflite_model = schema.ModelT.InitFromObj(schema.Model.GetRootAsModel(flat, 0))
for code in tflite_model.operatorCodes:
    if max(code.builtinCode, code.deprecatedBuiltinCode) == schema.BuiltinOperator.UNIDIRECTIONAL_SEQUENCE_LSTM:
        print("UNIDIRECTIONAL_SEQUENCE_LSTM version", code.version)
        code.version = 9
builder = flatbuffers.Builder(1024)
builder.Finish(tflite_model.Pack(builder), file_identifier=b"TFL3")
with open("lstm.tflite", "wb") as f:
    f.write(builder.Output())

interpreter = tf.lite.Interpreter(model_path="lstm.tflite")
interpreter.allocate_tensors()
interpreter.set_tensor(interpreter.get_input_details()[0]["index"], np.random.rand(1, 10, 3).astype("float32"))
interpreter.invoke()
