#!/usr/bin/env bash
# Installs what building and testing mxc needs, from Debian packages only. Idempotent: it
# installs only what is missing. nvcc (/usr/local/cuda) is optional: without it the NVIDIA
# compile checks are skipped with a message.
set -euo pipefail
cd "$(dirname "$0")/.."
pkgs=(
  cmake ninja-build g++ ccache pkg-config
  libonnx-dev libprotobuf-dev protobuf-compiler   # ONNX import
  libcli11-dev libgtest-dev                       # CLI, unit tests
  llvm-14-tools                                   # lit + FileCheck
  clang-14 libclang-rt-14-dev                     # sanitizer flavour + libFuzzer (tools/test-sanitize.sh)
  python3-onnx python3-numpy                      # example and test model scripts (/usr/bin/python3)
  hipcc libamdhip64-dev rocm-device-libs          # the AMD HIP target (clang-15)
)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
  $SUDO apt-get update -q >/dev/null
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
fi

# ONNX Runtime (CPU, from npm) is the independent reference of the end-to-end tests and the
# CPU peer of the benchmarks. A plain install would try to download a GPU build: skip that.
if [ ! -d tools/ort/node_modules/onnxruntime-node ] && command -v npm >/dev/null; then
  echo "setup: installing onnxruntime-node (npm)"
  (cd tools/ort && ONNXRUNTIME_NODE_INSTALL=skip npm ci --no-audit --no-fund --loglevel=error >/dev/null) ||
    echo "setup: warning: onnxruntime-node could not be installed; tests that compare with it will skip"
fi
