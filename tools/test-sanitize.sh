#!/usr/bin/env bash
# The sanitizer flavour of the test command: builds mxc, its unit tests and the fuzz harnesses
# with clang-14, AddressSanitizer + UndefinedBehaviorSanitizer (BUILD, default build-asan;
# ccache), then runs
#   - the unit and in-process end-to-end tests (gtest filter MXC_SANITIZE_FILTER, default: all
#     but the hip ones),
#   - a subset of the lit tests (MXC_SANITIZE_LIT, default: import, robust, ir) with that mxc,
#   - the example end to end: the sanitized mxc compiles examples/cnn.onnx into a library built
#     with -fsanitize=address,undefined too (MXC_CPU_CFLAGS), and a sanitized C program runs it,
#   - each fuzz harness for MXC_FUZZ_SECONDS (default 30; tools/fuzz.sh).
# MXC_SANITIZE_SCOPE=ci (what tools/test.sh runs) fits the CI budget: its own build directory
# (build-asan-ci) at -O0 (about half the compile time of -O2 -g), mxc and the fuzzers only (no
# unit tests, the largest part of a cold build), the lit subset and the example, the fuzzers.
# Prints "asan-unit|asan-lit|asan-e2e|fuzz: N passed, M failed" lines, then the total.
set -uo pipefail
cd "$(dirname "$0")/.."
SCOPE=${MXC_SANITIZE_SCOPE:-full}
JOBS=${MXC_JOBS:-$(nproc)}
command -v clang++-14 >/dev/null || { echo "sanitize: clang++-14 is missing (tools/setup.sh installs it)"; exit 1; }
case $SCOPE in
  full) BUILD=${MXC_SANITIZE_BUILD_DIR:-build-asan}; flags=(-DCMAKE_BUILD_TYPE=RelWithDebInfo); targets=(mxc mxc_unit_tests) ;;
  ci) BUILD=${MXC_SANITIZE_BUILD_DIR:-build-asan-ci}; flags=(-DCMAKE_BUILD_TYPE=None -DCMAKE_CXX_FLAGS=-O0 -DCMAKE_C_FLAGS=-O0)
      targets=(mxc fuzz_onnx fuzz_text_ir); [ -f compiler/tensor_io.hpp ] && targets+=(fuzz_tensor_io) ;;
  *) echo "sanitize: MXC_SANITIZE_SCOPE must be ci or full, got '$SCOPE'"; exit 1 ;;
esac
CC=clang-14 CXX=clang++-14 cmake -S . -B "$BUILD" -G Ninja "${flags[@]}" -DMXC_SANITIZE=ON -DMXC_FUZZ=ON >/dev/null || exit 1
ninja -C "$BUILD" -j "$JOBS" "${targets[@]}" >/dev/null || { ninja -C "$BUILD" -j1 "${targets[@]}" | tail -30; exit 1; }
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
passed=0; failed=0
summary() { echo "$1: $2 passed, $3 failed"; passed=$((passed + $2)); failed=$((failed + $3)); }
log=$(mktemp)

if [ "$SCOPE" = full ]; then
  "$BUILD"/mxc_unit_tests --gtest_brief=1 --gtest_filter="${MXC_SANITIZE_FILTER:--*hip*}" >"$log" 2>&1
  grep -E "FAILED|ERROR|runtime error" "$log" | head -30
  p=$(grep -oP '\[  PASSED  \] \K[0-9]+' "$log" | tail -1); p=${p:-0}
  f=$(grep -oP '\[  FAILED  \] \K[0-9]+(?= test)' "$log" | tail -1); f=${f:-0}
  grep -q "PASSED\|FAILED" "$log" || { f=$((f + 1)); tail -30 "$log"; }   # a sanitizer report ends the run
  grep -q "runtime error:" "$log" && f=$((f + 1))
  summary asan-unit "$p" "$f"
fi

default_lit="import robust ir"; [ "$SCOPE" = ci ] && default_lit="import robust"
lit_dirs=${MXC_SANITIZE_LIT:-$default_lit}
/usr/bin/python3 /usr/lib/llvm-14/build/utils/lit/lit.py -sv --param mxc="$PWD/$BUILD/mxc" \
  $(for d in $lit_dirs; do echo "test/lit/$d"; done) >"$log" 2>&1
grep -E "^(FAIL|UNRESOLVED|TIMEOUT|XPASS)" "$log"
lp=$(grep -oP '^ *Passed *: *\K[0-9]+' "$log"); lp=${lp:-0}
lf=$(grep -oP '^ *(Failed|Unresolved|Timed Out|Unexpectedly Passed) *: *\K[0-9]+' "$log" | awk '{s+=$1} END {print s+0}')
grep -q "Passed\|Failed" "$log" || lf=$((lf + 1))
summary asan-lit "$lp" "$lf"

ep=0; ef=0
tmp=$(mktemp -d)
san="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
if MXC_CPU_CFLAGS="$san" "$BUILD/mxc" examples/cnn.onnx -o "$tmp/libcnn.so" --name cnn -q &&
   cc -O1 -g $san -o "$tmp/classify" examples/classify.c -I"$tmp" -L"$tmp" -lcnn -Wl,-rpath,"$tmp" &&
   "$tmp/classify" examples/input.bin >"$tmp/out.txt" 2>&1 && grep -q "top-5" "$tmp/out.txt"; then
  ep=1; echo "PASS asan-e2e: example compiled by the sanitized mxc, library and program sanitized"
else
  ef=1; echo "FAIL asan-e2e:"; tail -20 "$tmp/out.txt" 2>/dev/null
fi
rm -rf "$tmp"
summary asan-e2e "$ep" "$ef"

MXC_FUZZ_BUILD_DIR="$BUILD" bash tools/fuzz.sh "${MXC_FUZZ_SECONDS:-30}" >"$log" 2>&1
grep -v "^fuzz: [0-9]* passed" "$log"
fp=$(grep -oP '^fuzz: \K[0-9]+(?= passed)' "$log"); fp=${fp:-0}
ff=$(grep -oP '^fuzz: [0-9]+ passed, \K[0-9]+' "$log"); ff=${ff:-1}
summary fuzz "$fp" "$ff"
rm -f "$log"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
