#!/usr/bin/python3
# Builds the tiny ONNX test directories the conformance runner's lit tests run:
#   /usr/bin/python3 test/lit/Inputs/conformance/make_tests.py
# Each is model.onnx + test_data_set_0/input_K.pb, output_K.pb, like the ONNX backend data.
import os
import shutil

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))


def write(name, nodes, inputs, outputs, feeds, expected, opset=13, domains=()):
    d = os.path.join(HERE, name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(os.path.join(d, 'test_data_set_0'))
    graph = helper.make_graph(nodes, name, inputs, outputs)
    imports = [helper.make_opsetid('', opset)] + [helper.make_opsetid(x, 1) for x in domains]
    model = helper.make_model(graph, opset_imports=imports, producer_name='mxc-tests')
    model.ir_version = 8
    onnx.save(model, os.path.join(d, 'model.onnx'))
    for prefix, arrays, infos in (('input', feeds, inputs), ('output', expected, outputs)):
        for k, (a, vi) in enumerate(zip(arrays, infos)):
            t = numpy_helper.from_array(a, vi.name)
            with open(os.path.join(d, 'test_data_set_0', '%s_%d.pb' % (prefix, k)), 'wb') as f:
                f.write(t.SerializeToString())


rng = np.random.default_rng(7)
a = rng.standard_normal((2, 3)).astype(np.float32)
b = rng.standard_normal((2, 3)).astype(np.float32)
f23 = lambda n: helper.make_tensor_value_info(n, TensorProto.FLOAT, [2, 3])
add = [helper.make_node('Add', ['a', 'b'], ['y'])]

# Passes: float Add.
write('test_add', add, [f23('a'), f23('b')], [f23('y')], [a, b], [a + b])
# Fails: the stored output is off by 0.5 at [1, 2].
wrong = (a + b).copy()
wrong[1, 2] += 0.5
write('test_add_wrong', add, [f23('a'), f23('b')], [f23('y')], [a, b], [wrong])
# Passes: int64 Mul, compared exactly.
i64 = lambda n: helper.make_tensor_value_info(n, TensorProto.INT64, [4])
x = np.array([3, -2, 1 << 40, 7], dtype=np.int64)
z = np.array([5, 9, 3, -1], dtype=np.int64)
write('test_mul_int64', [helper.make_node('Mul', ['x', 'z'], ['y'])], [i64('x'), i64('z')], [i64('y')], [x, z], [x * z])
# Passes: a symbolic batch dimension, fixed from the test's input shape.
dyn = lambda n: helper.make_tensor_value_info(n, TensorProto.FLOAT, ['N', 3])
r = rng.standard_normal((5, 3)).astype(np.float32)
write('test_relu_dynamic_batch', [helper.make_node('Relu', ['x'], ['y'])], [dyn('x')], [dyn('y')], [r],
      [np.maximum(r, 0)])
# Unsupported: an op of a custom domain.
write('test_custom_op', [helper.make_node('Frobnicate', ['a'], ['y'], domain='com.example')], [f23('a')],
      [f23('y')], [a], [a], domains=('com.example',))

# Slow (a 2000^3 MatMul of an expanded input), for the time limit: in its own folder.
HERE = os.path.join(os.path.dirname(HERE), 'conformance-slow')
one = lambda n: helper.make_tensor_value_info(n, TensorProto.FLOAT, [1, 1])
scalar = helper.make_tensor_value_info('y', TensorProto.FLOAT, [])
shape = helper.make_tensor('shape', TensorProto.INT64, [2], [2000, 2000])
nodes = [helper.make_node('Constant', [], ['shape'], value=shape),
         helper.make_node('Expand', ['x', 'shape'], ['e']),
         helper.make_node('MatMul', ['e', 'e'], ['m']),
         helper.make_node('ReduceSum', ['m'], ['y'], keepdims=0)]
write('test_slow_matmul', nodes, [one('x')], [scalar], [np.ones((1, 1), np.float32)],
      [np.array(8e9, np.float32)])
