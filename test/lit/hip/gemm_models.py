"""Models for the hip GEMM / convolution kernel tests (test/lit/hip/gemm-emu.test): odd shapes
that cut every tile configuration of templates/hip/gemm.hpp at its edges (M, N, K not multiples
of the tiles), strided and batched dot operands, the convolution paths (implicit GEMM with
padding / stride / dilation / groups, 1x1, depthwise, 1-d and 3-d) and fused epilogues with
a residual input. Usage: gemm_models.py OUTDIR (writes dot.onnx, conv.onnx, types.onnx).
/usr/bin/python3 (Debian python3-onnx)."""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

rng = np.random.default_rng(7)
OUT = sys.argv[1]


class Model:
    def __init__(self):
        self.nodes, self.inits, self.inputs, self.outputs, self.n = [], [], [], [], 0

    def name(self, base):
        self.n += 1
        return f"{base}{self.n}"

    def input(self, shape, dtype=np.float32):
        n = self.name("x")
        self.inputs.append(helper.make_tensor_value_info(n, onnx.mapping.NP_TYPE_TO_TENSOR_TYPE[np.dtype(dtype)], shape))
        return n

    def const(self, shape, dtype=np.float32):
        n = self.name("w")
        self.inits.append(numpy_helper.from_array(rng.normal(0, 1, shape).astype(dtype), n))
        return n

    def op(self, op, ins, **attrs):
        n = self.name(op.lower())
        self.nodes.append(helper.make_node(op, ins, [n], name=n, **attrs))
        return n

    def out(self, v, dtype=np.float32):
        self.outputs.append(helper.make_tensor_value_info(v, onnx.mapping.NP_TYPE_TO_TENSOR_TYPE[np.dtype(dtype)], None))

    def save(self, path):
        g = helper.make_graph(self.nodes, "g", self.inputs, [], self.inits)
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
        shapes = {v.name: v for v in onnx.shape_inference.infer_shapes(m).graph.value_info}
        m.graph.output.extend(shapes[o.name] for o in self.outputs)
        onnx.checker.check_model(m)
        onnx.save(m, path)


# dot: every configuration (small_m, small_n, medium, large), transposed and batched operands
d = Model()
d.out(d.op("MatMul", [d.input([37, 53]), d.const([53, 71])]))                  # medium, odd edges
d.out(d.op("MatMul", [d.input([1, 300]), d.const([300, 257])]))                # small_m: matvec
d.out(d.op("MatMul", [d.input([200, 40]), d.const([40, 3])]))                  # small_n
d.out(d.op("MatMul", [d.input([96, 129, 9]), d.input([96, 9, 130])]))         # large (384 tiles)
d.out(d.op("MatMul", [d.input([3, 1, 17, 33]), d.const([4, 33, 9])]))          # broadcast batch
d.out(d.op("Gemm", [d.input([5, 67]), d.const([29, 67]), d.const([29])], transB=1))   # B strided
d.out(d.op("Gemm", [d.input([67, 19]), d.const([67, 130])], transA=1, alpha=0.5))     # A strided
d.out(d.op("MatMul", [d.input([4, 0]), d.const([0, 6])]))                      # K = 0
mm = d.op("MatMul", [d.input([45, 70]), d.const([70, 33])])                    # fused: + residual, relu
d.out(d.op("Relu", [d.op("Add", [mm, d.input([45, 33])])]))
d.save(f"{OUT}/dot.onnx")

# convolution
c = Model()
c.out(c.op("Conv", [c.input([2, 5, 11, 13]), c.const([7, 5, 3, 2])], pads=[1, 0, 2, 1], strides=[2, 1],
           dilations=[1, 2]))
