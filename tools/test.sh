#!/usr/bin/env bash
# The README's test command: installs what is missing, builds mxc and its tests (ccache, only
# what changed is rebuilt), runs the unit/end-to-end tests and the lit tests, and ends with one
# line "N passed, M failed".
set -uo pipefail
cd "$(dirname "$0")/.."
t_start=$SECONDS; t_sec=$SECONDS
# "time: SECTION N s" after each section, so a slow CI run shows where its minutes went.
lap() { echo "time: $1 $((SECONDS - t_sec)) s"; t_sec=$SECONDS; }
bash tools/setup.sh || exit 1
BUILD=${MXC_BUILD_DIR:-build}
JOBS=${MXC_JOBS:-$(nproc)}
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null || exit 1
ninja -C "$BUILD" -j "$JOBS" || exit 1
lap build

passed=0; failed=0
summary() { echo "$1: $2 passed, $3 failed"; passed=$((passed + $2)); failed=$((failed + $3)); lap "$1"; }

# Unit and end-to-end tests (GoogleTest); counts come from its XML report, and a crash or a
# non-zero exit with no failure recorded still counts as one failure.
# The tests are split into JOBS shards run side by side (most are one process on one core).
log=$(mktemp); t=0; f=0; sk=0; rc=0; shard_logs=()
for ((i = 0; i < JOBS; i++)); do
  GTEST_TOTAL_SHARDS=$JOBS GTEST_SHARD_INDEX=$i "$BUILD"/mxc_unit_tests --gtest_brief=1 \
    --gtest_output=xml:"$log.$i.xml" >"$log.$i" 2>&1 &
  shard_logs+=("$log.$i")
done
for ((i = 0; i < JOBS; i++)); do wait -n || rc=$?; done
cat "${shard_logs[@]}" >"$log"
grep -E "^\[  (FAILED|SKIPPED) " "$log" | sort -u | head -50
for ((i = 0; i < JOBS; i++)); do
  xml=$log.$i.xml
  n=$(grep -oP '<testsuites tests="\K[0-9]+' "$xml" 2>/dev/null); t=$((t + ${n:-0}))
  n=$(grep -oP '<testsuites tests="[0-9]+" failures="\K[0-9]+' "$xml" 2>/dev/null); f=$((f + ${n:-0}))
  n=$(grep -c '<skipped' "$xml" 2>/dev/null); sk=$((sk + ${n:-0}))
  [ -f "$xml" ] || { f=$((f + 1)); echo "unit: shard $i wrote no report:"; tail -20 "$log.$i"; }
  rm -f "$xml" "$log.$i"
done
p=$((t - f - sk))
[ "$rc" -ne 0 ] && [ "$f" -eq 0 ] && { f=1; echo "unit: mxc_unit_tests exited with $rc:"; tail -20 "$log"; }
summary unit "$p" "$f"

# lit tests (FileCheck): lit prints its own "Passed:" count.
/usr/bin/python3 /usr/lib/llvm-14/build/utils/lit/lit.py -sv --param mxc="$PWD/$BUILD/mxc" test/lit >"$log" 2>&1
grep -E "^(FAIL|UNRESOLVED|TIMEOUT|XPASS)" "$log"
grep -E "^ *(Passed|Failed|Unresolved|Timed Out|Unsupported|Expectedly Failed) *:" "$log"
lp=$(grep -oP '^ *Passed *: *\K[0-9]+' "$log"); lp=${lp:-0}
lf=$(grep -oP '^ *(Failed|Unresolved|Timed Out|Unexpectedly Passed) *: *\K[0-9]+' "$log" | awk '{s+=$1} END {print s+0}')
grep -q "Passed\|Failed" "$log" || lf=$((lf + 1))
summary lit "$lp" "$lf"
rm -f "$log"

