# expect: onnxruntime/rnn-attribute-check
# An LSTM node with clip <= 0. (onnxruntime, CPU)
import numpy as np
import onnxruntime as ort
from onnx import TensorProto, helper

H, IN, S, B = 8, 4, 5, 2
inputs = ['X', 'W', 'R']
graph = helper.make_graph(
    [helper.make_node("LSTM", inputs, ["Y"], hidden_size=H, clip=-1.0)],
    "rnn",
    [helper.make_tensor_value_info(n, TensorProto.INT32 if n == "sequence_lens" else TensorProto.FLOAT, None)
     for n in inputs if n],
    [helper.make_tensor_value_info("Y", TensorProto.FLOAT, None)],
)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)])
sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
G = 4
sess.run(None, {"X": np.zeros((S, B, IN), np.float32), "W": np.zeros((1, G * H, IN), np.float32), "R": np.zeros((1, G * H, H), np.float32)})
