#!/usr/bin/python3
"""Builds examples/cnn.onnx: a small CNN image classifier with random weights (fixed seed),
written the way exporters write models (BatchNormalization, a Shape->Gather->Unsqueeze->Concat
->Reshape chain, Gemm, Softmax), and examples/input.bin, a bundled 1x3x32x32 float32 input.

Run with Debian's python3 (python3-onnx, python3-numpy): /usr/bin/python3 examples/make_cnn.py
"""
import os
import numpy as np
import onnx
from onnx import helper, numpy_helper, TensorProto

rng = np.random.default_rng(20261122)
here = os.path.dirname(os.path.abspath(__file__))
nodes, inits = [], []


def init(name, arr):
    inits.append(numpy_helper.from_array(np.asarray(arr), name))
    return name


def conv_bn_relu(x, name, cin, cout, k=3, stride=1):
    fan_in = cin * k * k
    w = init(name + ".w", rng.normal(0, np.sqrt(2.0 / fan_in), (cout, cin, k, k)).astype(np.float32))
    b = init(name + ".b", rng.normal(0, 0.01, cout).astype(np.float32))
    nodes.append(helper.make_node("Conv", [x, w, b], [name + ".conv"], name=name,
                                  pads=[k // 2] * 4, strides=[stride, stride], kernel_shape=[k, k]))
    s = init(name + ".bn.scale", rng.uniform(0.5, 1.5, cout).astype(np.float32))
    bb = init(name + ".bn.bias", rng.normal(0, 0.1, cout).astype(np.float32))
    m = init(name + ".bn.mean", rng.normal(0, 0.1, cout).astype(np.float32))
    v = init(name + ".bn.var", rng.uniform(0.5, 1.5, cout).astype(np.float32))
    nodes.append(helper.make_node("BatchNormalization", [name + ".conv", s, bb, m, v], [name + ".bn"],
                                  name=name + ".bn", epsilon=1e-5))
    nodes.append(helper.make_node("Relu", [name + ".bn"], [name + ".relu"], name=name + ".relu"))
    return name + ".relu"


x = conv_bn_relu("image", "stem", 3, 16)
x = conv_bn_relu(x, "block1", 16, 32, stride=2)
nodes.append(helper.make_node("MaxPool", [x], ["pool1"], name="pool1", kernel_shape=[2, 2], strides=[2, 2]))
y = conv_bn_relu("pool1", "block2a", 32, 32)
y = conv_bn_relu(y, "block2b", 32, 32)
nodes.append(helper.make_node("Add", ["pool1", y], ["residual"], name="residual"))
x = conv_bn_relu("residual", "block3", 32, 64, stride=2)
nodes.append(helper.make_node("GlobalAveragePool", [x], ["gap"], name="gap"))
# The exporter idiom for flatten: reshape to (batch, -1) with the batch read from Shape.
nodes.append(helper.make_node("Shape", ["gap"], ["gap.shape"], name="gap.shape"))
init("zero", np.array(0, dtype=np.int64))
nodes.append(helper.make_node("Gather", ["gap.shape", "zero"], ["batch"], name="batch", axis=0))
init("axes0", np.array([0], dtype=np.int64))
nodes.append(helper.make_node("Unsqueeze", ["batch", "axes0"], ["batch1"], name="batch1"))
init("minus1", np.array([-1], dtype=np.int64))
nodes.append(helper.make_node("Concat", ["batch1", "minus1"], ["flat.shape"], name="flat.shape", axis=0))
nodes.append(helper.make_node("Reshape", ["gap", "flat.shape"], ["flat"], name="flat"))
nodes.append(helper.make_node("Dropout", ["flat"], ["drop"], name="drop"))
fw = init("fc.w", rng.normal(0, np.sqrt(1.0 / 64), (10, 64)).astype(np.float32))
fb = init("fc.b", rng.normal(0, 0.01, 10).astype(np.float32))
nodes.append(helper.make_node("Gemm", ["drop", fw, fb], ["logits"], name="fc", transB=1))
nodes.append(helper.make_node("Softmax", ["logits"], ["probs"], name="softmax", axis=-1))

graph = helper.make_graph(
    nodes, "cnn",
    [helper.make_tensor_value_info("image", TensorProto.FLOAT, [1, 3, 32, 32])],
    [helper.make_tensor_value_info("probs", TensorProto.FLOAT, [1, 10])],
    inits)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], producer_name="mxc-examples")
model.ir_version = 8
onnx.checker.check_model(model)
onnx.save(model, os.path.join(here, "cnn.onnx"))

# A bundled input: a smooth synthetic "image", normalised like ImageNet inputs.
yy, xx = np.mgrid[0:32, 0:32].astype(np.float32) / 31.0
img = np.stack([np.sin(3 * xx + yy), np.cos(2 * yy - xx), xx * yy])[None].astype(np.float32)
img.tofile(os.path.join(here, "input.bin"))
print("wrote examples/cnn.onnx (%d bytes) and examples/input.bin" % os.path.getsize(os.path.join(here, "cnn.onnx")))
