# Writes one raw little-endian file per graph input of an ONNX model (floats uniform in
# [-1, 1), integers 0 or 1: valid token ids and mask values; seed 0) into OUT_DIR and prints
# one ORT spec per input, NAME:TYPE:D0xD1:FILE, in graph order. Used by bench/cpu/run.sh.
#   /usr/bin/python3 bench/cpu/make_inputs.py MODEL.onnx OUT_DIR
import os
import sys

import numpy as np
import onnx

model, out_dir = sys.argv[1], sys.argv[2]
g = onnx.load(model, load_external_data=False).graph
init = {t.name for t in g.initializer}
types = {1: ("float32", np.float32), 7: ("int64", np.int64), 6: ("int32", np.int32), 11: ("float64", np.float64)}
rng = np.random.default_rng(0)
os.makedirs(out_dir, exist_ok=True)
for i in g.input:
    if i.name in init:
        continue
    tt = i.type.tensor_type
    name, dt = types[tt.elem_type]
    dims = [d.dim_value if d.dim_value > 0 else 1 for d in tt.shape.dim]
    if np.issubdtype(dt, np.floating):
        v = rng.uniform(-1, 1, dims).astype(dt)
    else:
        v = rng.integers(0, 2, dims).astype(dt)
    f = os.path.join(out_dir, i.name + ".bin")
    v.tofile(f)
    print("%s:%s:%s:%s" % (i.name, name, "x".join(map(str, dims)), f))
