#!/usr/bin/env bash
# Regenerates docs/conformance.md from the latest runs: ref and cpu from build/conformance/
# (written by check.sh; run `check.sh ref` and `check.sh cpu` first), hip from the committed
# results of the latest GPU run, test/conformance/results-hip.tsv (after `check.sh hip` on a
# machine with a GPU, copy build/conformance/results-hip.tsv there).
#   test/conformance/make_docs.sh [--build DIR]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=$root/build
[ "${1:-}" = --build ] && build=$2
data=$root/../shared/onnx-tests
args=()
for t in ref cpu; do
  f=$build/conformance/results-$t.tsv
  [ -f "$f" ] || { echo "make_docs: $f is missing: run test/conformance/check.sh $t first" >&2; exit 1; }
  args+=(--results "$t=$f")
done
if [ -f "$here/results-hip.tsv" ]; then args+=(--results "hip=$here/results-hip.tsv"); else args+=(--results "hip="); fi
"$build/mxc" conformance "$data/node" "$data/simple" --markdown "$root/docs/conformance.md" "${args[@]}"
echo "wrote docs/conformance.md"
