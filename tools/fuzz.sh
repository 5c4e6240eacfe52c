#!/usr/bin/env bash
# Builds the libFuzzer harnesses (test/fuzz, clang-14, ASan+UBSan, -DMXC_FUZZ=ON) and runs each
# for SECONDS. Seed corpora are collected at run time (never copied into the repo): small
# model.onnx files and input_*.pb tensors from ../shared/onnx-tests, the models of
# test/lit/Inputs and the .mxir programs of test/lit. New inputs found go to
# BUILD/corpus/NAME, crashes to BUILD/crashes/. Prints one line per harness:
#   fuzz NAME: N runs, cov C, ft F, corpus K, crashes X
# and ends with "fuzz: P passed, F failed" (a harness fails on a crash, leak or timeout).
# usage: tools/fuzz.sh [SECONDS] [HARNESS...]    (env: MXC_FUZZ_BUILD_DIR, default build-asan)
set -uo pipefail
cd "$(dirname "$0")/.."
secs=${1:-30}; shift || true
BUILD=${MXC_FUZZ_BUILD_DIR:-build-asan}
tests=$(cd ../shared/onnx-tests 2>/dev/null && pwd || true)
if [ ! -f "$BUILD/build.ninja" ]; then
  CC=clang-14 CXX=clang++-14 cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DMXC_FUZZ=ON -DMXC_SANITIZE=ON >/dev/null || exit 1
fi
harnesses=("$@")
if [ ${#harnesses[@]} -eq 0 ]; then
  harnesses=(onnx text_ir)
  [ -f compiler/tensor_io.hpp ] && harnesses+=(tensor_io)
fi
ninja -C "$BUILD" -j "${MXC_JOBS:-$(nproc)}" "${harnesses[@]/#/fuzz_}" >/dev/null || { echo "fuzz: build failed"; exit 1; }

# Seeds: rebuilt each run in BUILD/seeds/NAME.
seeds() {
  local name=$1 dir="$BUILD/seeds/$1"; rm -rf "$dir"; mkdir -p "$dir"
  case $name in
    onnx)
      cp test/lit/Inputs/*.onnx "$dir/" 2>/dev/null
      [ -n "$tests" ] && find "$tests" -name model.onnx -size -8k | sort | while read -r f; do
        cp "$f" "$dir/$(echo "$f" | md5sum | cut -c1-16).onnx"; done ;;
    text_ir)
      find test/lit -name '*.mxir' -not -path '*/Inputs/*' | while read -r f; do cp "$f" "$dir/$(basename "$f")"; done ;;
    tensor_io) # the first byte picks the reader: 0 .npy, 1 .pb, 2 JSON, 3 inline array
      local i=0
      for f in test/lit/Inputs/*.npy; do { printf '\x00'; cat "$f"; } >"$dir/npy$((i++))"; done
      [ -n "$tests" ] && find "$tests" -name 'input_*.pb' -size -4k | sort | head -400 | while read -r f; do
        { printf '\x01'; cat "$f"; } >"$dir/pb-$(echo "$f" | md5sum | cut -c1-16)"; done
      printf '\x02{"x": {"shape": [2, 2], "type": "float32", "raw": [1, 2, 3, 4]}}' >"$dir/json0"
      printf '\x03[[1, 2.5], [-3e2, 4]]' >"$dir/inline0" ;;
  esac
}

# The harnesses run side by side, MXC_JOBS (default: one per CPU) at a time; each is one
# process on one core, so the wall time is about SECONDS per batch.
fuzz_one() {
  local h=$1 log="$BUILD/fuzz-$1.log"
  seeds "$h"
  mkdir -p "$BUILD/corpus/$h"
  ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 UBSAN_OPTIONS=print_stacktrace=1 \
    "$BUILD/fuzz_$h" -max_total_time="$secs" -timeout=25 -rss_limit_mb=3072 -malloc_limit_mb=2048 \
    -max_len=65536 -print_final_stats=1 -artifact_prefix="$BUILD/crashes/$h-" \
    "$BUILD/corpus/$h" "$BUILD/seeds/$h" >"$log" 2>&1
  echo $? >"$log.rc"
}
mkdir -p "$BUILD/crashes"
jobs_max=${MXC_JOBS:-$(nproc)}
for h in "${harnesses[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do wait -n; done
  fuzz_one "$h" &
done
wait
passed=0; failed=0
for h in "${harnesses[@]}"; do
  log="$BUILD/fuzz-$h.log"
  rc=$(cat "$log.rc" 2>/dev/null || echo 1)
  runs=$(grep -oP 'stat::number_of_executed_units: *\K[0-9]+' "$log" | tail -1)
  stats=$(grep -oP '(cov|ft|corp): *[0-9]+' "$log" | tail -3 | tr '\n' ' ')
  crashes=$(grep -c "^==[0-9]*==ERROR\|runtime error:\|ERROR: libFuzzer" "$log")
  echo "fuzz $h: ${runs:-0} runs, ${stats}crashes $crashes (exit $rc, log $log)"
  if [ "$rc" -eq 0 ] && [ "$crashes" -eq 0 ]; then passed=$((passed + 1)); else
    failed=$((failed + 1)); grep -m5 -A12 "ERROR\|runtime error" "$log"; fi
done
echo "fuzz: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
