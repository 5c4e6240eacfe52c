#!/usr/bin/python3
"""Writes hostile and broken ONNX models (and external data files) into OUTDIR, for the
robustness tests. Nothing here is committed as a binary: the tests run this at test time.
    /usr/bin/python3 make_hostile.py OUTDIR
Layout: OUTDIR/model/*.onnx (+ weights files), OUTDIR/outside/ (a folder beside the model's).
"""
import os
import sys

import numpy as np
from onnx import TensorProto, helper

F = TensorProto.FLOAT
out = sys.argv[1]
mdir = os.path.join(out, "model")
odir = os.path.join(out, "outside")
os.makedirs(mdir, exist_ok=True)
os.makedirs(odir, exist_ok=True)
os.makedirs(os.path.join(mdir, "sub"), exist_ok=True)


def model(nodes, inputs, outputs, inits=(), opsets=(("", 13),)):
    g = helper.make_graph(nodes, "g", inputs, outputs, initializer=list(inits))
    m = helper.make_model(g, opset_imports=[helper.make_opsetid(d, v) for d, v in opsets])
    m.ir_version = 8
    return m


def save(name, m):
    with open(os.path.join(mdir, name + ".onnx"), "wb") as f:
        f.write(m.SerializeToString())


def vi(name, shape, t=F):
    return helper.make_tensor_value_info(name, t, shape)


x, y = vi("x", [2, 3]), vi("y", [2, 3])


def add_init(name, t):  # y = x + w
    save(name, model([helper.make_node("Add", ["x", t.name], ["y"], name="add_w")], [x], [y], [t]))


def ext_tensor(location, dims=(2, 3), offset=None, length=None):
    t = TensorProto(name="w", data_type=F, dims=list(dims))
    t.data_location = TensorProto.EXTERNAL
    for k, v in (("location", location), ("offset", offset), ("length", length)):
        if v is not None:
            e = t.external_data.add()
            e.key, e.value = k, str(v)
    return t


w = np.arange(6, dtype=np.float32)
payload = b"HEAD" + w.tobytes()  # the tensor at offset 4
for d in (mdir, odir, os.path.join(mdir, "sub")):
    with open(os.path.join(d, "weights.bin"), "wb") as f:
        f.write(payload)
with open(os.path.join(mdir, "short.bin"), "wb") as f:
    f.write(payload[:14])
if not os.path.lexists(os.path.join(mdir, "link.bin")):
    os.symlink(os.path.join(odir, "weights.bin"), os.path.join(mdir, "link.bin"))

add_init("ext_ok", ext_tensor("weights.bin", offset=4, length=24))
add_init("ext_subdir", ext_tensor("sub/weights.bin", offset=4))
add_init("ext_absolute", ext_tensor(os.path.join(odir, "weights.bin"), offset=4))
add_init("ext_dotdot", ext_tensor("../outside/weights.bin", offset=4))
add_init("ext_symlink", ext_tensor("link.bin", offset=4))
add_init("ext_short", ext_tensor("short.bin", offset=4))
add_init("ext_length", ext_tensor("weights.bin", offset=4, length=20))
add_init("ext_missing", ext_tensor("nothing.bin"))
add_init("ext_nolocation", ext_tensor(""))
add_init("ext_badoffset", ext_tensor("weights.bin", offset="-4"))

# Wrong field types: a Relu whose attribute is a string where an int is expected, and a
# Transpose whose perm is a float list; a graph input that is a sequence, not a tensor.
save("wrong_attr_type", model([helper.make_node("Softmax", ["x"], ["y"], name="sm", axis="one")], [x], [y]))
save("wrong_attr_floats", model([helper.make_node("Transpose", ["x"], ["y"], name="tr", perm=[1.0, 0.0])],
                                [x], [vi("y", [3, 2])]))
seq = helper.make_value_info("s", helper.make_sequence_type_proto(helper.make_tensor_type_proto(F, [2])))
save("wrong_input_kind", model([helper.make_node("Relu", ["s"], ["y"], name="r")], [seq], [y]))
save("wrong_elem_type", model([helper.make_node("Relu", ["x"], ["y"], name="r")], [vi("x", [2, 3], 1000)], [y]))
t = TensorProto(name="w", data_type=F, dims=[2, 3])
t.int64_data.extend([1, 2, 3, 4, 5, 6])  # float tensor with its values in the int64 field
add_init("wrong_data_field", t)

