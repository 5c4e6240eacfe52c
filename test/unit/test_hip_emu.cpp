// The host SIMT emulator (runtime-stub/emu/hip/hip_runtime.h, --offload-arch emu): kernels
// written here in HIP run on the CPU. Block barriers and warp shuffles must order the threads
// as a GPU does (a sequential run of the threads gives wrong sums), at warp sizes 32 and 64;
// barrier divergence fails the launch (it does not hang); capture records and replays.
#include <gtest/gtest.h>

#include "runtime-stub/emu/hip/hip_runtime.h"

#include <numeric>
#include <vector>

namespace {

// Block sum through shared memory: a tree with a barrier after every step.
__global__ void block_sum(const float* in, float* out) {
    __shared__ float buf[256];
    unsigned t = threadIdx.x;
    buf[t] = in[blockIdx.x * blockDim.x + t];
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s) buf[t] += buf[t + s];
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = buf[0];
}

// Warp sums with __shfl_xor (every lane gets the total) and __shfl_down (lane 0 does).
__global__ void warp_sums(const int* in, int* xor_out, int* down_out) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    int a = in[i], b = in[i];
    for (int m = warpSize / 2; m > 0; m /= 2) a += __shfl_xor(a, m);
    for (int d = warpSize / 2; d > 0; d /= 2) b += __shfl_down(b, static_cast<unsigned>(d));
    xor_out[i] = a;
    if (threadIdx.x % warpSize == 0) down_out[i / warpSize] = b;
}

// __shfl (broadcast and rotation), __shfl_up, and the votes.
__global__ void warp_moves(int* bcast, int* rot, int* up, unsigned long long* ballot, int* any, int* all) {
    int lane = static_cast<int>(threadIdx.x) % warpSize;
    unsigned i = threadIdx.x;
    bcast[i] = __shfl(lane * 10, 3);
    rot[i] = __shfl(lane, (lane + 1) % warpSize);
    up[i] = __shfl_up(lane, 2u);
    ballot[i] = __ballot(lane % 3 == 0);
    any[i] = __any(lane == 5);
    all[i] = __all(lane < warpSize - 1);
}

__global__ void indices(unsigned* out) {
    unsigned tid = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    unsigned bid = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
    unsigned per_block = blockDim.x * blockDim.y * blockDim.z;
    out[bid * per_block + tid] = bid * 1000 + tid;
}

__global__ void atomics(int* i, float* f, double* d, unsigned long long* u, int* mx, unsigned* cas) {
    atomicAdd(i, 1);
    atomicAdd(f, 0.5f);
    atomicAdd(d, 0.25);
    atomicAdd(u, 2ull);
    atomicMax(mx, static_cast<int>(threadIdx.x));
    atomicCAS(cas, 0u, 7u); // only the first thread swaps
}

// Divergent barriers: a thread leaves early; two branches wait at different barriers; a
// lane leaves before a warp shuffle.
__global__ void early_exit(int* out) {
    if (threadIdx.x == 3) return;
    __syncthreads();
    out[threadIdx.x] = 1;
}
__global__ void two_barriers(int* out) {
    if (threadIdx.x < 8) {
        __syncthreads();
        out[threadIdx.x] = 1;
    } else {
        __syncthreads();
        out[threadIdx.x] = 2;
    }
}
__global__ void shuffle_after_exit(int* out) {
    if (threadIdx.x == 5) return;
    out[threadIdx.x] = __shfl_xor(static_cast<int>(threadIdx.x), 1);
}

__global__ void add_one(float* x, int n) {
    int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    if (i < n) x[i] += 1.0f;
}

