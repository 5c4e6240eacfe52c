#!/usr/bin/env bash
# The generated cpu library under sanitizers: examples/cnn.onnx built with
# MXC_CPU_CFLAGS=-fsanitize=address,undefined runs the example program (same output as the
# plain build); built with -fsanitize=thread it runs the concurrency test (test/e2e/threads.c);
# the plain build fails create cleanly when allocations fail (test/e2e/oom.c).
# usage: library_sanitizers.sh BUILD_DIR
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "$1" && pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
command -v cc >/dev/null || { echo "SKIP: no C compiler (cc)"; exit 77; }
compile() { # DIR FLAGS
  mkdir -p "$tmp/$1"
  MXC_CPU_CFLAGS="$2" "$build/mxc" "$root/examples/cnn.onnx" -o "$tmp/$1/libcnn.so" --name cnn -q
}
compile plain ""
cc -O1 -o "$tmp/plain/classify" "$root/examples/classify.c" -I"$tmp/plain" -L"$tmp/plain" -lcnn -Wl,-rpath,"$tmp/plain"
"$tmp/plain/classify" "$root/examples/input.bin" >"$tmp/plain.txt"

san="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
compile asan "$san"
cc -O1 -g $san -o "$tmp/asan/classify" "$root/examples/classify.c" -I"$tmp/asan" -L"$tmp/asan" -lcnn -Wl,-rpath,"$tmp/asan"
ASAN_OPTIONS=detect_leaks=1 "$tmp/asan/classify" "$root/examples/input.bin" >"$tmp/asan.txt"
diff "$tmp/plain.txt" "$tmp/asan.txt"
echo "asan+ubsan: the example runs clean, same output"

compile tsan "-fsanitize=thread"
cc -O1 -g -fsanitize=thread -o "$tmp/tsan/threads" "$root/test/e2e/threads.c" -I"$tmp/tsan" -L"$tmp/tsan" -lcnn \
  -Wl,-rpath,"$tmp/tsan" -lpthread
TSAN_OPTIONS=halt_on_error=1 "$tmp/tsan/threads" "$root/examples/input.bin"
cc -O1 -o "$tmp/plain/threads" "$root/test/e2e/threads.c" -I"$tmp/plain" -L"$tmp/plain" -lcnn -Wl,-rpath,"$tmp/plain" -lpthread
"$tmp/plain/threads" "$root/examples/input.bin"

cc -O1 -o "$tmp/plain/oom" "$root/test/e2e/oom.c" -I"$tmp/plain" -L"$tmp/plain" -lcnn -Wl,-rpath,"$tmp/plain"
"$tmp/plain/oom"