# Graph structure.
save("missing_initializer", model([helper.make_node("Add", ["x", "w"], ["y"], name="add_w")], [x], [y]))
save("duplicate_input", model([helper.make_node("Relu", ["x"], ["y"], name="r")], [x, x], [y]))
t = helper.make_tensor("w", F, [2, 3], np.zeros(6, np.float32))
save("duplicate_initializer", model([helper.make_node("Add", ["x", "w"], ["y"], name="add_w")], [x], [y], [t, t]))
save("self_loop", model([helper.make_node("Add", ["x", "a"], ["a"], name="loop"),
                         helper.make_node("Relu", ["a"], ["y"], name="r")], [x], [y]))
save("no_outputs", model([helper.make_node("Relu", ["x"], ["y"], name="r")], [x], []))
save("dangling_output", model([helper.make_node("Relu", ["x"], ["y"], name="r")], [x], [vi("z", [2, 3])]))

# Dimensions.
save("zero_dim_input", model([helper.make_node("Relu", ["x"], ["y"], name="r")], [vi("x", [0, 3])], [vi("y", [0, 3])]))
add_init("zero_dim_init", TensorProto(name="w", data_type=F, dims=[0, 3]))
save("negative_dim_input", model([helper.make_node("Relu", ["x"], ["y"], name="r")], [vi("x", [2, -3])], [y]))
save("huge_dim_input", model([helper.make_node("Relu", ["x"], ["y"], name="r")],
                             [vi("x", [1 << 31, 1 << 31, 4])], [y]))
add_init("huge_bytes_init", TensorProto(name="w", data_type=TensorProto.DOUBLE, dims=[1 << 31, 1 << 31]))
# An Expand whose constant shape makes the output's byte size overflow: the Expand's error.
big = helper.make_tensor("shape", TensorProto.INT64, [4], [1 << 31, 1 << 31, 2, 3])
save("huge_expand", model([helper.make_node("Expand", ["x", "shape"], ["y"], name="big_expand")], [x], [y], [big]))

# Domains and opsets.
save("opset_too_new", model([helper.make_node("Relu", ["x"], ["y"], name="r")], [x], [y], opsets=(("", 99),)))
save("unknown_domain", model([helper.make_node("Relu", ["x"], ["y"], name="r", domain="com.acme")], [x], [y],
                             opsets=(("", 13), ("com.acme", 1))))
save("no_default_opset", model([helper.make_node("Relu", ["x"], ["y"], name="r")], [x], [y],
                               opsets=(("com.acme", 1),)))

# Bytes that are not a model.
good = model([helper.make_node("Relu", ["x"], ["y"], name="r")], [x], [y]).SerializeToString()
with open(os.path.join(mdir, "truncated.onnx"), "wb") as f:
    f.write(good[: len(good) // 2])
with open(os.path.join(mdir, "random.onnx"), "wb") as f:
    f.write(np.random.default_rng(7).integers(0, 256, 4096, dtype=np.uint8).tobytes())
open(os.path.join(mdir, "empty.onnx"), "wb").close()

# Found by fuzz_onnx: an int64 constant near INT64_MAX went through double (undefined cast).
axes = helper.make_tensor("axes", TensorProto.INT64, [1], [(1 << 63) - 1])
save("int64_max_axes", model([helper.make_node("Squeeze", ["x", "axes"], ["y"], name="sq")], [x], [y], [axes]))

# Range is built as a constant: a hostile length is an error before anything is allocated,
# and start/limit/delta at the ends of int64 do not overflow.
def range_model(name, t, start, limit, delta):
    ins = [helper.make_tensor(n, t, [], [v]) for n, v in (("a", start), ("b", limit), ("d", delta))]
    save(name, model([helper.make_node("Range", ["a", "b", "d"], ["y"], name="rg")], [], [vi("y", None, t)], ins))


range_model("range_huge_float", F, 0.0, 3e38, 1e-30)
range_model("range_nan", F, 0.0, float("nan"), 1.0)
range_model("range_int64_ends", TensorProto.INT64, -(1 << 63), (1 << 63) - 1, 1)
range_model("range_int64_ends_neg", TensorProto.INT64, (1 << 63) - 1, -(1 << 63), -(1 << 62))

# Attention (opset 23) on integer Q, K and V: an error naming the node (the fuzzer's model
# padded its mask with -inf converted to int8, undefined behaviour).
q8 = vi("q", [1, 2, 4, 8], TensorProto.INT8)
save("attention_int8", model([helper.make_node("Attention", ["q", "q", "q", "m"], ["y"], name="att")],
                             [q8, vi("m", [4, 2], TensorProto.BOOL)], [vi("y", None, TensorProto.INT8)], opsets=(("", 23),)))