template <class T> T* device_copy(const std::vector<T>& host) {
    T* p = nullptr;
    EXPECT_EQ(hipMalloc(&p, host.size() * sizeof(T)), hipSuccess);
    EXPECT_EQ(hipMemcpy(p, host.data(), host.size() * sizeof(T), hipMemcpyHostToDevice), hipSuccess);
    return p;
}
template <class T> std::vector<T> host_copy(const T* p, size_t n) {
    std::vector<T> r(n);
    EXPECT_EQ(hipMemcpy(r.data(), p, n * sizeof(T), hipMemcpyDeviceToHost), hipSuccess);
    return r;
}

class HipEmu : public ::testing::TestWithParam<int> {
protected:
    void SetUp() override {
        mxc_emu::set_warp_size(GetParam());
        ASSERT_EQ(hipDeviceReset(), hipSuccess);
    }
    void TearDown() override {
        mxc_emu::set_warp_size(32);
        (void)hipDeviceReset();
    }
};

TEST_P(HipEmu, SharedMemoryReductionWithBarriers) {
    std::vector<float> in(4 * 256);
    for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<float>(i % 17);
    float* d_in = device_copy(in);
    float* d_out = nullptr;
    ASSERT_EQ(hipMalloc(&d_out, 4 * sizeof(float)), hipSuccess);
    hipLaunchKernelGGL(block_sum, dim3(4), dim3(256), 0, nullptr, d_in, d_out);
    ASSERT_EQ(hipGetLastError(), hipSuccess);
    ASSERT_EQ(hipDeviceSynchronize(), hipSuccess);
    auto out = host_copy(d_out, 4);
    for (int b = 0; b < 4; ++b)
        EXPECT_EQ(out[b], std::accumulate(in.begin() + b * 256, in.begin() + (b + 1) * 256, 0.0f)) << "block " << b;
    (void)hipFree(d_in);
    (void)hipFree(d_out);
}

TEST_P(HipEmu, WarpShuffleReductions) {
    const int ws = GetParam(), n = 256;
    EXPECT_EQ(warpSize, ws);
    std::vector<int> in(n);
    for (int i = 0; i < n; ++i) in[i] = i * 7 % 13;
    int* d_in = device_copy(in);
    int *d_xor = nullptr, *d_down = nullptr;
    ASSERT_EQ(hipMalloc(&d_xor, n * sizeof(int)), hipSuccess);
    ASSERT_EQ(hipMalloc(&d_down, n / ws * sizeof(int)), hipSuccess);
    hipLaunchKernelGGL(warp_sums, dim3(2), dim3(128), 0, nullptr, d_in, d_xor, d_down);
    ASSERT_EQ(hipGetLastError(), hipSuccess);
    auto x = host_copy(d_xor, n);
    auto d = host_copy(d_down, n / ws);
    for (int w = 0; w < n / ws; ++w) {
        int sum = std::accumulate(in.begin() + w * ws, in.begin() + (w + 1) * ws, 0);
        EXPECT_EQ(d[w], sum) << "warp " << w;
        for (int l = 0; l < ws; ++l) EXPECT_EQ(x[w * ws + l], sum) << "warp " << w << " lane " << l;
    }
    (void)hipFree(d_in);
    (void)hipFree(d_xor);
    (void)hipFree(d_down);
}

TEST_P(HipEmu, WarpMovesAndVotes) {
    const int ws = GetParam(), n = 2 * ws;
    int *bcast, *rot, *up, *any, *all;
    unsigned long long* ballot;
    for (int** p : {&bcast, &rot, &up, &any, &all}) ASSERT_EQ(hipMalloc(p, n * sizeof(int)), hipSuccess);
    ASSERT_EQ(hipMalloc(&ballot, n * sizeof(unsigned long long)), hipSuccess);
    hipLaunchKernelGGL(warp_moves, dim3(1), dim3(n), 0, nullptr, bcast, rot, up, ballot, any, all);
    ASSERT_EQ(hipGetLastError(), hipSuccess);
    unsigned long long mask = 0;
    for (int l = 0; l < ws; l += 3) mask |= 1ull << l;
    auto b = host_copy(bcast, n), r = host_copy(rot, n), u = host_copy(up, n), a = host_copy(any, n), al = host_copy(all, n);
    auto bl = host_copy(ballot, n);
    for (int i = 0; i < n; ++i) {
        int lane = i % ws;
        EXPECT_EQ(b[i], 30);
        EXPECT_EQ(r[i], (lane + 1) % ws);
        EXPECT_EQ(u[i], lane < 2 ? lane : lane - 2);
        EXPECT_EQ(bl[i], mask);
        EXPECT_EQ(a[i], 1);
        EXPECT_EQ(al[i], 0);
    }
}

