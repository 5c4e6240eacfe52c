#!/usr/bin/python3
"""Writes the small ONNX models of the import tests, and for the good ones the inputs and the
expected outputs (computed here with plain numpy, independently of mxc) as .npy files:
NAME.onnx, NAME.in0.npy, ..., NAME.out0.npy, ...

Run from anywhere with /usr/bin/python3 (the python with the onnx package):
    /usr/bin/python3 test/lit/Inputs/make_models.py
"""
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
F = TensorProto.FLOAT


def model(nodes, inputs, outputs, inits=(), opset=13, name="g", check=True):
    g = helper.make_graph(nodes, name, inputs, outputs, initializer=list(inits))
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)], producer_name="mxc-tests")
    m.ir_version = 8
    if check:
        onnx.checker.check_model(m)
    return m


def vi(name, shape, t=F):
    return helper.make_tensor_value_info(name, t, shape)


def save(name, m, ins=(), outs=()):
    data = m.SerializeToString()
    assert len(data) < 50 * 1024, name
    with open(os.path.join(HERE, name + ".onnx"), "wb") as f:
        f.write(data)
    for i, a in enumerate(ins):
        np.save(os.path.join(HERE, f"{name}.in{i}.npy"), a)
    for i, a in enumerate(outs):
        np.save(os.path.join(HERE, f"{name}.out{i}.npy"), a)


def init(name, a):
    return numpy_helper.from_array(np.asarray(a), name)


# --- numpy references ------------------------------------------------------------------------

def conv2d(x, w, b, pads, strides):
    n, c, h, wd = x.shape
    m, _, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pads[0], pads[2]), (pads[1], pads[3])))
    oh = (xp.shape[2] - kh) // strides[0] + 1
    ow = (xp.shape[3] - kw) // strides[1] + 1
    y = np.zeros((n, m, oh, ow), np.float64)
    for i in range(oh):
        for j in range(ow):
            patch = xp[:, :, i * strides[0]:i * strides[0] + kh, j * strides[1]:j * strides[1] + kw]
            y[:, :, i, j] = np.einsum("nckl,mckl->nm", patch, w)
    return (y + b.reshape(1, m, 1, 1)).astype(np.float32)


def conv_transpose2d(x, w, b, pads, strides, dil, group, out_pad=(0, 0)):
    """ONNX ConvTranspose by its definition: input (n, c, ih, iw) times w[c, m, ka, kb] adds to
    output (n, g * M/group + m, ih * s0 - pad_top + ka * d0, iw * s1 - pad_left + kb * d1)."""
    n, c, h, wd = x.shape
    _, mg, kh, kw = w.shape
    cg = c // group
    oh = (h - 1) * strides[0] - pads[0] - pads[2] + (kh - 1) * dil[0] + 1 + out_pad[0]
    ow = (wd - 1) * strides[1] - pads[1] - pads[3] + (kw - 1) * dil[1] + 1 + out_pad[1]
    y = np.zeros((n, mg * group, oh, ow), np.float64)
    for g in range(group):
        xs, ws = x[:, g * cg:(g + 1) * cg].astype(np.float64), w[g * cg:(g + 1) * cg].astype(np.float64)
        for i in range(h):
            for j in range(wd):
                v = np.einsum("nc,cmkl->nmkl", xs[:, :, i, j], ws)  # (n, mg, kh, kw)
                for ka in range(kh):
                    for kb in range(kw):
                        r, q = i * strides[0] - pads[0] + ka * dil[0], j * strides[1] - pads[1] + kb * dil[1]
                        if 0 <= r < oh and 0 <= q < ow:
                            y[:, g * mg:(g + 1) * mg, r, q] += v[:, :, ka, kb]
    return (y + b.reshape(1, -1, 1, 1)).astype(np.float32)


