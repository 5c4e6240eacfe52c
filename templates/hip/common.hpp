// Helpers shared by every hip kernel template. The mxc_kargs a launcher gets point to HOST
// memory (descriptors and parameters are static constants of the generated code); only the
// data pointers are device pointers. A launcher therefore copies what the device needs into
// `dev_args`, passed BY VALUE as a kernel argument, and launches one thread per output
// element (grid-stride loop). Plain HIP runtime API only, so the CUDA mapping works.
#pragma once
#include <hip/hip_runtime.h>

#include <atomic>

#include "templates/common/abi.hpp"
#include "templates/common/math.hpp"
#include "templates/common/types.hpp"

// A kernel's largest block (lets the compiler budget registers for it: on AMD, a kernel
// without one is compiled for 1024 threads, at most 128 VGPRs).
#if defined(__launch_bounds__)
#define MXC_LAUNCH_BOUNDS(n) __launch_bounds__(n)
#else
#define MXC_LAUNCH_BOUNDS(n)
#endif
// The bound on AMD only: there it raises the VGPR budget above the 1024-thread default; on
// NVIDIA ptxas takes a bound as licence to cap registers for occupancy (the team kernels got
// 64 registers and the fallback layer norm 240 bytes of spills; without it, 134 and none).
#if defined(__launch_bounds__) && !defined(__CUDACC__)
#define MXC_LAUNCH_BOUNDS_AMD(n) __launch_bounds__(n)
#else
#define MXC_LAUNCH_BOUNDS_AMD(n)
#endif
// With a minimum of b resident blocks per SM on NVIDIA (caps the registers at 64K / (n b));
// HIP's second argument means something else (waves per EU): n alone there.
#if defined(__launch_bounds__) && defined(__CUDACC__)
#define MXC_LAUNCH_BOUNDS_MIN(n, b) __launch_bounds__(n, b)
#else
#define MXC_LAUNCH_BOUNDS_MIN(n, b) MXC_LAUNCH_BOUNDS(n)
#endif