TEST_P(HipEmu, ThreeDimensionalIndices) {
    dim3 grid(3, 2, 2), block(4, 3, 2);
    const unsigned total = 12 * 24;
    unsigned* out;
    ASSERT_EQ(hipMalloc(&out, total * sizeof(unsigned)), hipSuccess);
    ASSERT_EQ(hipMemset(out, 0xff, total * sizeof(unsigned)), hipSuccess);
    hipLaunchKernelGGL(indices, grid, block, 0, nullptr, out);
    ASSERT_EQ(hipGetLastError(), hipSuccess);
    auto h = host_copy(out, total);
    for (unsigned i = 0; i < total; ++i) EXPECT_EQ(h[i], i / 24 * 1000 + i % 24);
}

TEST_P(HipEmu, Atomics) {
    int *i, *mx;
    float* f;
    double* d;
    unsigned long long* u;
    unsigned* cas;
    ASSERT_EQ(hipMalloc(&i, 4), hipSuccess);
    ASSERT_EQ(hipMalloc(&mx, 4), hipSuccess);
    ASSERT_EQ(hipMalloc(&f, 4), hipSuccess);
    ASSERT_EQ(hipMalloc(&d, 8), hipSuccess);
    ASSERT_EQ(hipMalloc(&u, 8), hipSuccess);
    ASSERT_EQ(hipMalloc(&cas, 4), hipSuccess);
    for (void* p : {(void*)i, (void*)mx, (void*)f, (void*)d, (void*)u, (void*)cas}) ASSERT_EQ(hipMemset(p, 0, 4), hipSuccess);
    ASSERT_EQ(hipMemset(d, 0, 8), hipSuccess);
    ASSERT_EQ(hipMemset(u, 0, 8), hipSuccess);
    hipLaunchKernelGGL(atomics, dim3(3), dim3(100), 0, nullptr, i, f, d, u, mx, cas);
    ASSERT_EQ(hipGetLastError(), hipSuccess);
    EXPECT_EQ(*i, 300);
    EXPECT_EQ(*f, 150.0f);
    EXPECT_EQ(*d, 75.0);
    EXPECT_EQ(*u, 600u);
    EXPECT_EQ(*mx, 99);
    EXPECT_EQ(*cas, 7u);
}

TEST_P(HipEmu, BarrierDivergenceFailsTheLaunch) {
    int* out;
    ASSERT_EQ(hipMalloc(&out, 64 * sizeof(int)), hipSuccess);
    for (auto kernel : {early_exit, two_barriers, shuffle_after_exit}) {
        ASSERT_EQ(hipDeviceReset(), hipSuccess);
        hipLaunchKernelGGL(kernel, dim3(2), dim3(64), 0, nullptr, out);
        EXPECT_EQ(hipGetLastError(), hipErrorLaunchFailure);
        EXPECT_EQ(hipStreamSynchronize(nullptr), hipErrorLaunchFailure); // sticky, like a GPU fault
        EXPECT_EQ(hipGetLastError(), hipErrorLaunchFailure);
    }
    // After a reset, the emulator runs kernels again (the abandoned fibers are reusable).
    ASSERT_EQ(hipDeviceReset(), hipSuccess);
    std::vector<float> in(256, 1.0f);
    float* d_in = device_copy(in);
    float* d_out;
    ASSERT_EQ(hipMalloc(&d_out, sizeof(float)), hipSuccess);
    hipLaunchKernelGGL(block_sum, dim3(1), dim3(256), 0, nullptr, d_in, d_out);
    ASSERT_EQ(hipGetLastError(), hipSuccess);
    EXPECT_EQ(host_copy(d_out, 1)[0], 256.0f);
}

