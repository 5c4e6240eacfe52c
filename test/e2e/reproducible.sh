#!/usr/bin/env bash
# Reproducible builds: compiling examples/cnn.onnx twice (different temporary directories,
# different -o paths) gives byte-identical generated sources and a byte-identical library.
# usage: reproducible.sh BUILD_DIR
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "$1" && pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
for run in one two; do
  mkdir -p "$tmp/$run/tmp" "$tmp/$run/out-$run"
  TMPDIR="$tmp/$run/tmp" "$build/mxc" "$root/examples/cnn.onnx" -o "$tmp/$run/out-$run/libcnn.so" \
    --name cnn --emit-src "$tmp/$run/src" -q
done
cmp "$tmp/one/out-one/libcnn.so" "$tmp/two/out-two/libcnn.so"
cmp "$tmp/one/out-one/libcnn.h" "$tmp/two/out-two/libcnn.h"
diff -r "$tmp/one/src" "$tmp/two/src"
n=$(find "$tmp/one/src" -type f | wc -l)
[ "$n" -gt 5 ] || { echo "FAIL: only $n generated files"; exit 1; }
echo "identical library, header and $n generated source files"
