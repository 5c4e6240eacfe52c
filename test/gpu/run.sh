#!/usr/bin/env bash
# The GPU tests (issue 6, point 7), run ON the device machine; skipped with a message (exit 77,
# the project's skip status) where there is no GPU, so any machine may call it.
#   bash test/gpu/run.sh [conformance] [zoo] [--part I/N] [--filter REGEX] [--full] [--fp16] [--models a,b]
#                        [--arch sm_90] [-j N] [--target cpu] [--deadline S]
# conformance: `mxc conformance --target hip` over the ONNX backend tests (../shared/onnx-tests,
#   else the .carry/onnx-tests.tar.xz that bench/gpu/prepare.sh packs), compared with the cpu
#   pass count in test/conformance/expected-cpu.tsv over the same tests: passes when the hip
#   count is within 2% of the cpu one (issue 6); lists the tests passing on cpu but not on hip.
#   --part I/N runs the I-th of N slices (by the first letter of the test name, balanced by
#   count) so the suite fits several device commands of < 10 minutes; --filter REGEX instead.
#   A slice (or the whole suite) runs letter by letter; --deadline S starts no letter that would
#   end after S seconds (going by the longest letter so far): what ran is compared and kept.
# zoo: every zoo model (tools/models/zoo.py; --small unless --full; --models a,b for some) through
#   `mxc verify --target hip` (the reference evaluator on the same inputs, normalised RMS
#   <= 1e-3); --fp16 adds the --fp16 builds (<= 1e-2, the issue's bar).
# --target cpu, or --arch emu (mxc's host SIMT emulator): the same checks without a GPU (the
# plumbing of this script; the emulator is slow: use --filter).
# Neither named: both. Results under $OUT (else build/gpu-tests; at most 8 files come back from
# the device): conformance-hip[-partI].tsv with its .log and -missing.tsv, zoo-hip.log,
# summary.txt (appended). Exit 1 when a check fails.
set -uo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
source bench/gpu/env.sh
out=${OUT:-$root/build/gpu-tests}
what=(); part=; filter=; zoo_models=; full=0; fp16=0; arch=sm_90; jobs=$(nproc); target=hip; deadline=0; start=$SECONDS
while [ $# -gt 0 ]; do
  case $1 in
    conformance|zoo) what+=("$1") ;;
    --part) part=$2; shift ;;
    --filter) filter=$2; shift ;;
    --full) full=1 ;;
    --deadline) deadline=$2; shift ;;
    --models) zoo_models=${2//,/ }; shift ;;
    --fp16) fp16=1 ;;
    --arch) arch=$2; shift ;;
    -j) jobs=$2; shift ;;
    --target) target=$2; shift ;;
    *) echo "usage: $0 [conformance] [zoo] [--part I/N] [--filter REGEX] [--full] [--fp16] [--models a,b] [--arch sm_90] [-j N] [--target cpu] [--deadline S]" >&2; exit 2 ;;
  esac
  shift
