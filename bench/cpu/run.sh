#!/usr/bin/env bash
# CPU latency of the zoo models: mxc (--target cpu) next to ONNX Runtime CPU (npm
# onnxruntime-node in tools/ort), same inputs, RUNS runs of each (default 30) after two warm-up
# ones, interleaved in one process (bench/cpu/vs_ort.js: the ratio is the median of the pairs'
# ratios, with its 95% interval); both with THREADS threads (default 2: mxc's
# <name>_set_num_threads, ORT's intra-op threads). Writes
# bench/results/cpu-YYYY-MM-DD.md (or the file given as $1) and prints it.
#   bash bench/cpu/run.sh [OUT.md]        (MODELS="bert-base yolo" to choose; SMALL=1: --small;
#                                          CPU_ARCH=x86-64-v3: mxc --cpu-arch, default any x86-64)
set -euo pipefail
cd "$(dirname "$0")/../.."
MXC=${MXC:-build/mxc}
RUNS=${RUNS:-30}
THREADS=${THREADS:-2}
MODELS=${MODELS:-resnet50 mobilenetv2 bert-base vit-b16 yolo unet}
out=${1:-bench/results/cpu-$(date +%F).md}
work=build/bench-cpu
mkdir -p "$work" build/zoo "$(dirname "$out")"
[[ -d tools/ort/node_modules/onnxruntime-node ]] || { echo "run.sh: tools/ort is missing: bash tools/setup.sh" >&2; exit 1; }
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
rows=()
for name in $MODELS; do
  f=build/zoo/$name${SMALL:+-small}.onnx
  [[ -f "$f" ]] || /usr/bin/python3 tools/models/zoo.py "$name" ${SMALL:+--small} -o "$f" >&2
  lib=$work/$name/lib${name//-/_}.so
  sym=${name//-/_}
  mkdir -p "$work/$name"
  "$MXC" "$f" -o "$lib" --name "$sym" --target cpu ${CPU_ARCH:+--cpu-arch "$CPU_ARCH"} --report "$work/$name/report.json" -q
  kernels=$(/usr/bin/python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['kernels'])" "$work/$name/report.json")
  mapfile -t specs < <(/usr/bin/python3 bench/cpu/make_inputs.py "$f" "$work/$name/inputs")
  read -r mxc_ms ort_ms ratio lo hi < <(node bench/cpu/vs_ort.js "$f" "$lib" "$sym" "$THREADS" "$RUNS" 2 "${specs[@]}")
  [[ -n ${hi:-} ]] || { echo "run.sh: $name: vs_ort.js failed" >&2; exit 1; }
  ratio=$(printf '%.2f' "$ratio") lo=$(printf '%.2f' "$lo") hi=$(printf '%.2f' "$hi")
  rows+=("| $name | $mxc_ms | $ort_ms | $ratio | $lo - $hi | $kernels |")
  echo "$name: mxc $mxc_ms ms, ORT $ort_ms ms, ratio $ratio ($lo - $hi), $kernels kernels" >&2
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
{
  echo "# CPU latency: mxc vs ONNX Runtime"
  echo
  echo "Made by \`bash bench/cpu/run.sh\` on $(date -u '+%F %H:%M UTC') from checkout $(git rev-parse --short HEAD 2>/dev/null || echo "?") with MXC=$MXC"
  echo "(\`$MXC --version\`: $("$MXC" --version 2>&1 | head -1)), onnxruntime-node $(node -p "require('./tools/ort/node_modules/onnxruntime-node/package.json').version"),"
  echo "node $(node --version), $(cc --version | head -1)."
  echo
  echo "Machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores,"
  echo "$(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo). Load average (1, 5, 15 min) before: $load_before,"
  echo "after: $load_after. The machine was shared: with a load above the core count every number"
  echo "below is inflated and noisy; compare the ratio, not the milliseconds."
  echo
  echo "Median of $RUNS runs after two warm-up ones, milliseconds, same inputs (bench/cpu/make_inputs.py,"
  echo "seed 0); mxc's and ORT's runs interleaved in one process, each after a 100 ms pause"
  echo "(bench/cpu/vs_ort.js). mxc: $THREADS threads (the instance's pool, <name>_set_num_threads), \`g++ -O3\`"
  echo "for ${CPU_ARCH:-baseline x86-64 (SSE2; no --cpu-arch)}${CPU_ARCH:+ (--cpu-arch $CPU_ARCH)}, blocked GEMM for dot and convolution"
  echo "(its micro-kernel, chosen at run time: $(grep -qw avx512f /proc/cpuinfo && echo "AVX-512 for float, AVX2/FMA for double" || { grep -qw avx2 /proc/cpuinfo && grep -qw fma /proc/cpuinfo && echo AVX2/FMA || echo SSE2; }) on this CPU);"
  echo "ORT: $THREADS intra-op threads, all graph"
  echo "optimisations. ratio: the median over the pairs of runs of ORT ms / mxc ms (above 1: mxc is"
  echo "faster), with the interval that holds it with about 95% confidence. kernels: mxc's kernel"
  echo "launches after the default pass pipeline."
  echo
  echo "| model | mxc ms ($THREADS threads) | ORT ms ($THREADS threads) | ratio ORT/mxc | 95% interval | kernels |"
  echo "| --- | ---: | ---: | ---: | ---: | ---: |"
  printf '%s\n' "${rows[@]}"
} > "$out"
cat "$out"
