# Sourced by bench/gpu/run.sh and test/gpu/run.sh (bash, from the repository root): finds
# mxc, nvcc and a GPU.
#   MXC      as set, else .carry/bin/mxc (carried by bench/gpu/prepare.sh), else build/mxc
#   NVCC     nvcc on PATH or in /usr/local/cuda/bin. mxc calls /usr/local/cuda/bin/nvcc unless
#            told (--hip-compiler, which `mxc conformance` lacks): when nvcc lives elsewhere and
#            /usr/local/cuda does not exist, it is made a link to nvcc's toolkit (as root: the
#            device runs commands as root), else MXC_HIP_COMPILER is set for --hip-compiler
#            (unless the caller set it)
#   GPU      the name of GPU 0, empty when there is none (nvidia-smi, else torch)
#   PY       a python3 that has onnx
# (a transfer that drops the execute bits of the carried files: put them back)
[[ -f .carry/bin/mxc && ! -x .carry/bin/mxc ]] && chmod +x .carry/bin/mxc .carry/bin/mxc.bin
if [[ -n "${MXC:-}" ]]; then :; elif [[ -x .carry/bin/mxc ]]; then MXC=$PWD/.carry/bin/mxc; else MXC=$PWD/build/mxc; fi
NVCC=$(command -v nvcc || true)
[[ -z "$NVCC" && -x /usr/local/cuda/bin/nvcc ]] && NVCC=/usr/local/cuda/bin/nvcc
# (a caller's MXC_HIP_COMPILER is kept: session.sh's -noasync stages name a wrapper that adds
# -DMXC_NO_ASYNC_COPY; until 2026-11-24 this line cleared it, so those stages built the default)
MXC_HIP_COMPILER=${MXC_HIP_COMPILER:-}
if [[ -z "$MXC_HIP_COMPILER" && -n "$NVCC" && ! -x /usr/local/cuda/bin/nvcc ]]; then
  if [[ ! -e /usr/local/cuda && -w /usr/local ]]; then
    ln -s "$(dirname "$(dirname "$(readlink -f "$NVCC")")")" /usr/local/cuda && echo "env.sh: linked /usr/local/cuda -> $(readlink /usr/local/cuda)"
  fi
  [[ -x /usr/local/cuda/bin/nvcc ]] || MXC_HIP_COMPILER=$NVCC
fi
GPU=
if command -v nvidia-smi >/dev/null 2>&1; then
  GPU=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
fi
if [[ -z "$GPU" ]] && command -v python3 >/dev/null 2>&1; then
  GPU=$(python3 -c 'import torch; print(torch.cuda.get_device_name(0) if torch.cuda.is_available() else "")' 2>/dev/null || true)
fi
# PY: a python3 with onnx (the device's python3; here, Debian's /usr/bin/python3)
PY=python3
python3 -c 'import onnx' 2>/dev/null || PY=/usr/bin/python3
export MXC NVCC MXC_HIP_COMPILER GPU PY
# Prints what was found; on failure the reason as the last line, and returns 77 where there is
# no GPU (the callers' skip) or 1 where a GPU is there but something else is missing.
device_ready() {
  echo "mxc: $MXC; nvcc: ${NVCC:-none}${MXC_HIP_COMPILER:+ (passed as --hip-compiler)}; GPU: ${GPU:-none}"
  [[ -n "$GPU" ]] || { echo "no GPU found (nvidia-smi / torch.cuda)"; return 77; }
  [[ -x "$MXC" ]] || { echo "no mxc: run bash bench/gpu/prepare.sh here and carry .carry" ; return 1; }
  "$MXC" version >/dev/null || { echo "$MXC does not run on this machine (missing libraries?)"; return 1; }
  [[ -n "$NVCC" ]] || { echo "no nvcc found (PATH, /usr/local/cuda/bin)"; return 1; }
}
