#!/usr/bin/env bash
# Reproducible builds: compiling examples/cnn.onnx three times (different temporary
# directories, different -o paths; without the object cache, into an empty cache, and from
# that cache) gives byte-identical generated sources and a byte-identical library.
# usage: reproducible.sh BUILD_DIR
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "$1" && pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
for run in one two three; do
  mkdir -p "$tmp/$run/tmp" "$tmp/$run/out-$run"
  cache=(); [ $run = one ] && cache=(--no-cache)
  MXC_CACHE_DIR="$tmp/cache" TMPDIR="$tmp/$run/tmp" "$build/mxc" "$root/examples/cnn.onnx" -o "$tmp/$run/out-$run/libcnn.so" \
    --name cnn --emit-src "$tmp/$run/src" -q "${cache[@]}"
done
for run in two three; do
  cmp "$tmp/one/out-one/libcnn.so" "$tmp/$run/out-$run/libcnn.so"
  cmp "$tmp/one/out-one/libcnn.h" "$tmp/$run/out-$run/libcnn.h"
  diff -r "$tmp/one/src" "$tmp/$run/src"
done
n=$(find "$tmp/one/src" -type f | wc -l)
[ "$n" -gt 5 ] || { echo "FAIL: only $n generated files"; exit 1; }
echo "identical library, header and $n generated source files (no cache, cold cache, warm cache)"