c.out(c.op("Conv", [c.input([1, 6, 9, 9]), c.const([4, 3, 3, 3]), c.const([4])], group=2, pads=[1, 1, 1, 1]))
c.out(c.op("Conv", [c.input([2, 16, 7, 9]), c.const([24, 16, 1, 1]), c.const([24])]))               # 1x1
c.out(c.op("Conv", [c.input([3, 12, 5, 4]), c.const([10, 12, 1, 1])]))                              # 1x1, plane 20
c.out(c.op("Conv", [c.input([1, 8, 6, 6]), c.const([8, 4, 1, 1])], group=2))                        # 1x1 groups
c.out(c.op("Conv", [c.input([2, 8, 17, 19]), c.const([8, 1, 3, 3])], group=8, strides=[2, 2], pads=[1, 1, 1, 1]))
c.out(c.op("Conv", [c.input([1, 8, 13, 15]), c.const([16, 1, 5, 5])], group=8, dilations=[2, 2], pads=[2, 3, 1, 2]))
c.out(c.op("Conv", [c.input([1, 3, 40, 70]), c.const([3, 1, 3, 3])], group=3, pads=[1, 1, 1, 1]))  # depthwise, wide
c.out(c.op("Conv", [c.input([1, 2, 9, 300]), c.const([2, 1, 7, 7])], group=2, strides=[1, 3]))     # tile too big for shared
c.out(c.op("Conv", [c.input([2, 4, 29]), c.const([6, 4, 5])], strides=[3], pads=[2, 1]))            # 1-d
c.out(c.op("Conv", [c.input([1, 2, 5, 6, 7]), c.const([3, 2, 2, 3, 2])], pads=[0, 1, 1, 1, 0, 1]))  # 3-d
c.out(c.op("Conv", [c.input([1, 1, 12, 12]), c.const([5, 1, 3, 3])]))                              # one input channel
x = c.input([1, 8, 10, 10])                                                     # fused: bias + residual + relu
c.out(c.op("Relu", [c.op("Add", [c.op("Conv", [x, c.const([8, 8, 3, 3]), c.const([8])], pads=[1, 1, 1, 1]), x])]))
y = c.input([2, 6, 12, 12])                                                     # fused depthwise + clip
c.out(c.op("Clip", [c.op("Conv", [y, c.const([6, 1, 3, 3]), c.const([6])], group=6, pads=[1, 1, 1, 1]),
                    c.op("Constant", [], value=numpy_helper.from_array(np.array(0, np.float32))),
                    c.op("Constant", [], value=numpy_helper.from_array(np.array(0.5, np.float32)))]))
c.out(c.op("ConvTranspose", [c.input([1, 4, 5, 6]), c.const([4, 3, 3, 3])], strides=[2, 2], pads=[1, 0, 1, 1]))
c.out(c.op("ConvTranspose", [c.input([2, 4, 5, 5]), c.const([4, 2, 3, 2]), c.const([4])], group=2, dilations=[2, 1],
           strides=[3, 2], output_padding=[1, 1]))
c.save(f"{OUT}/conv.onnx")

# element types: double and half through the tiled path
t = Model()
t.out(t.op("MatMul", [t.input([19, 23], np.float64), t.const([23, 31], np.float64)]), np.float64)
t.out(t.op("Conv", [t.input([1, 3, 9, 10], np.float64), t.const([5, 3, 3, 3], np.float64)], pads=[1, 1, 1, 1]), np.float64)
t.out(t.op("MatMul", [t.input([33, 45], np.float16), t.const([45, 50], np.float16)]), np.float16)
t.out(t.op("MatMul", [t.input([2, 20, 64], np.float16), t.const([2, 64, 24], np.float16)]), np.float16)
t.out(t.op("Conv", [t.input([1, 4, 8, 8], np.float16), t.const([6, 4, 3, 3], np.float16)]), np.float16)
t.out(t.op("Conv", [t.input([1, 16, 8, 8], np.float16), t.const([8, 16, 1, 1], np.float16)]), np.float16)
t.out(t.op("Conv", [t.input([1, 4, 9, 9], np.float16), t.const([4, 1, 3, 3], np.float16)], group=4), np.float16)
t.save(f"{OUT}/types.onnx")
