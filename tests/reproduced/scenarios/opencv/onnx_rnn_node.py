# expect: opencv/dnn-onnx-rnn-node-unsupported
# A plain ONNX RNN node (torch.nn.RNN exported): OpenCV DNN has no layer to import it.
import cv2
import numpy as np
from onnx import TensorProto, helper, numpy_helper

hidden, size = 8, 16
rng = np.random.default_rng(0)
W = numpy_helper.from_array(rng.standard_normal((1, hidden, size)).astype(np.float32), "W")
R = numpy_helper.from_array(rng.standard_normal((1, hidden, hidden)).astype(np.float32), "R")
B = numpy_helper.from_array(np.zeros((1, 2 * hidden), np.float32), "B")
graph = helper.make_graph([helper.make_node("RNN", ["X", "W", "R", "B"], ["Y"], hidden_size=hidden)], "rnn",
    [helper.make_tensor_value_info("X", TensorProto.FLOAT, [5, 2, size])],
    [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [5, 1, 2, hidden])], [W, R, B])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)])
net = cv2.dnn.readNetFromONNX(np.frombuffer(model.SerializeToString(), np.uint8))
net.setPreferableBackend(cv2.dnn.DNN_BACKEND_OPENCV)
x = np.zeros((5, 2, 12), np.float32)
net.setInput(x)
print("sequence batch", x.shape)
y = net.forward()
print(y.shape)
