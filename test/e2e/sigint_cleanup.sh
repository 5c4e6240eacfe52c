#!/usr/bin/env bash
# Ctrl-C: SIGINT to a compile in progress (its C++ compiler is running) leaves no private
# temporary directory, no temporary output and no output behind, and mxc dies of the signal.
# usage: sigint_cleanup.sh BUILD_DIR
set -euo pipefail
set -m   # job control: a background job keeps SIGINT (otherwise bash makes it ignore it)
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "$1" && pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/tmp" "$tmp/out"
printf '#!/bin/sh\nexec sleep 300\n' >"$tmp/slow-cxx"; chmod +x "$tmp/slow-cxx"
for sig in INT TERM; do
  # env --default-signal: a test command started in the background (or under nohup) inherits
  # SIGINT ignored, and mxc rightly keeps an ignored SIGINT ignored; give it the default back.
  TMPDIR="$tmp/tmp" CXX="$tmp/slow-cxx" env --default-signal=INT,TERM \
    "$build/mxc" "$root/examples/cnn.onnx" -o "$tmp/out/libcnn.so" -q &
  pid=$!
  for _ in $(seq 200); do   # wait until the compiler runs inside the private directory
    pgrep -P "$pid" >/dev/null 2>&1 && break; sleep 0.05
  done
  pgrep -P "$pid" >/dev/null || { echo "FAIL: the compiler never started"; exit 1; }
  [ -n "$(ls -A "$tmp/tmp")" ] || { echo "FAIL: no private temporary directory while compiling"; exit 1; }
  [ -n "$(ls -A "$tmp/out")" ] || { echo "FAIL: no temporary output while compiling"; exit 1; }
  kill -s "$sig" "$pid"
  for _ in $(seq 200); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
  if kill -0 "$pid" 2>/dev/null; then
    pkill -KILL -P "$pid"; kill -KILL "$pid"; wait "$pid" 2>/dev/null
    echo "FAIL: SIG$sig: mxc still running 10 s after the signal"; exit 1
  fi
  rc=0; wait "$pid" || rc=$?
  [ "$rc" -ge 128 ] || { echo "FAIL: SIG$sig: mxc exited with $rc, not by the signal"; exit 1; }
  left=$(ls -A "$tmp/tmp" "$tmp/out")
  if [ -n "$(ls -A "$tmp/tmp")$(ls -A "$tmp/out")" ]; then echo "FAIL: SIG$sig left: $left"; exit 1; fi
done
echo "SIGINT and SIGTERM during a build leave nothing behind"