TEST_P(HipEmu, InvalidConfiguration) {
    float* x;
    ASSERT_EQ(hipMalloc(&x, 4096), hipSuccess);
    hipLaunchKernelGGL(add_one, dim3(1), dim3(1025), 0, nullptr, x, 1);
    EXPECT_EQ(hipGetLastError(), hipErrorInvalidConfiguration);
    EXPECT_EQ(hipGetLastError(), hipSuccess); // not sticky
    hipLaunchKernelGGL(add_one, dim3(0), dim3(32), 0, nullptr, x, 1);
    EXPECT_EQ(hipGetLastError(), hipErrorInvalidConfiguration);
    hipLaunchKernelGGL(add_one, dim3(1), dim3(32, 32, 2), 0, nullptr, x, 1);
    EXPECT_EQ(hipGetLastError(), hipErrorInvalidConfiguration);
}

// Dynamic shared memory (extern __shared__ on a GPU): the launch's bytes, shared by the block
// (thread t writes word t, thread 0 sums them after the barrier), its start undefined (here
// 0xff bytes); past 48 KiB only when the kernel was allowed them (hipFuncSetAttribute), as CUDA.
__global__ void dynamic_sum(unsigned* out, unsigned words) {
    unsigned* buf = reinterpret_cast<unsigned*>(mxc_emu::dynamic_shared());
    if (threadIdx.x == 0 && blockIdx.x == 0) out[1] = buf[words - 1]; // before anything writes it
    __syncthreads();
    for (unsigned i = threadIdx.x; i < words; i += blockDim.x) buf[i] = i;
    __syncthreads();
    if (threadIdx.x == 0) {
        unsigned s = 0;
        for (unsigned i = 0; i < words; ++i) s += buf[i];
        out[0] = s;
    }
}
TEST_P(HipEmu, DynamicSharedMemory) {
    unsigned* out;
    ASSERT_EQ(hipMalloc(&out, 8), hipSuccess);
    const void* k = reinterpret_cast<const void*>(dynamic_sum);
    ASSERT_EQ(hipFuncSetAttribute(k, hipFuncAttributeMaxDynamicSharedMemorySize, 0), hipSuccess); // (the other warp size's)
    const unsigned small = 40 * 1024 / 4, big = 80 * 1024 / 4;
    hipLaunchKernelGGL(dynamic_sum, dim3(2), dim3(256), small * 4, nullptr, out, small);
    ASSERT_EQ(hipGetLastError(), hipSuccess);
    EXPECT_EQ(host_copy(out, 2)[0], small * (small - 1) / 2);
    EXPECT_EQ(host_copy(out, 2)[1], 0xffffffffu); // undefined at the start of the launch
    hipLaunchKernelGGL(dynamic_sum, dim3(2), dim3(256), big * 4, nullptr, out, big);
    EXPECT_EQ(hipGetLastError(), hipErrorInvalidValue); // not allowed yet
    ASSERT_EQ(hipFuncSetAttribute(k, hipFuncAttributeMaxDynamicSharedMemorySize, int(big * 4)), hipSuccess);
    hipLaunchKernelGGL(dynamic_sum, dim3(2), dim3(256), big * 4, nullptr, out, big);
    ASSERT_EQ(hipGetLastError(), hipSuccess);
    EXPECT_EQ(host_copy(out, 2)[0], big * (big - 1) / 2);
    hipLaunchKernelGGL(dynamic_sum, dim3(2), dim3(256), big * 4 + 4, nullptr, out, big + 1); // past what was allowed
    EXPECT_EQ(hipGetLastError(), hipErrorInvalidValue);
    EXPECT_EQ(hipFuncSetAttribute(k, hipFuncAttributeMaxDynamicSharedMemorySize, 228 * 1024), hipErrorInvalidValue); // sm_90: 227 KiB
}

