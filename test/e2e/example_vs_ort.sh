#!/usr/bin/env bash
# End to end: compile examples/cnn.onnx for the cpu target, run the library through the
# generic harness on the bundled input, and compare with ONNX Runtime on the same input.
# usage: example_vs_ort.sh BUILD_DIR
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "$1" && pwd)
if [ ! -d "$root/tools/ort/node_modules/onnxruntime-node" ]; then
  echo "SKIP: onnxruntime-node is not installed (tools/setup.sh installs it from npm)"; exit 77
fi
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
"$build/mxc" "$root/examples/cnn.onnx" -o "$tmp/libcnn.so" --target cpu -q
cc -O1 -o "$tmp/harness" "$root/test/e2e/harness.c" -ldl
mkdir -p "$tmp/mxc" "$tmp/ort"
"$tmp/harness" "$tmp/libcnn.so" cnn "$tmp/mxc" "$root/examples/input.bin" >/dev/null
node "$root/tools/ort/run.js" "$root/examples/cnn.onnx" "$tmp/ort" "image:float32:1x3x32x32:$root/examples/input.bin" >/dev/null
/usr/bin/python3 "$root/test/e2e/compare.py" "$tmp/mxc/output_0.bin" "$tmp/ort/probs.bin" float32 --rtol 1e-4 --atol 1e-6
