#!/usr/bin/python3
"""Writes the small ONNX models of the control-flow import tests (If, Loop, Scan, sequences,
model-local functions, inputs bound at build time): control_*.onnx. The expected values are
written in the tests themselves (test/lit/import/control_*.test, test/unit/test_import_control.cpp).

Run from anywhere with /usr/bin/python3 (the python with the onnx package):
    /usr/bin/python3 test/lit/Inputs/make_control_models.py
"""
import os

import onnx
from onnx import TensorProto, helper

HERE = os.path.dirname(os.path.abspath(__file__))
F, I64, B = TensorProto.FLOAT, TensorProto.INT64, TensorProto.BOOL


def vi(name, shape, t=F):
    return helper.make_tensor_value_info(name, t, shape)


def model(nodes, inputs, outputs, opset=16, functions=(), extra_opsets=(), check=True):
    g = helper.make_graph(nodes, "g", inputs, outputs)
    opsets = [helper.make_opsetid("", opset)] + [helper.make_opsetid(d, 1) for d in extra_opsets]
    m = helper.make_model(g, opset_imports=opsets, producer_name="mxc-tests", functions=list(functions))
    m.ir_version = 8
    if check:
        onnx.checker.check_model(m)
    return m


def save(name, m):
    with open(os.path.join(HERE, name + ".onnx"), "wb") as f:
        f.write(m.SerializeToString())


def const(name, value, t=I64, dims=()):
    return helper.make_node("Constant", [], [name], value=helper.make_tensor(name, t, list(dims), value))


# If: both branches read x from the enclosing graph; then: x + 1 (shape [2]), else: x
# reshaped to [1, 2] * 2. The condition is a graph input (must be bound at build time, the
# branch shapes differ) or a constant (folded).
def if_model(cond_const):
    then_g = helper.make_graph([const("one", [1.0], F, [1]), helper.make_node("Add", ["x", "one"], ["t"])],
                               "then", [], [vi("t", [2])])
    else_g = helper.make_graph([const("shape", [1, 2], I64, [2]), const("two", [2.0], F, [1]),
                                helper.make_node("Reshape", ["x", "shape"], ["r"]),
                                helper.make_node("Mul", ["r", "two"], ["e"])],
                               "else", [], [vi("e", [1, 2])])
    nodes = [helper.make_node("If", ["c"], ["y"], then_branch=then_g, else_branch=else_g)]
    inputs = [vi("x", [2])]
    if cond_const:
        nodes.insert(0, const("c", [0], B))
    else:
        inputs.append(vi("c", [], B))
    return model(nodes, inputs, [vi("y", None)], check=False)


save("control_if_const", if_model(True))
save("control_if_input", if_model(False))

# Loop: M (a graph input) iterations of acc = acc + x, also stacked as a scan output; the
# condition stays true.
body = helper.make_graph(
    [helper.make_node("Identity", ["cond_in"], ["cond_out"]), helper.make_node("Add", ["acc_in", "x"], ["acc_out"]),
     helper.make_node("Identity", ["acc_out"], ["scan_out"])],
    "body", [vi("i", [], I64), vi("cond_in", [], B), vi("acc_in", [2])],
    [vi("cond_out", [], B), vi("acc_out", [2]), vi("scan_out", [2])])
save("control_loop", model([const("true", [1], B), helper.make_node("Loop", ["M", "true", "acc0"], ["acc", "all"], body=body)],
                           [vi("x", [2]), vi("M", [], I64), vi("acc0", [2])], [vi("acc", [2]), vi("all", [None, 2])]))

# Scan: running sum over the rows of x [3, 2] (state s [2]); the scan output in reverse.
scan_body = helper.make_graph([helper.make_node("Add", ["s_in", "row"], ["s_out"]),
                               helper.make_node("Identity", ["s_out"], ["out"])],
                              "body", [vi("s_in", [2]), vi("row", [2])], [vi("s_out", [2]), vi("out", [2])])
save("control_scan", model([helper.make_node("Scan", ["s0", "x"], ["s", "sums"], body=scan_body, num_scan_inputs=1,
                                             scan_output_directions=[1])],
                           [vi("s0", [2]), vi("x", [3, 2])], [vi("s", [2]), vi("sums", [3, 2])]))

# Sequences: x [3, 2] split into rows; item 1, the length, and the rows stacked again along a
# new axis 1 after erasing the first one.
save("control_sequence", model(
    [helper.make_node("SplitToSequence", ["x"], ["rows"], axis=0, keepdims=0), const("one", [1]),
     helper.make_node("SequenceAt", ["rows", "one"], ["row1"]),
     helper.make_node("SequenceLength", ["rows"], ["n"]),
     const("zero", [0]), helper.make_node("SequenceErase", ["rows", "zero"], ["rest"]),
     helper.make_node("ConcatFromSequence", ["rest"], ["stacked"], axis=1, new_axis=1)],
    [vi("x", [3, 2])], [vi("row1", [2]), vi("n", [], I64), vi("stacked", [2, 2])]))

def ref_node(op, ins, outs, attr, ref, domain=""):
    n = helper.make_node(op, ins, outs, domain=domain)
    n.attribute.add().CopyFrom(helper.AttributeProto(name=attr, ref_attr_name=ref, type=helper.AttributeProto.FLOAT))
    return n


# A model-local function with an attribute reference, called from another function (nested)
# twice: Scale(a) = a * alpha; AddScale(a, b) = Scale(a + b) with alpha = the call's 'alpha'.
scale = helper.make_function("custom", "Scale", ["a"], ["y"], [
    ref_node("Constant", [], ["alpha_t"], "value_float", "alpha"),
    helper.make_node("Mul", ["a", "alpha_t"], ["y"])], [helper.make_opsetid("", 16)], ["alpha"])
add_scale = helper.make_function("custom", "AddScale", ["a", "b"], ["y"], [
    helper.make_node("Add", ["a", "b"], ["t"]),
    ref_node("Scale", ["t"], ["y"], "alpha", "alpha", domain="custom")],
    [helper.make_opsetid("", 16), helper.make_opsetid("custom", 1)], ["alpha"])
save("control_function", model(
    [helper.make_node("AddScale", ["x", "x"], ["t"], domain="custom", alpha=3.0),
     helper.make_node("AddScale", ["t", "x"], ["y"], domain="custom", alpha=0.5)],
    [vi("x", [2])], [vi("y", [2])], functions=[scale, add_scale], extra_opsets=["custom"], check=False))

# Reshape to a shape given as a graph input: it must be bound at build time.
save("control_reshape_input", model([helper.make_node("Reshape", ["x", "s"], ["y"])],
                                    [vi("x", [2, 3]), vi("s", [2], I64)], [vi("y", [3, 2])]))
