#!/usr/bin/env bash
# The HIP compile gate: for every op type and dtype that passes on cpu (expected-cpu.tsv), the
# hip kernels compile for ARCH (gfx90a: clang++-15; sm_90: nvcc). `mxc conformance
# --compile-only` merges one test per (op type, dtype) into one library and builds it once
# (halving on a failure to name the failing op types). Every row must pass.
#   test/conformance/compile_check.sh ARCH [--build DIR] [--out-dir DIR] [-j N] [DIR...]
# Exit 0: all compile; 1: a row failed (or the runner failed); 77: skipped (no compiler for
# ARCH, or no test data). Last line: "hip-compile ARCH: P passed, F failed".
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
arch=${1:-}
case $arch in gfx*|sm_*) shift ;; *) echo "usage: $0 gfx90a|sm_90 [--build DIR] [--out-dir DIR] [-j N] [DIR...]" >&2; exit 2 ;; esac
build=${MXC_BUILD_DIR:-$root/build}; jobs=(); dirs=(); outdir=
while [ $# -gt 0 ]; do
  case $1 in
    --build) build=$2; shift ;;
    --out-dir) outdir=$2; shift ;;
    -j) jobs=(-j "$2"); shift ;;
    *) dirs+=("$1") ;;
  esac
  shift
done
case $arch in
  gfx*) compiler=clang++-15 ;;
  *) compiler=/usr/local/cuda/bin/nvcc ;;
esac
command -v "$compiler" >/dev/null || { echo "hip-compile $arch: skipped: $compiler is not installed"; exit 77; }
if [ ${#dirs[@]} -eq 0 ]; then
  data=$root/../shared/onnx-tests
  [ -d "$data/node" ] || { echo "hip-compile $arch: skipped: no ONNX test data at $data"; exit 77; }
  dirs=("$data/node" "$data/simple")
fi
mxc=$build/mxc
[ -x "$mxc" ] || { echo "hip-compile $arch: $mxc not found (build first)"; exit 1; }
outdir=${outdir:-$build/conformance}
mkdir -p "$outdir"
results=$outdir/compile-$arch.tsv
"$mxc" conformance "${dirs[@]}" --target hip --offload-arch "$arch" --compile-only \
  --passing "$here/expected-cpu.tsv" "${jobs[@]}" --out "$results" >"$outdir/stdout-compile-$arch.txt" \
  2>"$outdir/stderr-compile-$arch.txt"
rc=$?
last=$(tail -1 "$outdir/stdout-compile-$arch.txt")
if [ $rc -ne 0 ]; then echo "hip-compile $arch: the runner failed (exit $rc): $(tail -1 "$outdir/stderr-compile-$arch.txt")"; exit 1; fi
grep -v '^#' "$results" | awk -F'\t' '$2 != "pass"' | sed "s/^/  /"
echo "hip-compile $arch: $last"
! grep -v '^#' "$results" | awk -F'\t' '$2 != "pass"' | grep -q .
