// Kernels for emu/kernels.test, compiled by the host compiler against the emulator header
// (runtime-stub/emu/hip/hip_runtime.h), through mxc's own wrappers (templates/hip/common.hpp).
// Prints what each computed; the test checks it at MXC_EMU_WARP=32 and 64.
#include <hip/hip_runtime.h>

#include "templates/hip/common.hpp"

#include <stdio.h>
#include <string.h>

// Block sum: shared memory tree, then the last warp-sized step by shuffles.
__global__ void block_sum(const int* in, int* out) {
    __shared__ int buf[1024];
    unsigned t = threadIdx.x;
    buf[t] = in[blockIdx.x * blockDim.x + t];
    mxc::hip::block_sync();
    for (unsigned s = blockDim.x / 2; s >= static_cast<unsigned>(warpSize); s >>= 1) {
        if (t < s) buf[t] += buf[t + s];
        mxc::hip::block_sync();
    }
    if (t < static_cast<unsigned>(warpSize)) {
        int v = buf[t];
        for (int m = warpSize / 2; m > 0; m /= 2) v += mxc::hip::shfl_xor(v, m);
        if (t == 0) out[blockIdx.x] = v;
    }
}

// Wrong: thread 0 skips the barrier the others wait at.
__global__ void divergent(int* out) {
    if (threadIdx.x != 0) mxc::hip::block_sync();
    out[threadIdx.x] = 1;
}

int main(int argc, char** argv) {
    const int blocks = 3, threads = 512, n = blocks * threads;
    int *in, *out;
    if (hipMalloc(&in, n * sizeof(int)) != hipSuccess || hipMalloc(&out, n * sizeof(int)) != hipSuccess) return 1;
    int host[n];
    for (int i = 0; i < n; ++i) host[i] = i % 10;
    if (hipMemcpy(in, host, sizeof host, hipMemcpyHostToDevice) != hipSuccess) return 1;
    if (argc > 1 && !strcmp(argv[1], "divergent")) {
        hipLaunchKernelGGL(divergent, dim3(1), dim3(64), 0, nullptr, out);
        printf("launch: %s\n", hipGetErrorName(hipGetLastError()));
        printf("synchronize: %s\n", hipGetErrorName(hipDeviceSynchronize()));
        return 0;
    }
    hipLaunchKernelGGL(block_sum, dim3(blocks), dim3(threads), 0, nullptr, in, out);
    if (hipGetLastError() != hipSuccess) return 1;
    int sums[blocks];
    if (hipMemcpy(sums, out, sizeof sums, hipMemcpyDeviceToHost) != hipSuccess) return 1;
    printf("warpSize %d: sums %d %d %d\n", warpSize, sums[0], sums[1], sums[2]);
    return 0;
}
