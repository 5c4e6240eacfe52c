"""A small ONNX graph builder that writes models the way exporters (PyTorch, tf2onnx) do:
Constant nodes for scalars, Shape->Gather->Unsqueeze->Concat->Reshape chains for dynamic-looking
reshapes, Identity/Dropout/no-op Cast nodes, decomposed LayerNorm and GELU. Weights are random
with a fixed seed. Used by tools/models/zoo.py; /usr/bin/python3 (Debian python3-onnx).
"""
import numpy as np
import onnx
from onnx import helper, numpy_helper, TensorProto

OPSET = 13


class Graph:
    def __init__(self, seed, opset=OPSET):
        self.opset = opset
        self.rng = np.random.default_rng(seed)
        self.nodes, self.inits, self.inputs, self.outputs = [], [], [], []
        self.count = 0

    def name(self, base):
        self.count += 1
        return f"{base}_{self.count}"

    # --- values ---------------------------------------------------------------------------
    def input(self, name, dtype, dims):
        self.inputs.append(helper.make_tensor_value_info(name, dtype, dims))
        return name

    def output(self, name, dims, dtype=TensorProto.FLOAT):
        self.outputs.append(helper.make_tensor_value_info(name, dtype, dims))

    def init(self, base, arr):
        n = self.name(base)
        self.inits.append(numpy_helper.from_array(np.asarray(arr), n))
        return n

    def weight(self, base, shape, fan_in, gain=2.0):
        return self.init(base, self.rng.normal(0, np.sqrt(gain / fan_in), shape).astype(np.float32))

    def small(self, base, shape, scale=0.02):
        return self.init(base, self.rng.normal(0, scale, shape).astype(np.float32))

    def constant(self, value, dtype=np.float32):
        """A Constant node (exporters write scalars this way, not as initializers)."""
        out = self.name("const")
        t = numpy_helper.from_array(np.asarray(value, dtype=dtype), out + "_value")
        self.nodes.append(helper.make_node("Constant", [], [out], name=out, value=t))
        return out

    def op(self, op_type, inputs, base=None, **attrs):
        out = self.name(base or op_type.lower())
        self.nodes.append(helper.make_node(op_type, inputs, [out], name=out, **attrs))
        return out

    # --- exporter idioms ------------------------------------------------------------------
    def dim(self, x, axis):
        """Shape -> Gather(axis) -> Unsqueeze: a 1-element int64 tensor holding x's dim."""
        s = self.op("Shape", [x])
        g = self.op("Gather", [s, self.constant(axis, np.int64)], axis=0)
        return self.op("Unsqueeze", [g, self.constant([0], np.int64)])

    def reshape_dynamic(self, x, parts):
        """Reshape whose target shape is a Concat of Shape-derived dims (ints in `parts` are
        axes of x to copy; lists are literal pieces)."""
        pieces = [self.dim(x, p) if isinstance(p, int) else self.constant(p, np.int64) for p in parts]
        shape = self.op("Concat", pieces, axis=0)
        return self.op("Reshape", [x, shape])

    def identity(self, x):
        return self.op("Identity", [x])

    def dropout(self, x):
        return self.op("Dropout", [x, self.constant(0.1)])

    def noop_cast(self, x):
        return self.op("Cast", [x], to=TensorProto.FLOAT)

    # --- layers ---------------------------------------------------------------------------
    def conv(self, x, cin, cout, k, stride=1, pad=None, group=1, bias=False):
        pad = k // 2 if pad is None else pad
        w = self.weight("conv.w", (cout, cin // group, k, k), cin // group * k * k)
        ins = [x, w] + ([self.small("conv.b", (cout,), 0.01)] if bias else [])
        return self.op("Conv", ins, "conv", kernel_shape=[k, k], strides=[stride, stride], pads=[pad] * 4,
                       group=group)

    def bn(self, x, c):
        r = self.rng
        s = self.init("bn.scale", r.uniform(0.5, 1.5, c).astype(np.float32))
        b = self.init("bn.bias", r.normal(0, 0.1, c).astype(np.float32))
        m = self.init("bn.mean", r.normal(0, 0.1, c).astype(np.float32))
        v = self.init("bn.var", r.uniform(0.5, 1.5, c).astype(np.float32))
        return self.op("BatchNormalization", [x, s, b, m, v], "bn", epsilon=1e-5)

    def linear(self, x, cin, cout):
        """MatMul + Add bias (how exporters write nn.Linear on 3-D inputs)."""
        w = self.weight("linear.w", (cin, cout), cin, 1.0)
        y = self.op("MatMul", [x, w])
        return self.op("Add", [y, self.small("linear.b", (cout,))])

    def layer_norm(self, x, c, eps=1e-12):
        """Decomposed: ReduceMean, Sub, Pow 2, ReduceMean, Add eps, Sqrt, Div, Mul gamma, Add beta."""
        mean = self.op("ReduceMean", [x], axes=[-1])
        d = self.op("Sub", [x, mean])
        var = self.op("ReduceMean", [self.op("Pow", [d, self.constant(2.0)])], axes=[-1])
        std = self.op("Sqrt", [self.op("Add", [var, self.constant(eps)])])
        y = self.op("Div", [d, std])
        g = self.init("ln.gamma", self.rng.uniform(0.8, 1.2, c).astype(np.float32))
        b = self.small("ln.beta", (c,))
        return self.op("Add", [self.op("Mul", [y, g]), b])

    def gelu(self, x):
        """Decomposed with Erf: x * 0.5 * (1 + erf(x / sqrt(2)))."""
        e = self.op("Erf", [self.op("Div", [x, self.constant(1.4142135381698608)])])
        h = self.op("Mul", [x, self.op("Add", [e, self.constant(1.0)])])
        return self.op("Mul", [h, self.constant(0.5)])

    def model(self, name):
        g = helper.make_graph(self.nodes, name, self.inputs, self.outputs, self.inits)
        m = helper.make_model(g, producer_name="mxc-zoo", opset_imports=[helper.make_opsetid("", self.opset)])
        m.ir_version = 8
        return m
