#!/usr/bin/env bash
# mxc against PyTorch eager and torch.compile on the GPU: ONE command on the device machine
# (issue 6, point 6). Needs what bench/gpu/prepare.sh put in .carry/ (carry it), torch,
# torchvision and onnxruntime (the device image has them). Results go to $OUT (the device
# tool's folder that comes back; else build/bench-gpu): bench.jsonl (one JSON line per row,
# written as each row finishes, appended across runs), bench.md (the table, rewritten after each
# row), bench.log, nvidia-smi.txt.
#   bash bench/gpu/run.sh [bench.py options]
#     --models resnet50,mobilenetv2,vit_b_16,bert-base  --batches 1,32  --dtypes fp32,fp16
#     --deadline 500 (start no row that would end after 500 s, by the longest so far)  --no-compile (skip torch.compile)  --no-perf
#   bash bench/gpu/run.sh --target cpu --small   (no GPU: the plumbing on the zoo models)
# See bench/gpu/README.md for the device commands of a session.
set -uo pipefail
cd "$(dirname "$0")/../.."
source bench/gpu/env.sh
out=${OUT:-$PWD/build/bench-gpu}
mkdir -p "$out"
export PYTHONUNBUFFERED=1
cpu=0
for a in "$@"; do
  case $a in
    cpu|--target=cpu) cpu=1 ;;
    -h|--help|--table*) exec "$PY" bench/gpu/bench.py "$@" ;;
  esac
done
if (( cpu )); then
  [[ -x "$MXC" ]] || { echo "bench/gpu/run.sh: no mxc (build it, or bash bench/gpu/prepare.sh)" >&2; exit 1; }
else
  device_ready; rc=$?
  (( rc == 77 )) && { echo "bench/gpu/run.sh: skipped: not on a GPU machine; for the plumbing alone: --target cpu --small" >&2; exit 77; }
  (( rc == 0 )) || { echo "bench/gpu/run.sh: the GPU machine lacks what the benchmark needs (above)" >&2; exit 1; }
  nvidia-smi > "$out/nvidia-smi.txt" 2>&1 || true
fi
args=(--mxc "$MXC" --out "$out")
[[ -n "${MXC_HIP_COMPILER:-}" ]] && args+=(--hip-compiler "$MXC_HIP_COMPILER")
"$PY" -u bench/gpu/bench.py "${args[@]}" "$@" 2>&1 | tee -a "$out/bench.log"
exit "${PIPESTATUS[0]}"