def pool2d(x, k, s, pads, mode, count_include_pad=False):
    n, c, h, w = x.shape
    fill = -np.inf if mode == "max" else 0.0
    xp = np.pad(x, ((0, 0), (0, 0), (pads[0], pads[2]), (pads[1], pads[3])), constant_values=fill)
    ones = np.pad(np.ones((h, w)), ((pads[0], pads[2]), (pads[1], pads[3])))
    oh = (xp.shape[2] - k[0]) // s[0] + 1
    ow = (xp.shape[3] - k[1]) // s[1] + 1
    y = np.zeros((n, c, oh, ow), np.float32)
    for i in range(oh):
        for j in range(ow):
            win = xp[:, :, i * s[0]:i * s[0] + k[0], j * s[1]:j * s[1] + k[1]]
            if mode == "max":
                y[:, :, i, j] = win.max(axis=(2, 3))
            else:
                cnt = k[0] * k[1] if count_include_pad else ones[i * s[0]:i * s[0] + k[0], j * s[1]:j * s[1] + k[1]].sum()
                y[:, :, i, j] = win.sum(axis=(2, 3)) / cnt
    return y


def softmax(x, axis):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


rng = np.random.default_rng(20240601)


def rand(*shape):
    return rng.standard_normal(shape).astype(np.float32)


# --- good models -----------------------------------------------------------------------------

def conv_relu():
    x, w, b = rand(1, 2, 5, 5), rand(3, 2, 3, 3), rand(3)
    nodes = [helper.make_node("Conv", ["x", "w", "b"], ["c"], name="conv1", pads=[1, 1, 1, 1]),
             helper.make_node("Relu", ["c"], ["y"], name="relu1")]
    m = model(nodes, [vi("x", [1, 2, 5, 5])], [vi("y", [1, 3, 5, 5])], [init("w", w), init("b", b)])
    save("conv_relu", m, [x], [np.maximum(conv2d(x, w, b, [1, 1, 1, 1], [1, 1]), 0)])


def conv_strided_same():
    x, w = rand(1, 1, 7, 7), rand(2, 1, 3, 3)
    nodes = [helper.make_node("Conv", ["x", "w"], ["y"], name="conv_same", auto_pad="SAME_UPPER", strides=[2, 2])]
    m = model(nodes, [vi("x", [1, 1, 7, 7])], [vi("y", [1, 2, 4, 4])], [init("w", w)], opset=11)
    # 7 -> 4 with stride 2 and kernel 3: total pad 2, 1 before and 1 after
    save("conv_strided_same", m, [x], [conv2d(x, w, np.zeros(2, np.float32), [1, 1, 1, 1], [2, 2])])


def gemm():
    a, b, c = rand(2, 3), rand(4, 3), rand(4)
    nodes = [helper.make_node("Gemm", ["a", "b", "c"], ["y"], name="fc", transB=1, alpha=0.5, beta=2.0)]
    m = model(nodes, [vi("a", [2, 3])], [vi("y", [2, 4])], [init("b", b), init("c", c)])
    save("gemm", m, [a], [(0.5 * a @ b.T + 2.0 * c).astype(np.float32)])


def gemm_trans_a():
    a, b = rand(3, 2), rand(3, 4)
    nodes = [helper.make_node("Gemm", ["a", "b"], ["y"], name="fc_t", transA=1)]
    m = model(nodes, [vi("a", [3, 2]), vi("b", [3, 4])], [vi("y", [2, 4])], opset=11)
    save("gemm_trans_a", m, [a, b], [(a.T @ b).astype(np.float32)])


def matmul():
    a, v, b = rand(2, 3, 4), rand(4), rand(4, 5)
    nodes = [helper.make_node("MatMul", ["a", "b"], ["y0"], name="mm_batch"),
             helper.make_node("MatMul", ["v", "b"], ["y1"], name="mm_vec")]
    m = model(nodes, [vi("a", [2, 3, 4]), vi("v", [4])], [vi("y0", [2, 3, 5]), vi("y1", [5])], [init("b", b)])
    save("matmul", m, [a, v], [(a @ b).astype(np.float32), (v @ b).astype(np.float32)])


def reshape_flatten():
    x = rand(2, 3, 4)
    nodes = [helper.make_node("Transpose", ["x"], ["t"], name="tr", perm=[0, 2, 1]),
             helper.make_node("Flatten", ["t"], ["y0"], name="flat", axis=1),
             helper.make_node("Reshape", ["x", "shape"], ["y1"], name="rs")]
    m = model(nodes, [vi("x", [2, 3, 4])], [vi("y0", [2, 12]), vi("y1", [2, 6, 2])],
              [init("shape", np.array([0, -1, 2], np.int64))], opset=14)
    save("reshape_flatten", m, [x], [x.transpose(0, 2, 1).reshape(2, 12), x.reshape(2, 6, 2)])


