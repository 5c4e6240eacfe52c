#!/usr/bin/env bash
# A model over 2 GB through external data: a Gather from a 2 GiB + 4 KiB embedding table kept in a
# sparse file beside the model (generated here in a temporary directory, removed at the end)
# imports. No large file is committed; the sparse file takes no disk space.
# usage: external_data_2gb.sh BUILD_DIR
set -euo pipefail
build=$(cd "$1" && pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
avail_kb=$(awk '/MemAvailable/ {print $2}' /proc/meminfo)
if [ "${avail_kb:-0}" -lt 6000000 ]; then echo "SKIP: less than 6 GB of memory available"; exit 77; fi
/usr/bin/python3 - "$tmp" <<'PY'
import os, sys
from onnx import TensorProto, helper
d = sys.argv[1]
rows, cols = (1 << 19) + 1, 1024         # float32: 2 GiB + 4 KiB
with open(os.path.join(d, "table.bin"), "wb") as f:
    f.truncate(16 + rows * cols * 4)       # sparse: 16 bytes of header, then the table
t = TensorProto(name="table", data_type=TensorProto.FLOAT, dims=[rows, cols])
t.data_location = TensorProto.EXTERNAL
for k, v in (("location", "table.bin"), ("offset", "16"), ("length", str(rows * cols * 4))):
    e = t.external_data.add(); e.key, e.value = k, v
g = helper.make_graph([helper.make_node("Gather", ["table", "idx"], ["y"], name="lookup")], "big",
                      [helper.make_tensor_value_info("idx", TensorProto.INT64, [4])],
                      [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4, cols])], initializer=[t])
m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]); m.ir_version = 8
open(os.path.join(d, "big.onnx"), "wb").write(m.SerializeToString())
PY
out=$("$build/mxc" read "$tmp/big.onnx")
echo "$out" | grep -q "float_type, {524289, 1024}" || { echo "FAIL: the table did not import:"; echo "$out" | head; exit 1; }
echo "$out" | grep -q "gather" || { echo "FAIL: no gather:"; echo "$out" | head; exit 1; }
echo "imported a model with over 2 GiB of external weights"
