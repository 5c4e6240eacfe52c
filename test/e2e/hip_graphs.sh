#!/bin/sh
# The hip runtime's graphs, modes and run_async through a program that uses the library
# (test/e2e/hip_graphs/program.cpp): results against a plain offload run, and the host time per run
# with graphs and kernel by kernel. On the device: test/e2e/hip_graphs.sh sm_90 [MODEL] [N];
# here: test/e2e/hip_graphs.sh emu (the host emulator; times are the emulator's).
# Exit status 0 when every result matches. MXC: the mxc to use (default build/mxc, else the
# .carry/bin/mxc of bench/gpu/prepare.sh, as on the device).
# The test command calls every e2e script with the build directory first: then arch is emu.
set -e
cd "$(dirname "$0")/../.."
if [ -n "${1:-}" ] && [ -d "$1" ]; then MXC=${MXC:-$1/mxc}; shift; fi
arch=${1:-emu}
model=${2:-examples/cnn.onnx}
iterations=${3:-200}
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
[ -n "${MXC:-}" ] || { MXC=build/mxc; [ -x "$MXC" ] || [ ! -x .carry/bin/mxc ] || MXC=.carry/bin/mxc; }
"$MXC" "$model" --target hip --offload-arch "$arch" -o "$d/libg.so" -q
case $arch in
emu) c++ -std=c++17 -O1 -Iruntime-stub/emu -I. -I"$d" -x c++ test/e2e/hip_graphs/program.cpp -x none -o "$d/hip_graphs" \
        -L"$d" -lg -Wl,-rpath,"$d" -lpthread ;;
sm_*) /usr/local/cuda/bin/nvcc -std=c++17 -arch="$arch" -Iruntime-stub/cuda -I. -I"$d" -x cu test/e2e/hip_graphs/program.cpp \
        -o "$d/hip_graphs" -L"$d" -lg -Xlinker -rpath,"$d" ;;
gfx*) clang++-15 -std=c++17 -x hip --rocm-path=/usr --rocm-device-lib-path=/usr/lib/x86_64-linux-gnu/amdgcn/bitcode \
        --offload-arch="$arch" -I. -I"$d" test/e2e/hip_graphs/program.cpp \
        -o "$d/hip_graphs" -L"$d" -lg -Wl,-rpath,"$d" -L/usr/lib/x86_64-linux-gnu -lamdhip64 ;;
*) echo "hip_graphs.sh: unknown arch '$arch' (emu, sm_NN or gfxNNN)" >&2; exit 2 ;;
esac
"$d/hip_graphs" "$iterations"
