# expect: onnxruntime/rnn-no-kernel-for-type
# A vanilla RNN node exported in float64: ONNX Runtime's CPU provider has an RNN kernel for float32 only.
import numpy as np
import onnxruntime as ort
from onnx import TensorProto, helper

H, I, S, B = 8, 4, 5, 2
graph = helper.make_graph(
    [helper.make_node("RNN", ["X", "W", "R"], ["Y"], hidden_size=H, name="encoder/rnn_1")],
    "rnn",
    [helper.make_tensor_value_info("X", TensorProto.DOUBLE, [S, B, I])],
    [helper.make_tensor_value_info("Y", TensorProto.DOUBLE, None)],
    [helper.make_tensor("W", TensorProto.DOUBLE, [1, H, I], np.zeros(H * I).tolist()),
     helper.make_tensor("R", TensorProto.DOUBLE, [1, H, H], np.zeros(H * H).tolist())],
)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)])
sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
print(sess.run(None, {"X": np.zeros((S, B, I), np.float64)})[0].shape)
