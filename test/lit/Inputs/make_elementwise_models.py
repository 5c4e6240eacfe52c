# Writes the small models of test/lit/import/elementwise_ops.test (run from this folder):
#   /usr/bin/python3 make_elementwise_models.py
import numpy as np
from onnx import TensorProto, helper, numpy_helper, save


def model(name, nodes, inputs, outputs, inits=(), opset=18):
    g = helper.make_graph(nodes, name, inputs, outputs, list(inits))
    m = helper.make_model(g, opset_imports=[helper.make_opsetid('', opset)])
    m.ir_version = 8
    save(m, name + '.onnx')


def vi(name, t, shape):
    return helper.make_tensor_value_info(name, t, shape)


def ints(name, v):
    return numpy_helper.from_array(np.array(v, dtype=np.int64), name)


F = TensorProto.FLOAT
model('elementwise_ops', [
    helper.make_node('Slice', ['a', 'st', 'en', 'ax', 'sp'], ['s']),
    helper.make_node('Less', ['a', 'b'], ['lt']),
    helper.make_node('Where', ['lt', 'a', 'b'], ['w']),
    helper.make_node('CumSum', ['w', 'one'], ['cs'], reverse=1),
    helper.make_node('ArgMax', ['cs'], ['am'], axis=1, keepdims=0),
], [vi('a', F, [3, 4]), vi('b', F, [4])], [vi('s', F, None), vi('cs', F, None), vi('am', TensorProto.INT64, None)],
    [ints('st', [-1]), ints('en', [-100]), ints('ax', [1]), ints('sp', [-2]), ints('one', 1)])
model('nonzero_dynamic', [helper.make_node('NonZero', ['x'], ['y'])],
      [vi('x', F, [2, 2])], [vi('y', TensorProto.INT64, None)])
model('mod_float_no_fmod', [helper.make_node('Mod', ['x', 'x'], ['y'])],
      [vi('x', F, [2])], [vi('y', F, None)])
