#!/usr/bin/env bash
# The memory planner next to naive and greedy-by-size (TVM / TFLite), on the models listed in
# bench/memory/models.txt (globs; missing ones are skipped). Writes
# bench/results/memory-YYYY-MM-DD.md (or the file given as $1) and prints it.
#   bash bench/memory/run.sh [OUT.md]
set -euo pipefail
cd "$(dirname "$0")/../.."
MXC=${MXC:-build/mxc}
out=${1:-bench/results/memory-$(date +%F).md}
models=()
while IFS= read -r line; do
  [[ -z "$line" || "$line" == \#* ]] && continue
  if [[ "$line" == zoo\ * ]]; then
    name=${line#zoo }
    f=build/zoo/$name.onnx
    [[ -f "$f" ]] || { mkdir -p build/zoo && /usr/bin/python3 tools/models/zoo.py "$name" -o "$f" >&2; }
    models+=("$f")
    continue
  fi
  for f in $line; do [[ -f "$f" ]] && models+=("$f"); done
done < bench/memory/models.txt
{
  echo "# Memory plans: ours vs naive and greedy-by-size"
  echo
  echo "Made by \`bash bench/memory/run.sh\` (\`$MXC plan-bench\` on the ${#models[@]} models of"
  echo "bench/memory/models.txt) on $(date +%F), mxc $(git rev-parse --short HEAD 2>/dev/null || echo '?')."
  echo "Bytes; 256-byte alignment; after the default pass pipeline. *greedy-by-size*: TVM's and"
  echo "TFLite's planner (largest first, lowest offset that fits); *ours, no sharing*: our placement"
  echo "on the same buffers; *ours*: with in-place pointwise kernels and concat slices; *lower bound*:"
  echo "the most bytes live at one instruction in ours; *plan ms*: planning time of ours."
  echo
  "$MXC" plan-bench "${models[@]}"
  echo
  echo "## The same models without fusion (more buffers: \`plan-bench --passes=eliminate-identity,simplify-algebra,constant-propagate,cse,dce\`)"
  echo
  "$MXC" plan-bench --passes=eliminate-identity,simplify-algebra,constant-propagate,cse,dce "${models[@]}"
} > "$out"
cat "$out"