done
[ ${#what[@]} -gt 0 ] || what=(conformance zoo)
tgt=(--target hip --offload-arch "$arch")
if [ "$target" = cpu ] || [ "$arch" = emu ]; then
  [ "$target" = cpu ] && tgt=(--target cpu)
  [ -x "$MXC" ] || { echo "test/gpu: no $MXC"; exit 1; }
else
  why=$(device_ready); rc=$?
  [ $rc -eq 77 ] && { echo "test/gpu: skipped: $(tail -1 <<<"$why")"; exit 77; }
  [ $rc -eq 0 ] || { echo "test/gpu: FAILED: $(tail -1 <<<"$why")"; exit 1; }
  echo "test/gpu: $(head -1 <<<"$why")"
  [ -n "${MXC_HIP_COMPILER:-}" ] && tgt+=(--hip-compiler "$MXC_HIP_COMPILER")
fi
mkdir -p "$out"
status=0
say() { echo "$*" | tee -a "$out/summary.txt"; }

# The letters of slice I of N: test names grouped by the first letter after "test_", letters in
# order, cut where the running count of test/conformance/expected-cpu.tsv passes I/N of all.
part_letters() {
  grep -v '^#' test/conformance/expected-cpu.tsv | cut -f1 | sed 's,^[^/]*/test_,,' | cut -c1 | sort | uniq -c |
    awk -v i="${1%/*}" -v n="${1#*/}" '{ c[NR] = $1; l[NR] = $2; t += $1 } END {
      for (k = 1; k <= NR; ++k) { s += c[k]; slice = int((s - c[k] / 2) * n / t) + 1; if (slice > n) slice = n
        if (slice == i) set = set l[k] }
      if (set == "") exit 1
      printf "%s", set }'
}

# One `mxc conformance` call over the tests matching $1; its rows are appended to $tsv (the
# runner writes its rows only when it is done, so a slice runs letter by letter: what finished
# before a deadline or the device's time limit is kept).
conformance_call() {
  "$MXC" conformance "$data/node" "$data/simple" "${tgt[@]}" -j "$jobs" --filter "$1" --out "$tsv.one" >> "$log" 2>&1
  local rc=$?
  [ -f "$tsv.one" ] || { say "conformance $tag: the runner failed on --filter '$1' (exit $rc): $(tail -1 "$log")"; status=1; return; }
  if [ -f "$tsv" ]; then grep -v '^#' "$tsv.one" >> "$tsv"; else cat "$tsv.one" > "$tsv"; fi
  rm -f "$tsv.one"
}

run_conformance() {
  local data=../shared/onnx-tests tag= letters=
  if [ ! -d "$data/node" ]; then
    [ -f .carry/onnx-tests.tar.xz ] || { say "conformance: no test data (../shared/onnx-tests or .carry/onnx-tests.tar.xz)"; status=1; return; }
    data=/tmp/mxc-onnx-tests/onnx-tests
    [ -d "$data/node" ] || { mkdir -p /tmp/mxc-onnx-tests && tar -C /tmp/mxc-onnx-tests -xJf .carry/onnx-tests.tar.xz; }
  fi
  if [ -n "$part" ]; then
    letters=$(part_letters "$part") || { say "conformance: bad --part $part"; status=1; return; }
    tag=-part${part%/*}
  elif [ -z "$filter" ]; then
    letters=$(part_letters 1/1)
  fi
  tag=$target$tag
  local tsv=$out/conformance-$tag.tsv log=$out/conformance-$tag.log t0=$SECONDS
  rm -f "$tsv" "$log"
  echo "conformance ${tgt[*]}${filter:+, --filter '$filter'}${letters:+, tests test_[$letters]* letter by letter}: $jobs at once"
  if [ -n "$letters" ]; then
    local l done= longest=0 t
    for l in $(fold -w1 <<<"$letters"); do
      if [ "$deadline" -gt 0 ] && [ $((SECONDS - start + longest)) -gt "$deadline" ]; then
        say "conformance $tag: --deadline $deadline: test_[${letters#"$done"}]* not run"; status=1; break
      fi
      t=$SECONDS
      conformance_call "^[a-z]+/test_$l"
      done=$done$l
      [ $((SECONDS - t)) -gt "$longest" ] && longest=$((SECONDS - t))
    done
    filter="^[a-z]+/test_[$done]"  # the tests run, for the comparison with cpu
  else
    conformance_call "$filter"
  fi
  [ -f "$tsv" ] || return
  local last="$(grep -vc '^#' "$tsv") tests run"
  # The cpu passes over the same tests (expected-cpu.tsv), the hip passes of this run.
  local cpu_pass hip_pass missing
  cpu_pass=$(grep -v '^#' test/conformance/expected-cpu.tsv | awk -F'\t' -v re="${filter:-.}" '$1 ~ re && $2 == "pass"' | wc -l)
  hip_pass=$(grep -v '^#' "$tsv" | awk -F'\t' '$2 == "pass"' | wc -l)
  missing=$(LC_ALL=C join -t $'\t' <(grep -v '^#' test/conformance/expected-cpu.tsv | awk -F'\t' -v re="${filter:-.}" '$1 ~ re && $2 == "pass" { print $1 }' | LC_ALL=C sort) \
                     <(grep -v '^#' "$tsv" | awk -F'\t' '$2 != "pass" { print $1 "\t" $2 "\t" $3 }' | LC_ALL=C sort))
  printf '%s\n' "$missing" | grep . > "$out/conformance-$tag-missing.tsv"
  local ok
  ok=$(awk -v h="$hip_pass" -v c="$cpu_pass" 'BEGIN { print (h >= 0.98 * c) ? "within 2%" : "NOT within 2%" }')
  say "conformance $tag (${tgt[*]:1}, $((SECONDS - t0)) s): $hip_pass passed, cpu $cpu_pass over the same tests: $ok; $(printf '%s' "$missing" | grep -c .) pass on cpu and not here (conformance-$tag-missing.tsv); runner: $last"
  [ "$ok" = "within 2%" ] || status=1
}

run_zoo() {
  local py=$PY small=--small name
  [ $full -eq 1 ] && small=
  mkdir -p /tmp/mxc-zoo
  for name in ${zoo_models:-$($py tools/models/zoo.py --list)}; do
    local f=/tmp/mxc-zoo/$name${small:+-small}.onnx
    [ -f "$f" ] || $py tools/models/zoo.py "$name" $small -o "$f" || { say "zoo $name: zoo.py failed"; status=1; continue; }
    # BERT's attention mask is 0/1 (random integers scaled by -10000 overflow float16): ones,
    # the last eighth 0, as bench/gpu/bench.py feeds it.
    local feeds=()
    [ "$name" = bert-base ] && feeds=(--input "attention_mask:$($py -c 'import onnx, sys
s = onnx.load(sys.argv[1], load_external_data=False).graph.input[1].type.tensor_type.shape.dim[1].dim_value
print([[1] * (s - s // 8) + [0] * (s // 8)])' "$f")")
    local modes=(fp32)
    [ $fp16 -eq 1 ] && modes+=(fp16)
    for m in "${modes[@]}"; do
      local flags=() t0=$SECONDS log=$out/zoo-$target.log
      [ "$m" = fp16 ] && flags=(--fp16 --tolerance 1e-2)
      echo "== $MXC verify $f ${tgt[*]} ${flags[*]} ${feeds[*]}" >> "$log"
      if "$MXC" verify "$f" "${tgt[@]}" "${flags[@]}" "${feeds[@]}" > "$log.one" 2>&1; then
        say "zoo $target $name${small:+ (small)} $m: pass ($((SECONDS - t0)) s): $(grep -i 'rms\|error' "$log.one" | head -2 | tr '\n' ' ')"
      else
        say "zoo $target $name${small:+ (small)} $m: FAIL ($((SECONDS - t0)) s): $(tail -3 "$log.one" | tr '\n' ' ')"
        status=1
      fi
      cat "$log.one" >> "$log" && rm -f "$log.one"
    done
  done
}

for w in "${what[@]}"; do "run_$w"; done
exit $status