def shape_chain():
    x = rand(2, 3, 4)
    nodes = [helper.make_node("Shape", ["x"], ["s"], name="shape"),
             helper.make_node("Gather", ["s", "zero"], ["n"], name="batch_dim", axis=0),
             helper.make_node("Unsqueeze", ["n", "axes0"], ["n1"], name="unsq"),
             helper.make_node("Concat", ["n1", "minus1"], ["target"], name="cat", axis=0),
             helper.make_node("Reshape", ["x", "target"], ["r"], name="rs"),
             helper.make_node("Relu", ["r"], ["y"], name="relu")]
    inits = [init("zero", np.array(0, np.int64)), init("axes0", np.array([0], np.int64)),
             init("minus1", np.array([-1], np.int64))]
    m = model(nodes, [vi("x", ["N", 3, 4])], [vi("y", ["N", 12])], inits)
    save("shape_chain", m, [x], [np.maximum(x.reshape(2, 12), 0)])


def concat():
    a, b = rand(2, 3), rand(2, 2)
    nodes = [helper.make_node("Concat", ["a", "b"], ["y"], name="cat", axis=-1)]
    m = model(nodes, [vi("a", [2, 3]), vi("b", [2, 2])], [vi("y", [2, 5])])
    save("concat", m, [a, b], [np.concatenate([a, b], axis=1)])


def softmax_models():
    x = rand(2, 3, 4)
    # opset 11: axis=1 coerces the input to 2-D [2, 12]
    nodes = [helper.make_node("Softmax", ["x"], ["y"], name="sm", axis=1)]
    m = model(nodes, [vi("x", [2, 3, 4])], [vi("y", [2, 3, 4])], opset=11)
    save("softmax_v11", m, [x], [softmax(x.reshape(2, 12), 1).reshape(2, 3, 4).astype(np.float32)])
    # opset 13: axis=1 is that axis alone
    nodes = [helper.make_node("Softmax", ["x"], ["y0"], name="sm", axis=1),
             helper.make_node("LogSoftmax", ["x"], ["y1"], name="lsm")]
    m = model(nodes, [vi("x", [2, 3, 4])], [vi("y0", [2, 3, 4]), vi("y1", [2, 3, 4])])
    save("softmax_v13", m, [x], [softmax(x, 1).astype(np.float32), np.log(softmax(x, 2)).astype(np.float32)])


def batchnorm():
    x, s, b, mean, var = rand(1, 3, 4, 4), rand(3), rand(3), rand(3), np.abs(rand(3)) + 0.5
    nodes = [helper.make_node("BatchNormalization", ["x", "s", "b", "mean", "var"], ["y"], name="bn", epsilon=1e-3)]
    m = model(nodes, [vi("x", [1, 3, 4, 4])], [vi("y", [1, 3, 4, 4])],
              [init("s", s), init("b", b), init("mean", mean), init("var", var)], opset=15)
    r = lambda a: a.reshape(1, 3, 1, 1)
    y = (x - r(mean)) / np.sqrt(r(var) + 1e-3) * r(s) + r(b)
    save("batchnorm", m, [x], [y.astype(np.float32)])


def pool():
    x = rand(1, 2, 6, 6)
    nodes = [helper.make_node("MaxPool", ["x"], ["y0"], name="maxpool", kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1]),
             helper.make_node("AveragePool", ["x"], ["y1"], name="avgpool", kernel_shape=[3, 3], strides=[2, 2],
                              auto_pad="SAME_UPPER"),
             helper.make_node("GlobalAveragePool", ["x"], ["y2"], name="gap")]
    m = model(nodes, [vi("x", [1, 2, 6, 6])], [vi("y0", [1, 2, 3, 3]), vi("y1", [1, 2, 3, 3]), vi("y2", [1, 2, 1, 1])])
    # SAME_UPPER, 6 -> 3 with stride 2 and kernel 3: total pad 1, 0 before and 1 after
    save("pool", m, [x], [pool2d(x, [3, 3], [2, 2], [1, 1, 1, 1], "max"),
                          pool2d(x, [3, 3], [2, 2], [0, 0, 1, 1], "average"),
                          x.mean(axis=(2, 3), keepdims=True)])


