# expect: opencv/dnn-recurrent-layer-check
# An ONNX LSTM exported for 16 input features, fed a batch with 12 features: OpenCV's DNN LSTM layer rejects the shape.
import cv2
import numpy as np
from onnx import TensorProto, helper, numpy_helper

hidden, size = 8, 16
rng = np.random.default_rng(0)
W = numpy_helper.from_array(rng.standard_normal((1, 4 * hidden, size)).astype(np.float32), "W")
R = numpy_helper.from_array(rng.standard_normal((1, 4 * hidden, hidden)).astype(np.float32), "R")
B = numpy_helper.from_array(np.zeros((1, 8 * hidden), np.float32), "B")
graph = helper.make_graph(
    [helper.make_node("LSTM", ["X", "W", "R", "B"], ["Y"], hidden_size=hidden)],
    "lstm",
    [helper.make_tensor_value_info("X", TensorProto.FLOAT, [5, 2, size])],
    [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [5, 1, 2, hidden])],
    [W, R, B],
)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)])
net = cv2.dnn.readNetFromONNX(np.frombuffer(model.SerializeToString(), np.uint8))
net.setPreferableBackend(cv2.dnn.DNN_BACKEND_OPENCV)
x = np.zeros((5, 2, 12), np.float32)   # 12 features, the model wants 16
net.setInput(x)
print("sequence batch", x.shape)
y = net.forward()
print(y.shape)
