#!/usr/bin/env bash
# The README's first command: build mxc, compile the bundled example model to a library,
# link a small C program against it, run it and print the top-5 classes.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/setup.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
ninja -C build mxc
mkdir -p out
build/mxc examples/cnn.onnx -o out/libcnn.so --target cpu --report out/cnn-report.json
cc -O2 -o out/classify examples/classify.c -Iout -Lout -lcnn -Wl,-rpath,'$ORIGIN'
echo "== ldd out/libcnn.so"
ldd out/libcnn.so
echo "== out/classify"
out/classify examples/input.bin
