#!/usr/bin/env bash
# One device command that runs several stages, each under its own time limit, and packs what
# each leaves into $OUT/results.tgz after every stage (so a command cut short still returns
# what finished). Runs ON the device machine, from the repository root, with .carry carried.
#   bash bench/gpu/session.sh [--until S] STAGE...
# stages: env | smoke | bench:ARGS (bench/gpu/run.sh ARGS, commas kept, '+' for spaces) | tune:MODEL |
#         conf:ARGS (test/gpu/run.sh conformance ARGS, '+' for spaces) | zoo:ARGS | graphs |
#         profile:MODEL[+--fp16] (bench/gpu/kernel_profile.py: run time and CUPTI kernel table) |
#         latency[:RUNS] (bench/gpu/launch_latency.cu: a graph's run time against its nodes and
#         their parameter bytes, into latency.md) |
#         ncu:MODEL[+--fp16] (Nsight Compute, where the device has it: speed of light, warp
#         stall reasons, occupancy and memory of the first 10 GEMM, attention and layer-norm
#         launches of one `mxc perf` run, into ncu-MODEL[-fp16].txt)
# ('+' stands for a space, so a regular expression cannot use it: --filter 'a|b' instead)
# A stage name ending in -pdl (bench-pdl:ARGS, profile-pdl:MODEL) runs with MXC_PDL=1 (kernels
# launched with programmatic dependent launch, off by default) into files named with -pdl: the
# A/B of host overhead. A stage name ending in -noasync (bench-noasync:ARGS) builds the
# libraries with -DMXC_NO_ASYNC_COPY (through an nvcc wrapper as mxc's --hip-compiler): the
# matrix-unit GEMM's register-staged loop instead of the pipelined one of asynchronous copies
# (templates/hip/async_copy.hpp), into files named with -noasync. A stage name ending in -nchw
# or -nhwc (bench-nchw:ARGS, profile-nhwc:MODEL) builds with MXC_CHANNELS_LAST=0 or 1 (half
# convolutions never / wherever allowed channels-last, instead of mxc_conv_channels_last_pays),
# into files named so: the A/B of the channels-last form. A stage name ending in -simt
# (bench-simt:ARGS, profile-simt:MODEL) builds with MXC_FP32_MMA=0: float dot products on the
# SIMT engine instead of the matrix units (gemm_mma_f32, 3xTF32), into files named with -simt;
# one ending in -mmaall builds with MXC_FP32_MMA=all (float convolutions on them too). A stage
# name ending in -noring (bench-noring:ARGS, profile-noring:MODEL) builds with MXC_LARGE_RING=0:
# the half products of the large tile on the two-stage gemm_mma_large (channels-last
# convolutions on gemm_mma_small) instead of gemm_mma_large_ring, into files named with -noring.
# A stage name ending in -noattn (bench-noattn:ARGS, profile-noattn:MODEL) builds with
# MXC_FUSE_ATTENTION=0: attention as its products, softmax and epilogues instead of the one
# attention kernel (passes/fuse_attention.cpp), into files named with -noattn. A stage name
# ending in -simtattn builds with MXC_MMA_ATTENTION=0: the SIMT attention kernel instead of the
# matrix-unit one (templates/hip/attention.hpp), into files named with -simtattn.
# tune:MODEL[+--fp16] runs `mxc --tune` on MODEL (docs/tuning.md: every GEMM problem's candidate
# tiles timed on the device), merging the winners into tuning-sm90.tsv in the results, with its
# log in tune-MODEL[-fp16].log and every tile's time in tune-MODEL[-fp16]-times.txt; a stage name ending in -tuned (bench-tuned:ARGS,
# profile-tuned:MODEL) builds with --tuning-db tuning-sm90.tsv, into files named with -tuned.
# --until S: the whole command's budget in seconds; a stage gets what is left (less a margin),
# conformance and bench get it as their --deadline.
set -u
cd "$(dirname "$0")/../.."
export PYTHONUNBUFFERED=1
until_s=540
[ "${1:-}" = --until ] && { until_s=$2; shift 2; }
res=/tmp/mxc-session; rm -rf "$res"; mkdir -p "$res"
out=${OUT:-$PWD/build/session}; mkdir -p "$out"
source bench/gpu/env.sh
hip_compiler=${MXC_HIP_COMPILER:-}
pack() { tar -C "$res" -czf "$out/results.tgz.part" . && mv "$out/results.tgz.part" "$out/results.tgz"; }
left() { echo $((until_s - SECONDS - 15)); }
log() { echo "[$SECONDS s] $*" | tee -a "$res/progress.log"; }
for st in "$@"; do
  name=${st%%:*}; args=; [[ $st == *:* ]] && args=${st#*:}; args=${args//+/ }
  sfx=; unset MXC_PDL MXC_NO_ASYNC_COPY MXC_CHANNELS_LAST MXC_FP32_MMA MXC_LARGE_RING MXC_FUSE_ATTENTION MXC_MMA_ATTENTION; MXC_HIP_COMPILER=$hip_compiler
  [[ $name == *-pdl ]] && { name=${name%-pdl}; sfx=-pdl; export MXC_PDL=1; }
  [[ $name == *-nchw ]] && { name=${name%-nchw}; sfx=-nchw; export MXC_CHANNELS_LAST=0; }
  [[ $name == *-nhwc ]] && { name=${name%-nhwc}; sfx=-nhwc; export MXC_CHANNELS_LAST=1; }
  [[ $name == *-simt ]] && { name=${name%-simt}; sfx=-simt; export MXC_FP32_MMA=0; }
  [[ $name == *-mmaall ]] && { name=${name%-mmaall}; sfx=-mmaall; export MXC_FP32_MMA=all; }
  [[ $name == *-noring ]] && { name=${name%-noring}; sfx=-noring; export MXC_LARGE_RING=0; }
  [[ $name == *-noattn ]] && { name=${name%-noattn}; sfx=-noattn; export MXC_FUSE_ATTENTION=0; }
  [[ $name == *-simtattn ]] && { name=${name%-simtattn}; sfx=-simtattn; export MXC_MMA_ATTENTION=0; }
  db=(); [[ $name == *-tuned ]] && { name=${name%-tuned}; sfx=-tuned; db=(--tuning-db "$res/tuning-sm90.tsv"); }
  if [[ $name == *-noasync ]]; then
    name=${name%-noasync}; sfx=-noasync; export MXC_NO_ASYNC_COPY=1 # (a label for bench.py)
    printf '#!/bin/sh\nexec "%s" -DMXC_NO_ASYNC_COPY "$@"\n' "${hip_compiler:-${NVCC:-/usr/local/cuda/bin/nvcc}}" > /tmp/nvcc-noasync
    chmod +x /tmp/nvcc-noasync; MXC_HIP_COMPILER=/tmp/nvcc-noasync
  fi
  export MXC_HIP_COMPILER
  l=$(left)
  [ "$l" -gt 20 ] || { log "$st: not started, $l s left"; continue; }
  log "== $st (limit $l s)"
  case $name in
    env)
      { date -u; nvidia-smi; nvcc --version; nproc; free -g; device_ready
        python3 -c 'import sys, torch, torchvision, onnx, onnxruntime, numpy
print(sys.version.split()[0], "torch", torch.__version__, "cuda", torch.version.cuda, "cudnn", torch.backends.cudnn.version(),
      "torchvision", torchvision.__version__, "onnx", onnx.__version__, "ort", onnxruntime.__version__, "numpy", numpy.__version__)'
      } > "$res/env.txt" 2>&1
      tail -3 "$res/env.txt" ;;
    smoke)
      timeout "$l" bash -c '
        MXC=$MXC bash test/e2e/hip_graphs.sh sm_90; echo "hip_graphs exit $?"
        "$MXC" verify examples/cnn.onnx --target hip --offload-arch sm_90; echo "verify exit $?"
        "$MXC" verify examples/cnn.onnx --target hip --offload-arch sm_90 --fp16 --tolerance 1e-2; echo "verify fp16 exit $?"' \
        > "$res/smoke.log" 2>&1
      grep -i "exit\|fail\|error" "$res/smoke.log" | head -20 ;;
    profile)
      f=$res/profile-$(basename "${args%% *}" .onnx)$([[ $args == *--fp16* ]] && echo -fp16)$sfx.txt
      MXC=$MXC timeout "$l" python3 bench/gpu/kernel_profile.py $args "${db[@]}" > "$f" 2>&1; log "profile exit $?"; head -12 "$f" | cut -c1-160 ;;
    tune)
      f=$res/tune-$(basename "${args%% *}" .onnx)$([[ $args == *--fp16* ]] && echo -fp16).log
      rm -rf /tmp/mxc-tune; mkdir -p /tmp/mxc-tune
      timeout "$l" "$MXC" $args --target hip --offload-arch sm_90 --tune --tuning-db "$res/tuning-sm90.tsv" \
        -o /tmp/mxc-tune/libt.so --emit-src /tmp/mxc-tune/src -v > "$f" 2>&1; log "tune exit $?"; grep "tune:\|error" "$f" | tail -20
      # every candidate's time per problem (the log names only the winners)
      cp /tmp/mxc-tune/src/tuning-output.txt "${f%.log}-times.txt" 2>/dev/null ;;
    latency)
      { "${NVCC:-/usr/local/cuda/bin/nvcc}" -std=c++17 -O2 -arch=sm_90 bench/gpu/launch_latency.cu -o /tmp/launch_latency &&
        timeout "$l" /tmp/launch_latency ${args:-200}; } > "$res/latency.md" 2>&1
      log "latency exit $?"; cat "$res/latency.md" | head -40 ;;
    ncu)
      f=$res/ncu-$(basename "${args%% *}" .onnx)$([[ $args == *--fp16* ]] && echo -fp16)$sfx.txt
      ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
      if [ -z "$ncu" ]; then log "ncu: not installed on the device"; else
        timeout "$l" "$ncu" --target-processes all -k 'regex:gemm_|attention|norm_row' -c 10 --section SpeedOfLight \
          --section WarpStateStats --section SchedulerStats --section Occupancy --section LaunchStats \
          --section MemoryWorkloadAnalysis "$MXC" perf $args --target hip --offload-arch sm_90 -n 1 --warmup 0 -q \
          > "$f" 2>&1; log "ncu exit $?"; grep -E "^  [a-z_:<]|Duration|Stall|Throughput" "$f" | head -30
      fi ;;
    graphs)
      timeout "$l" bash test/e2e/hip_graphs.sh sm_90 ${args} > "$res/graphs-$(date +%s).log" 2>&1; log "graphs exit $?" ;;
    bench)
      mkdir -p "$res/bench$sfx"
      OUT=$res/bench$sfx timeout "$l" bash bench/gpu/run.sh $args "${db[@]}" --deadline $((l - 30)) > /dev/null 2>&1
      log "bench exit $?"; tail -25 "$res/bench$sfx/bench.md" 2>/dev/null ;;
    conf|zoo)
      mkdir -p "$res/tests"
      what=conformance; [ "$name" = zoo ] && what=zoo
      dl=(); [ "$name" = conf ] && dl=(--deadline $((l - 20)))
      OUT=$res/tests timeout "$l" bash test/gpu/run.sh $what $args "${dl[@]}" > "$res/tests/$name-stdout.log" 2>&1
      log "$what exit $?"; tail -12 "$res/tests/summary.txt" 2>/dev/null ;;
    *) log "unknown stage $st" ;;
  esac
  pack
done
log "done"
pack