def elementwise():
    a, b = rand(2, 3), rand(3)
    nodes = [helper.make_node("Constant", [], ["k"], name="k", value=numpy_helper.from_array(np.array(2.0, np.float32))),
             helper.make_node("Add", ["a", "b"], ["s"], name="add"),
             helper.make_node("Mul", ["s", "k"], ["m"], name="mul"),
             helper.make_node("Sub", ["m", "a"], ["d"], name="sub"),
             helper.make_node("Sigmoid", ["d"], ["y0"], name="sig"),
             helper.make_node("Tanh", ["a"], ["t"], name="tanh"),
             helper.make_node("Div", ["t", "b"], ["y1"], name="div"),
             helper.make_node("Identity", ["y1"], ["i"], name="id"),
             helper.make_node("Dropout", ["i"], ["y2"], name="drop")]
    m = model(nodes, [vi("a", [2, 3]), vi("b", [3])], [vi("y0", [2, 3]), vi("y1", [2, 3]), vi("y2", [2, 3])])
    d = (a + b) * 2 - a
    y0 = (1 / (1 + np.exp(-d))).astype(np.float32)
    y1 = (np.tanh(a) / b).astype(np.float32)
    save("elementwise", m, [a, b], [y0, y1, y1])


def squeeze_clip():
    x = rand(1, 3, 1, 2) * 3
    for opset in (11, 13):
        if opset == 11:
            nodes = [helper.make_node("Squeeze", ["x"], ["s"], name="sq", axes=[0, -2]),
                     helper.make_node("Clip", ["s", "lo", "hi"], ["c"], name="clip"),
                     helper.make_node("Unsqueeze", ["c"], ["y"], name="unsq", axes=[-1])]
            inits = [init("lo", np.array(-1.0, np.float32)), init("hi", np.array(1.5, np.float32))]
        else:
            nodes = [helper.make_node("Squeeze", ["x", "sq_axes"], ["s"], name="sq"),
                     helper.make_node("Clip", ["s", "lo", "hi"], ["c"], name="clip"),
                     helper.make_node("Unsqueeze", ["c", "unsq_axes"], ["y"], name="unsq")]
            inits = [init("lo", np.array(-1.0, np.float32)), init("hi", np.array(1.5, np.float32)),
                     init("sq_axes", np.array([0, -2], np.int64)), init("unsq_axes", np.array([-1], np.int64))]
        m = model(nodes, [vi("x", [1, 3, 1, 2])], [vi("y", [3, 2, 1])], inits, opset=opset)
        save(f"squeeze_clip_v{opset}", m, [x], [np.clip(x.reshape(3, 2), -1, 1.5).reshape(3, 2, 1)])


def clip_v6():
    x = rand(2, 3) * 3
    nodes = [helper.make_node("Clip", ["x"], ["y"], name="clip6", min=-0.5, max=0.5)]
    m = model(nodes, [vi("x", [2, 3])], [vi("y", [2, 3])], opset=6)
    save("clip_v6", m, [x], [np.clip(x, -0.5, 0.5)])


def reduce():
    x = rand(2, 3, 4)
    nodes = [helper.make_node("ReduceMean", ["x"], ["y0"], name="mean", axes=[-1], keepdims=0),
             helper.make_node("ReduceSum", ["x", "axes"], ["y1"], name="sum"),
             helper.make_node("ReduceMax", ["x"], ["y2"], name="max", axes=[0, 2])]
    m = model(nodes, [vi("x", [2, 3, 4])], [vi("y0", [2, 3]), vi("y1", [2, 1, 4]), vi("y2", [1, 3, 1])],
              [init("axes", np.array([1], np.int64))])
    save("reduce", m, [x], [x.mean(axis=-1), x.sum(axis=1, keepdims=True), x.max(axis=(0, 2), keepdims=True)])


def unsupported_fine():
    """Typed-field initializers (no raw_data), as older exporters wrote them."""
    w = helper.make_tensor("w", F, [2, 2], [1.0, 2.0, 3.0, 4.0])
    i = helper.make_tensor("i", TensorProto.INT32, [2], [1, 0])
    nodes = [helper.make_node("Gather", ["w", "i"], ["g"], name="g"),
             helper.make_node("Add", ["x", "g"], ["y"], name="add")]
    m = model(nodes, [vi("x", [2, 2])], [vi("y", [2, 2])], [w, i])
    x = rand(2, 2)
    save("typed_fields", m, [x], [x + np.array([[3, 4], [1, 2]], np.float32)])


# --- bad models ------------------------------------------------------------------------------