# End-to-end scripts (exit 77: skipped, with the reason printed).
ep=0; ef=0
for t in test/e2e/*.sh; do
  out=$(bash "$t" "$BUILD" 2>&1); rc=$?
  case $rc in
    0) ep=$((ep + 1)); echo "PASS $t: $(echo "$out" | tail -1)" ;;
    77) echo "SKIP $t: $(echo "$out" | tail -1)" ;;
    *) ef=$((ef + 1)); echo "FAIL $t:"; echo "$out" | tail -20 ;;
  esac
done
summary e2e "$ep" "$ef"

# ONNX conformance gate (test/conformance/check.sh): ref and cpu over the backend test data,
# and the hip kernels on the host SIMT emulator (hip-emu: one test per op type and dtype);
# passed: the tests that pass; failed: regressions (a test recorded as passing that does not).
for target in ref cpu hip-emu; do
  out=$(bash test/conformance/check.sh "$target" --build "$BUILD" 2>&1); rc=$?
  last=$(echo "$out" | tail -1)
  if [ "$(echo "$out" | wc -l)" -gt 60 ]; then echo "$out" | head -58; echo "  ..."; echo "$last"; else echo "$out"; fi
  cp=$(echo "$last" | grep -oP ': \K[0-9]+(?= passed)'); cp=${cp:-0}
  cr=$(echo "$last" | grep -oP '; \K[0-9]+(?= regressions)'); cr=${cr:-0}
  case $rc in
    0|77) ;;
    *) [ "$cr" -gt 0 ] || cr=1 ;; # the runner itself failed
  esac
  summary "conformance-$target" "$cp" "$cr"
done

# HIP compile gate (test/conformance/compile_check.sh): one test per op type and dtype that
# passes on cpu, merged into one library, built for gfx90a (clang++-15) and sm_90 (nvcc);
# skipped with a message when the compiler is missing. Objects are cached (~/.cache/mxc/objects).
for arch in gfx90a sm_90; do
  out=$(bash test/conformance/compile_check.sh "$arch" --build "$BUILD" -j "$JOBS" 2>&1); rc=$?
  echo "$out" | tail -40
  last=$(echo "$out" | tail -1)
  hp=$(echo "$last" | grep -oP ': \K[0-9]+(?= passed)'); hp=${hp:-0}
  hf=$(echo "$last" | grep -oP ', \K[0-9]+(?= failed)'); hf=${hf:-0}
  case $rc in
    0|77) ;;
    *) [ "$hf" -gt 0 ] || hf=1 ;;
  esac
  summary "hip-compile-$arch" "$hp" "$hf"
done

# The sanitizer flavour (tools/test-sanitize.sh): ASan+UBSan build of mxc and the fuzz harnesses
# (clang-14), a lit subset, the example end to end, and each fuzz harness for MXC_FUZZ_SECONDS
# (30). On by default in its CI scope (build-asan-ci, -O0, no unit tests: see
# docs/robustness.md for its cost); MXC_SANITIZE_TESTS=0 turns it off, =full also builds and
# runs the unit tests under the sanitizers (build-asan, -O2 -g).
if [ "${MXC_SANITIZE_TESTS:-1}" != 0 ]; then
  scope=ci; [ "${MXC_SANITIZE_TESTS:-1}" = full ] && scope=full
  out=$(MXC_JOBS="$JOBS" MXC_SANITIZE_SCOPE=$scope bash tools/test-sanitize.sh 2>&1)
  echo "$out" | grep -vE '^(asan-[a-z]+|fuzz): [0-9]+ passed, [0-9]+ failed$|^[0-9]+ passed, [0-9]+ failed$'
  lines=$(echo "$out" | grep -E '^(asan-[a-z]+|fuzz): [0-9]+ passed, [0-9]+ failed$')
  [ -n "$lines" ] || summary sanitize 0 1
  while read -r sec p _ f _; do [ -n "$sec" ] && summary "${sec%:}" "$p" "$f"; done <<<"$lines"
fi

echo "time: total $((SECONDS - t_start)) s"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
