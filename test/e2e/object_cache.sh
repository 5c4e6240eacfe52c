#!/usr/bin/env bash
# The build caches (compiler/object_cache.hpp, compiler/build_cache.hpp): a first build compiles
# every translation unit into the cache, a rebuild of the unchanged model comes from the
# whole-build cache (nothing imported, nothing compiled: fast), one with a variable the build
# reads set otherwise, or of a model changed at the same path, or under another --name, is built
# again (the same kernels' objects found in the cache), a rebuild over its own unchanged library
# leaves that file alone, --no-cache and MXC_CACHE_DIR=off use no cache, and -j 1 builds the
# same library as the default.
# usage: object_cache.sh BUILD_DIR
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "$1" && pwd)
mxc=$build/mxc
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export MXC_CACHE_DIR=$tmp/cache
objects() { grep -o '"objects": {[^}]*}' "$1"; }
fail() { echo "FAIL: $*"; exit 1; }

mkdir -p "$tmp/a"
"$mxc" "$root/examples/cnn.onnx" -o "$tmp/a/libcnn.so" --name cnn -q --report "$tmp/cold.json"
objects "$tmp/cold.json" | grep -q '"built": [1-9][0-9]*, "cached": 0' || fail "cold build: $(objects "$tmp/cold.json")"
n=$(ls "$tmp/cache"/*.o | wc -l)
[ "$n" -ge 2 ] || fail "the cache holds $n objects"
ls "$tmp/cache"/*.so >/dev/null || fail "the linked library is not cached"

start=$(date +%s.%N)
"$mxc" "$root/examples/cnn.onnx" -o "$tmp/a/libcnn2.so" --name cnn -q --report "$tmp/warm.json"
warm=$(echo "$(date +%s.%N) - $start" | bc)
objects "$tmp/warm.json" | grep -q '"built": 0, "cached": [1-9]' || fail "warm build: $(objects "$tmp/warm.json")"
grep -q '"seconds": {"cache": ' "$tmp/warm.json" || fail "the warm build did not come from the whole-build cache"
cmp "$tmp/a/libcnn.so" "$tmp/a/libcnn2.so" || fail "the cached library differs"
cmp "$tmp/a/libcnn.h" "$tmp/a/libcnn2.h" || fail "the cached header differs"
[ "$(echo "$warm < 10" | bc)" = 1 ] || fail "the warm build took ${warm}s"

# Built again, not from the whole-build cache: a variable the build reads, set otherwise; the
# model changed at the same path (a copy with one weight byte changed).
MXC_FUSE_ATTENTION=0 "$mxc" "$root/examples/cnn.onnx" -o "$tmp/a/libcnn2.so" --name cnn -q --report "$tmp/env.json"
grep -q '"seconds": {"import": ' "$tmp/env.json" || fail "MXC_FUSE_ATTENTION=0 rebuilt from the whole-build cache"
objects "$tmp/env.json" | grep -q '"built": 0, "cached": [1-9]' || fail "the same kernels were compiled again: $(objects "$tmp/env.json")"
cp "$root/examples/cnn.onnx" "$tmp/model.onnx"
"$mxc" "$tmp/model.onnx" -o "$tmp/a/libm.so" --name cnn -q
size=$(stat -c %s "$tmp/model.onnx")
printf '\x7f' | dd of="$tmp/model.onnx" bs=1 seek=$((size - 100)) conv=notrunc 2>/dev/null
"$mxc" "$tmp/model.onnx" -o "$tmp/a/libm.so" --name cnn -q --report "$tmp/changed.json" ||
  fail "the changed model does not build"
grep -q '"seconds": {"import": ' "$tmp/changed.json" || fail "a changed model was rebuilt from the whole-build cache"

# Rebuilt over its own unchanged library: the file is left as it is (same inode, not written
# again: a model's weights can be hundreds of MB), its time set to now; a library that differs
# (here: truncated) is replaced.
inode=$(stat -c %i "$tmp/a/libcnn.so")
touch -d '2001-01-01' "$tmp/a/libcnn.so"
"$mxc" "$root/examples/cnn.onnx" -o "$tmp/a/libcnn.so" --name cnn -q
[ "$(stat -c %i "$tmp/a/libcnn.so")" = "$inode" ] || fail "an unchanged library was written again"
[ "$(stat -c %Y "$tmp/a/libcnn.so")" -gt "$(date -d '2020-01-01' +%s)" ] || fail "an unchanged library kept its old time"
cmp "$tmp/a/libcnn.so" "$tmp/a/libcnn2.so" || fail "the kept library differs"
truncate -s 100 "$tmp/a/libcnn2.so"
"$mxc" "$root/examples/cnn.onnx" -o "$tmp/a/libcnn2.so" --name cnn -q
cmp "$tmp/a/libcnn.so" "$tmp/a/libcnn2.so" || fail "a damaged library was not replaced"

# The same kernels under another --name: new objects.
"$mxc" "$root/examples/cnn.onnx" -o "$tmp/a/libother.so" -q --report "$tmp/other.json"
objects "$tmp/other.json" | grep -q '"built": [1-9]' || fail "a different model hit the cache: $(objects "$tmp/other.json")"

"$mxc" "$root/examples/cnn.onnx" -o "$tmp/a/libcnn3.so" --name cnn -q --no-cache -j 1 --report "$tmp/none.json"
objects "$tmp/none.json" | grep -q '"cached": 0' || fail "--no-cache used the cache: $(objects "$tmp/none.json")"
cmp "$tmp/a/libcnn.so" "$tmp/a/libcnn3.so" || fail "-j 1 --no-cache built a different library"
before=$(ls "$tmp/cache" | wc -l)
MXC_CACHE_DIR=off "$mxc" "$root/examples/cnn.onnx" -o "$tmp/a/libcnn4.so" --name cnn -q --report "$tmp/off.json"
objects "$tmp/off.json" | grep -q '"cached": 0' || fail "MXC_CACHE_DIR=off used the cache"
[ "$(ls "$tmp/cache" | wc -l)" = "$before" ] || fail "MXC_CACHE_DIR=off wrote into a cache"
echo "cold: $(objects "$tmp/cold.json"); warm: $(objects "$tmp/warm.json") in ${warm}s; identical libraries"