TEST_P(HipEmu, GraphCaptureRecordsAndReplays) {
    const int n = 100;
    std::vector<float> host(n, 1.0f), back(n, 0.0f);
    float* x;
    ASSERT_EQ(hipMalloc(&x, n * sizeof(float)), hipSuccess);
    hipStream_t s;
    ASSERT_EQ(hipStreamCreateWithFlags(&s, hipStreamNonBlocking), hipSuccess);
    hipStreamCaptureStatus status;
    ASSERT_EQ(hipStreamBeginCapture(s, hipStreamCaptureModeGlobal), hipSuccess);
    ASSERT_EQ(hipStreamIsCapturing(s, &status), hipSuccess);
    EXPECT_EQ(status, hipStreamCaptureStatusActive);
    ASSERT_EQ(hipMemcpyAsync(x, host.data(), n * sizeof(float), hipMemcpyHostToDevice, s), hipSuccess);
    hipLaunchKernelGGL(add_one, dim3(1), dim3(128), 0, s, x, n);
    hipLaunchKernelGGL(add_one, dim3(1), dim3(128), 0, s, x, n);
    ASSERT_EQ(hipMemcpyAsync(back.data(), x, n * sizeof(float), hipMemcpyDeviceToHost, s), hipSuccess);
    EXPECT_EQ(hipMemcpy(back.data(), x, 4, hipMemcpyDeviceToHost), hipErrorStreamCaptureImplicit); // no sync copies
    hipGraph_t g;
    ASSERT_EQ(hipStreamEndCapture(s, &g), hipSuccess);
    EXPECT_EQ(back[0], 0.0f); // recorded, not run
    size_t nodes = 0;
    ASSERT_EQ(hipGraphGetNodes(g, nullptr, &nodes), hipSuccess);
    EXPECT_EQ(nodes, 4u);
    hipGraphExec_t exec;
    ASSERT_EQ(hipGraphInstantiate(&exec, g, nullptr, nullptr, 0), hipSuccess);
    ASSERT_EQ(hipGraphDestroy(g), hipSuccess); // the executable graph keeps its own copy
    ASSERT_EQ(hipGraphLaunch(exec, s), hipSuccess);
    ASSERT_EQ(hipStreamSynchronize(s), hipSuccess);
    EXPECT_EQ(back[0], 3.0f);
    EXPECT_EQ(back[n - 1], 3.0f);
    host.assign(n, 10.0f); // a replay reads the host buffer anew
    ASSERT_EQ(hipGraphLaunch(exec, s), hipSuccess);
    EXPECT_EQ(back[n - 1], 12.0f);
    ASSERT_EQ(hipGraphExecDestroy(exec), hipSuccess);

    // Synchronising a capturing stream invalidates the capture.
    ASSERT_EQ(hipStreamBeginCapture(s, hipStreamCaptureModeGlobal), hipSuccess);
    EXPECT_EQ(hipStreamSynchronize(s), hipErrorStreamCaptureUnsupported);
    EXPECT_EQ(hipStreamEndCapture(s, &g), hipErrorStreamCaptureInvalidated);
    EXPECT_EQ(g, nullptr);
    ASSERT_EQ(hipStreamIsCapturing(s, &status), hipSuccess);
    EXPECT_EQ(status, hipStreamCaptureStatusNone);
    (void)hipGetLastError();
    ASSERT_EQ(hipStreamDestroy(s), hipSuccess);
    (void)hipFree(x);
}

INSTANTIATE_TEST_SUITE_P(WarpSize, HipEmu, ::testing::Values(32, 64), [](const auto& info) {
    return "warp" + std::to_string(info.param);
});

} // namespace