namespace mxc {
namespace hip {

constexpr int max_inputs = 8;   // the most inputs of one kernel launch (fused kernels: passes/fuse_*.cpp)
constexpr int max_ip = 48;      // the most integer parameters (pooling of rank 8 needs 33)
constexpr int max_fp = 8;      // the most float parameters (resize needs 5)

struct dev_args {
    const void* in[max_inputs];
    mxc_desc in_desc[max_inputs];
    void* out;
    mxc_desc out_desc;
    int64_t ip[max_ip];
    double fp[max_fp];
    int32_t n_in, n_ip, n_fp;
};

// Copies the first inputs, descriptors and parameters of k (beyond the limits: dropped; the
// op definitions never pack more).
inline dev_args pack(const mxc_kargs& k) {
    dev_args a{};
    a.n_in = k.n_in < max_inputs ? k.n_in : max_inputs;
    for (int i = 0; i < a.n_in; ++i) {
        a.in[i] = k.in[i];
        a.in_desc[i] = k.in_desc[i];
    }
    a.out = k.out;
    a.out_desc = *k.out_desc;
    a.n_ip = k.n_ip < max_ip ? k.n_ip : max_ip;
    for (int i = 0; i < a.n_ip; ++i) a.ip[i] = k.ip[i];
    a.n_fp = k.n_fp < max_fp ? k.n_fp : max_fp;
    for (int i = 0; i < a.n_fp; ++i) a.fp[i] = k.fp[i];
    return a;
}

// Block barrier and warp shuffles, the same on every platform (HIP's unsynchronised
// __shfl_* on AMD and the emulator, CUDA's *_sync forms on NVIDIA; full warps only). Use
// warpSize, never 32 or 64: an AMD wavefront has 64 lanes, an NVIDIA warp 32.
#if defined(MXC_HIP_EMU)
// The emulator checks that every thread waits at the same barrier: pass the caller's site.
__device__ inline void block_sync(const char* file = __builtin_FILE(), int line = __builtin_LINE()) { __syncthreads(file, line); }
#else
__device__ inline void block_sync() { __syncthreads(); }
#endif
// Programmatic dependent launch (NVIDIA sm_90+; runtime-stub/hip_cuda_compat.h launches every
// kernel with it where MXC_PDL=1 and the device has it): the next kernel in the stream may start
// while this one finishes, so that its launch and block scheduling overlap this kernel's tail
// instead of leaving a gap between the two. Every kernel calls grid_dependency_sync() first,
// before it touches global memory: it waits until the kernel before has completed and its
// writes are visible (griddepcontrol.wait), then lets the next kernel be scheduled
// (griddepcontrol.launch_dependents: its blocks start once every block of this grid has called
// it, so they only take the slots this grid's last wave leaves free, and wait there). In that
// order, at most one kernel waits ahead of the one running. The other order (signal, then
// wait: how this was written until 2026-11-28) lets the waiting kernel's blocks signal at once,
// so the kernel after it is scheduled too, and the one after that, as long as their blocks
// fit: a row of waiting kernels holds registers and shared memory on the SMs while the one
// ahead of them runs, and a product's blocks find less room (the likely reason why every
// batch-1 model ran 5-18% slower with PDL on the H200, 2026-11-24; this order is not yet
// timed). Since each kernel waits for the one before, which waited for its own predecessor, a
// kernel sees the writes of every earlier kernel, as with plain stream order. Without the
// launch attribute (or on AMD, older GPUs, the emulator) both are no-ops. (PTX ISA:
// griddepcontrol; CUDA programming guide: programmatic dependent launch.)
__device__ inline void grid_dependency_sync() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;" ::: "memory");
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

// Dynamic shared memory: the shared bytes a launch asks for (hipLaunchKernelGGL's fourth
// argument), for kernels that need more than the 48 KiB of static shared memory (on NVIDIA
// sm_80+, up to 163 KiB (sm_80) or 227 KiB (sm_90) per block; 64 KiB on AMD), 128-byte aligned.
template <class T> __device__ __forceinline__ T* dynamic_shared() {
#if defined(MXC_HIP_EMU)
    return reinterpret_cast<T*>(mxc_emu::dynamic_shared());
#else
    extern __shared__ __attribute__((aligned(128))) unsigned char mxc_dynamic_shared_bytes[];
    return reinterpret_cast<T*>(mxc_dynamic_shared_bytes);
#endif
}
// Past 48 KiB of it, kernel K must be allowed its bytes before it is launched: once per device
// (one instantiation per kernel; the call is not a stream operation, so it may come while the
// stream captures a graph). A refusal is left for hipGetLastError, and the launch fails.
template <auto K> inline void allow_dynamic_shared(int bytes) {
    if (bytes <= 48 * 1024) return;
    static std::atomic<bool> done[64];
    int dev = 0;
    if (hipGetDevice(&dev) != hipSuccess || dev < 0 || dev >= 64) dev = 0;
    if (done[dev].load(std::memory_order_relaxed)) return;
    if (hipFuncSetAttribute(reinterpret_cast<const void*>(K), hipFuncAttributeMaxDynamicSharedMemorySize, bytes) == hipSuccess)
        done[dev].store(true, std::memory_order_relaxed);
}

// Whether p may be read or written by 16-byte vectors (the host's and the views' checks before
// they take a vector path).
MXC_HD inline bool aligned_16(const void* p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; }

// A 16-byte (or other vector) access at p must be aligned to the vector: a GPU faults
// ("misaligned address"), the host does not, so the emulator checks every vector access.
template <class V> __device__ inline void check_vector_aligned(const void* p) {
#if defined(MXC_HIP_EMU)
    __atomic_fetch_add(&mxc_emu::vector_accesses(), 1, __ATOMIC_RELAXED);
    if (reinterpret_cast<uintptr_t>(p) % alignof(V))
        mxc_emu::fail_block("misaligned vector access: %p is not %zu-byte aligned", p, alignof(V));
#else
    (void)p;
#endif
}
template <class V> __device__ inline V vector_load(const void* p) {
    check_vector_aligned<V>(p);
    return *static_cast<const V*>(p);
}
template <class V> __device__ inline void vector_store(void* p, const V& v) {
    check_vector_aligned<V>(p);
    *static_cast<V*>(p) = v;
}

template <class T> __device__ inline T shfl_xor(T v, int lane_mask) {
#if defined(__HIP_PLATFORM_NVIDIA__)
    return __shfl_xor_sync(0xffffffffu, v, lane_mask);
#else
    return __shfl_xor(v, lane_mask);
#endif
}
template <class T> __device__ inline T shfl_down(T v, unsigned delta) {
#if defined(__HIP_PLATFORM_NVIDIA__)
    return __shfl_down_sync(0xffffffffu, v, delta);
#else
    return __shfl_down(v, delta);
#endif
}
template <class T> __device__ inline T shfl(T v, int src_lane) {
#if defined(__HIP_PLATFORM_NVIDIA__)
    return __shfl_sync(0xffffffffu, v, src_lane);
#else
    return __shfl(v, src_lane);
#endif
}

template <class T> __device__ inline const T* in_ptr(const dev_args& a, int i) { return static_cast<const T*>(a.in[i]); }
template <class T> __device__ inline T* out_ptr(const dev_args& a) { return static_cast<T*>(a.out); }

// Runs f(a, i) for i in [0, n): one thread per index, grid-stride.
template <class F> __global__ void for_each_index(dev_args a, int64_t n, F f) {
    grid_dependency_sync();
    const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
    for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step) f(a, i);
}

// Kernels are launched with hipLaunchKernelGGL (never <<<...>>>), so that the host SIMT
// emulator (--offload-arch emu) runs the same sources.
template <class F> inline void launch(const dev_args& a, int64_t n, hipStream_t stream, F f) {
    if (n <= 0) return;
    const int64_t block = 256;
    int64_t grid = (n + block - 1) / block;
    if (grid > 65535 * 16) grid = 65535 * 16;
    hipLaunchKernelGGL(for_each_index<F>, dim3(static_cast<unsigned>(grid)), dim3(static_cast<unsigned>(block)), 0,
                       stream, a, n, f);
}

// Clears `words` 32-bit words at p: split-K's tile counters at the start of each run in a
// caller's workspace (runtime-stub/runtime.hpp; the instance's own arena has them cleared once,
// at create; templates/hip/gemm.hpp gemm_fixup_out). A one-block kernel rather than a
// hipMemsetAsync: in a captured graph the memset node was followed by a gap of 60-120 us
// before the first kernel on the H200 (2026-11-24 profiles, bench/gpu/timeline.py), the
// largest idle stretch of every run; a kernel node follows a kernel node in about 1 us.
// (A template, so that every unit that includes this may define it.)
template <class W> __global__ void __launch_bounds__(256) zero_words_kernel(W* p, int64_t words) {
    grid_dependency_sync();
    for (int64_t i = threadIdx.x; i < words; i += blockDim.x) p[i] = 0;
}
inline void zero_words(void* p, int64_t bytes, hipStream_t stream) {
    hipLaunchKernelGGL(zero_words_kernel<unsigned>, dim3(1), dim3(256), 0, stream, static_cast<unsigned*>(p), bytes / 4);
}

// The usual launch: one index per output element.
template <class F> inline void launch_per_output(const mxc_kargs& k, hipStream_t stream, F f) {
    launch(pack(k), mxc_elements(*k.out_desc), stream, f);
}

} // namespace hip
} // namespace mxc
