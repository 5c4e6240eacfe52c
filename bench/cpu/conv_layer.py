#!/usr/bin/env python3
"""Writes a one-layer model for bench/cpu/layers.sh: x [1, Ci, H, H] -> Conv (Co output channels,
k x k kernel, stride S, padding k // 2, with a bias) -> y, random weights (seed 0). With `t`
after S: ConvTranspose instead (k x k kernel, stride S, no padding: (H - 1) * S + k outputs a
side; UNet's up-sampling is k = S = 2). With `d`: a depthwise Conv (group Ci, Co a multiple of
Ci: MobileNetV2's 3x3s).
    conv_layer.py Ci Co H k S [t|d] OUT.onnx"""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def main():
    kind = sys.argv[6] if len(sys.argv) == 8 else ""
    if len(sys.argv) not in (7, 8) or kind not in ("", "t", "d"):
        sys.exit("usage: conv_layer.py Ci Co H k S [t|d] OUT.onnx")
    transposed, group = kind == "t", 1
    ci, co, h, k, s = (int(v) for v in sys.argv[1:6])
    if kind == "d":
        if co % ci:
            sys.exit("conv_layer.py: a depthwise Conv's Co must be a multiple of Ci")
        group = ci
    rng = np.random.default_rng(0)
    shape = (ci, co, k, k) if transposed else (co, ci // group, k, k)
    w = numpy_helper.from_array(rng.standard_normal(shape).astype(np.float32), "w")
    b = numpy_helper.from_array(rng.standard_normal((co,)).astype(np.float32), "b")
    if transposed:
        ho = (h - 1) * s + k
        conv = helper.make_node("ConvTranspose", ["x", "w", "b"], ["y"], strides=[s, s], kernel_shape=[k, k])
    else:
        p = k // 2
        ho = (h + 2 * p - k) // s + 1
        conv = helper.make_node("Conv", ["x", "w", "b"], ["y"], pads=[p] * 4, strides=[s, s], kernel_shape=[k, k], group=group)
    graph = helper.make_graph([conv], "conv", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, ci, h, h])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, co, ho, ho])], [w, b])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.save(model, sys.argv[-1])


if __name__ == "__main__":
    main()
