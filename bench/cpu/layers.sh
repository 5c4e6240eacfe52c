#!/usr/bin/env bash
# Single convolution layers (conv + bias, bench/cpu/conv_layer.py), mxc (--target cpu) next to
# ONNX Runtime, both on THREADS threads (default 1): median and minimum of RUNS runs (default
# 100) after 10 warm-up runs, in ms. ORT's figure includes its reorders to and from NCHWc, which
# inside a model it mostly does not pay: compare layers between two mxc builds (MXC=...), and
# against ORT's per-node profile for in-model figures. FLUSH=MB (bench/cpu/time_lib.c): mxc's
# runs each start with cold caches, as a layer's inside a model mostly does (ORT's do not).
#   bash bench/cpu/layers.sh [Ci,Co,H,k,S[,t|d] ...]  (default: the shapes below; t: ConvTranspose, d: depthwise)
set -euo pipefail
cd "$(dirname "$0")/../.."
MXC=${MXC:-build/mxc}
RUNS=${RUNS:-100}
THREADS=${THREADS:-1}
shapes=("$@")
[[ ${#shapes[@]} -gt 0 ]] || shapes=(320,1280,7,1,1 512,2048,7,1,1 512,512,7,3,1 256,256,14,3,1 64,64,56,3,1 32,16,112,1,1 3,32,224,3,2)
[[ -d tools/ort/node_modules/onnxruntime-node ]] || { echo "layers.sh: tools/ort is missing: bash tools/setup.sh" >&2; exit 1; }
work=build/bench-layers
mkdir -p "$work"
echo "| layer (Ci,Co,H,k,S) | mxc median / min ms | ORT median / min ms |"
echo "| --- | ---: | ---: |"
for s in "${shapes[@]}"; do
  IFS=, read -r ci co h k st tr <<< "$s"
  name=conv_${ci}_${co}_${h}_${k}_${st}${tr:+_$tr}
  dir=$work/$name
  mkdir -p "$dir"
  /usr/bin/python3 bench/cpu/conv_layer.py "$ci" "$co" "$h" "$k" "$st" ${tr:+"$tr"} "$dir/model.onnx"
  "$MXC" "$dir/model.onnx" -o "$dir/lib$name.so" --name "$name" --target cpu -q
  mapfile -t specs < <(/usr/bin/python3 bench/cpu/make_inputs.py "$dir/model.onnx" "$dir/inputs")
  cc -O2 -o "$dir/time_lib" -DMXC_HEADER="\"$PWD/$dir/lib$name.h\"" bench/cpu/time_lib.c -ldl
  read -r m_med m_min < <(MXC_THREADS=$THREADS "$dir/time_lib" "$dir/lib$name.so" "$name" "$RUNS" 10 "${specs[0]##*:}")
  read -r o_med o_min < <(node bench/cpu/ort_time.js "$dir/model.onnx" "$THREADS" "$RUNS" 10 "${specs[@]}")
  echo "| $s | $m_med / $m_min | $o_med / $o_min |"
done