def bad_models():
    with open(os.path.join(HERE, "bad_random.onnx"), "wb") as f:
        f.write(np.random.default_rng(7).integers(0, 256, 300, dtype=np.uint8).tobytes())
    with open(os.path.join(HERE, "conv_relu.onnx"), "rb") as f:
        whole = f.read()
    with open(os.path.join(HERE, "bad_truncated.onnx"), "wb") as f:
        f.write(whole[:len(whole) * 2 // 3])

    x = vi("x", [2, 3])
    y = vi("y", [2, 3])
    nodes = [helper.make_node("Relu", ["x"], ["a"], name="ok"),
             helper.make_node("Foo", ["a"], ["b"], name="foo1"),
             helper.make_node("NonMaxSuppression", ["b"], ["c"], name="nms"),
             helper.make_node("Bar", ["c"], ["y"], name="bar", domain="com.example")]
    save("bad_unsupported", model(nodes, [x], [y], check=False))

    nodes = [helper.make_node("Add", ["x", "nowhere"], ["y"], name="add_dangling")]
    save("bad_dangling", model(nodes, [x], [y], check=False))

    nodes = [helper.make_node("Add", ["x", "b"], ["a"], name="cyc_add"),
             helper.make_node("Relu", ["a"], ["b"], name="cyc_relu"),
             helper.make_node("Relu", ["a"], ["y"], name="out")]
    save("bad_cycle", model(nodes, [x], [y], check=False))

    nodes = [helper.make_node("Relu", ["x"], ["y"], name="first"),
             helper.make_node("Sigmoid", ["x"], ["y"], name="second")]
    save("bad_duplicate", model(nodes, [x], [y], check=False))

    # a node order that is not topological, but no cycle: imported in dependency order
    nodes = [helper.make_node("Sigmoid", ["a"], ["y"], name="late"),
             helper.make_node("Relu", ["x"], ["a"], name="early")]
    m = model(nodes, [x], [y], check=False)
    xv = rand(2, 3)
    save("unsorted", m, [xv], [(1 / (1 + np.exp(-np.maximum(xv, 0)))).astype(np.float32)])

    def with_init(name, t):
        nodes = [helper.make_node("Add", ["x", t.name], ["y"], name="add_w")]
        save(name, model(nodes, [x], [y], [t], check=False))

    def raw_tensor(dims, raw=None, floats=()):  # built by hand: helper.make_tensor checks sizes
        t = TensorProto(name="w", data_type=F, dims=dims)
        if raw is not None:
            t.raw_data = raw
        t.float_data.extend(floats)
        return t

    with_init("bad_data_length", raw_tensor([2, 3], raw=b"\0" * 20))
    with_init("bad_float_data", raw_tensor([2, 3], floats=[1.0, 2.0, 3.0, 4.0]))
    t = raw_tensor([2, 3])
    t.data_location = TensorProto.EXTERNAL
    e = t.external_data.add()
    e.key, e.value = "location", "weights.bin"
    with_init("bad_external", t)
    with_init("bad_negative_dim", raw_tensor([-2, 3]))
    with_init("bad_overflow", raw_tensor([1 << 40, 1 << 40]))

    nodes = [helper.make_node("Add", ["x", "z"], ["y"], name="add1")]
    save("bad_broadcast", model(nodes, [x, vi("z", [4])], [y], check=False))

    nodes = [helper.make_node("Reshape", ["x", "s"], ["y"], name="rs_dynamic")]
    save("bad_dynamic_reshape", model(nodes, [x, vi("s", [2], TensorProto.INT64)], [vi("y", [3, 2])], check=False))

    # W has 3 input channels, X has 2: the IR's shape inference rejects it, naming the node
    nodes = [helper.make_node("Conv", ["x4", "w"], ["y"], name="conv_bad")]
    save("bad_conv_channels", model(nodes, [vi("x4", [1, 2, 5, 5])], [vi("y", [1, 4, 3, 3])],
                                    [init("w", rand(4, 3, 3, 3))], check=False))

    nodes = [helper.make_node("Add", ["x", "x"], ["y"], name="add")]
    save("symbolic_dims", model(nodes, [vi("x", ["batch", "seq", 4])], [vi("y", ["batch", "seq", 4])]))


def gather_constant():
    """Gather with one constant index (a slice view in mxc), next to a general one."""
    x = np.arange(60, dtype=np.float32).reshape(3, 4, 5) - 30.0
    nodes = [helper.make_node("Gather", ["x", "i_scalar"], ["g0"], axis=1, name="take_col"),
             helper.make_node("Mul", ["g0", "two"], ["y0"], name="scale"),
             helper.make_node("Gather", ["x", "i_last"], ["y1"], axis=0, name="take_last"),
             helper.make_node("Gather", ["x", "i_two"], ["y2"], axis=2, name="take_two")]
    inits = [init("i_scalar", np.array(2, np.int64)), init("i_last", np.array([-1], np.int64)),
             init("i_two", np.array([0, 3], np.int64)), init("two", np.array(2, np.float32))]
    m = model(nodes, [vi("x", [3, 4, 5])], [vi("y0", [3, 5]), vi("y1", [1, 4, 5]), vi("y2", [3, 4, 2])], inits)
    save("gather_constant", m, [x], [x[:, 2, :] * 2, x[-1:], x[:, :, [0, 3]]])


def conv_small_planes():
    # Stride-1 3x3 convolutions over small planes with constant weights, which the cpu build
    # runs in the shifted form as one band (templates/cpu/convolution.hpp, conv_shift_form's
    # `whole`) with the weights as the GEMM's row panels: over 14x14 (16 -> 40, bias, relu)
    # and over 7x7 (52 -> 48, bias; its weights folded at build time from a Tile of 12 output
    # channels times a scale per channel, to keep the file small)
    r = np.random.default_rng(20261126)
    x1 = r.standard_normal((1, 16, 14, 14)).astype(np.float32)
    x2 = r.standard_normal((1, 52, 7, 7)).astype(np.float32)
    w1, b1 = r.standard_normal((40, 16, 3, 3)).astype(np.float32), r.standard_normal(40).astype(np.float32)
    w2s, s2 = r.standard_normal((12, 52, 3, 3)).astype(np.float32), r.standard_normal((48, 1, 1, 1)).astype(np.float32)
    b2 = r.standard_normal(48).astype(np.float32)
    w2 = np.tile(w2s, (4, 1, 1, 1)) * s2
    nodes = [helper.make_node("Conv", ["x1", "w1", "b1"], ["c1"], name="conv14", pads=[1, 1, 1, 1]),
             helper.make_node("Relu", ["c1"], ["y1"], name="relu14"),
             helper.make_node("Tile", ["w2s", "reps"], ["w2t"], name="tile7"),
             helper.make_node("Mul", ["w2t", "s2"], ["w2"], name="scale7"),
             helper.make_node("Conv", ["x2", "w2", "b2"], ["y2"], name="conv7", pads=[1, 1, 1, 1])]
    m = model(nodes, [vi("x1", [1, 16, 14, 14]), vi("x2", [1, 52, 7, 7])],
              [vi("y1", [1, 40, 14, 14]), vi("y2", [1, 48, 7, 7])],
              [init("w1", w1), init("b1", b1), init("w2s", w2s), init("s2", s2), init("b2", b2),
               init("reps", np.array([4, 1, 1, 1], np.int64))])
    save("conv_small_planes", m, [x1, x2], [np.maximum(conv2d(x1, w1, b1, [1, 1, 1, 1], [1, 1]), 0),
                                            conv2d(x2, w2, b2, [1, 1, 1, 1], [1, 1])])


def conv_pixel_rows():
    # 1x1 convolutions over small planes with constant weights and output channels a multiple
    # of 16, which the cpu build runs in the pixel-rows form (templates/cpu/convolution.hpp,
    # conv_rows_pointwise: the output pixels as the GEMM's rows, read in place, the weights as
    # strips of output channels): 96 -> 32 over 7x7 (bias, relu) and 24 -> 48 with stride 2
    # from 13x13 to 7x7 (bias)
    r = np.random.default_rng(20261127)
    x1 = r.standard_normal((1, 96, 7, 7)).astype(np.float32)
    x2 = r.standard_normal((1, 24, 13, 13)).astype(np.float32)
    w1, b1 = r.standard_normal((32, 96, 1, 1)).astype(np.float32), r.standard_normal(32).astype(np.float32)
    w2, b2 = r.standard_normal((48, 24, 1, 1)).astype(np.float32), r.standard_normal(48).astype(np.float32)
    nodes = [helper.make_node("Conv", ["x1", "w1", "b1"], ["c1"], name="pw7"),
             helper.make_node("Relu", ["c1"], ["y1"], name="relu7"),
             helper.make_node("Conv", ["x2", "w2", "b2"], ["y2"], name="pw13s2", strides=[2, 2])]
    m = model(nodes, [vi("x1", [1, 96, 7, 7]), vi("x2", [1, 24, 13, 13])],
              [vi("y1", [1, 32, 7, 7]), vi("y2", [1, 48, 7, 7])],
              [init("w1", w1), init("b1", b1), init("w2", w2), init("b2", b2)])
    save("conv_pixel_rows", m, [x1, x2], [np.maximum(conv2d(x1, w1, b1, [0, 0, 0, 0], [1, 1]), 0),
                                          conv2d(x2, w2, b2, [0, 0, 0, 0], [2, 2])])


def conv_transpose():
    # Constant weights, which the cpu build stores as the GEMM's row panels: UNet's up-sampling
    # (2x2 stride 2, bias, relu), a grouped, padded, dilated 3x3 with stride (2, 1), and over a
    # second input, 40 and 20 output channels (two blocks of channels: the second starts past
    # the first panels) in the tiling form and the overlapping one (3x3 stride 2, output_padding)
    r = np.random.default_rng(20261125)
    x = r.standard_normal((2, 8, 5, 6)).astype(np.float32)
    x2 = r.standard_normal((1, 16, 7, 9)).astype(np.float32)
    w0, b0 = r.standard_normal((8, 6, 2, 2)).astype(np.float32), r.standard_normal(6).astype(np.float32)
    w1, b1 = r.standard_normal((8, 3, 3, 3)).astype(np.float32), r.standard_normal(6).astype(np.float32)
    w2, b2 = r.standard_normal((16, 40, 2, 2)).astype(np.float32), r.standard_normal(40).astype(np.float32)
    w3, b3 = r.standard_normal((16, 20, 3, 3)).astype(np.float32), r.standard_normal(20).astype(np.float32)
    nodes = [helper.make_node("ConvTranspose", ["x", "w0", "b0"], ["t0"], name="up", kernel_shape=[2, 2], strides=[2, 2]),
             helper.make_node("Relu", ["t0"], ["y0"], name="up_relu"),
             helper.make_node("ConvTranspose", ["x", "w1", "b1"], ["y1"], name="grouped", group=2, strides=[2, 1],
                              pads=[1, 0, 2, 1], dilations=[1, 2]),
             helper.make_node("ConvTranspose", ["x2", "w2", "b2"], ["y2"], name="wide", strides=[2, 2]),
             helper.make_node("ConvTranspose", ["x2", "w3", "b3"], ["y3"], name="overlap", strides=[2, 2],
                              pads=[1, 1, 1, 1], output_padding=[1, 1])]
    m = model(nodes, [vi("x", [2, 8, 5, 6]), vi("x2", [1, 16, 7, 9])],
              [vi("y0", [2, 6, 10, 12]), vi("y1", [2, 6, 8, 9]), vi("y2", [1, 40, 14, 18]), vi("y3", [1, 20, 14, 18])],
              [init("w0", w0), init("b0", b0), init("w1", w1), init("b1", b1), init("w2", w2), init("b2", b2),
               init("w3", w3), init("b3", b3)])
    save("conv_transpose", m, [x, x2], [np.maximum(conv_transpose2d(x, w0, b0, [0, 0, 0, 0], [2, 2], [1, 1], 1), 0),
                                        conv_transpose2d(x, w1, b1, [1, 0, 2, 1], [2, 1], [1, 2], 2),
                                        conv_transpose2d(x2, w2, b2, [0, 0, 0, 0], [2, 2], [1, 1], 1),
                                        conv_transpose2d(x2, w3, b3, [1, 1, 1, 1], [2, 2], [1, 1], 1, [1, 1])])

if __name__ == "__main__":
    conv_relu()
    conv_strided_same()
    gemm()
    gemm_trans_a()
    matmul()
    reshape_flatten()
    shape_chain()
    concat()
    softmax_models()
    batchnorm()
    pool()
    elementwise()
    squeeze_clip()
    clip_v6()
    reduce()
    unsupported_fine()
    bad_models()
    gather_constant()
    conv_transpose()
    conv_small_planes()
    conv_pixel_rows()
