// Asynchronous copies from global to shared memory, in groups (NVIDIA sm_80+: cp.async; PTX
// ISA, "cp.async", "cp.async.commit_group", "cp.async.wait_group"):
//
//   async_copy16(dst, src, bytes);  // 16 bytes to shared dst (16-byte aligned): the first `bytes`
//                                   // (0..16) read from global src (16-byte aligned; not read
//                                   // when bytes is 0), the rest zero
//   async_copy_elem<N>(dst, src, in); // one element of N = 4 or 8 bytes (dst and src aligned to
//                                   // N): read from src where `in`, else zero (src not read)
//   async_commit();                 // closes the group of this thread's copies issued so far
//   async_wait<N>();                // waits until at most N of this thread's committed groups
//                                   // are still in flight
//
// A copy issued by one thread is visible to the others only after that thread's wait and a
// barrier (block_sync) that both pass. The loads bypass the registers, so a kernel can keep
// several k-tiles in flight without holding them (gemm_mma_kernel's pipelined loop).
//
// MXC_ASYNC_COPY is defined where these exist: nvcc for sm_80 and later, and the host SIMT
// emulator (runtime-stub/emu/hip/hip_runtime.h: each copy's source is read when it is issued,
// and it lands in shared memory only when its thread waits for its group, the latest moment
// the hardware allows, so that a missing wait shows as wrong results), except where the
// emulator stands for an AMD GPU (-DMXC_EMU_MMA=mfma) or -DMXC_EMU_NO_ASYNC_COPY; nowhere with
// -DMXC_NO_ASYNC_COPY (the A/B: `mxc --hip-compiler` naming a wrapper that adds it). AMD GPUs
// have no such copy (gfx90a/gfx940: global loads go through the registers): there, and on
// older NVIDIA GPUs, kernels keep their register-staged loops.
#pragma once
#include "templates/hip/common.hpp"

#if defined(MXC_NO_ASYNC_COPY)
// off (the A/B of bench/gpu/session.sh's -noasync stages)
#elif defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#define MXC_ASYNC_COPY 1
#elif defined(MXC_HIP_EMU) && defined(MXC_EMU_ASYNC_COPY)
#define MXC_ASYNC_COPY 1
#endif

#if defined(MXC_ASYNC_COPY)
namespace mxc {
namespace hip {

struct alignas(16) async_chunk {
    unsigned char b[16];
};

__device__ __forceinline__ void async_copy16(void* dst, const void* src, int bytes) {
#if defined(MXC_HIP_EMU)
    check_vector_aligned<async_chunk>(dst);
    if (bytes > 0) check_vector_aligned<async_chunk>(src);
    mxc_emu::async_copy(dst, src, 16, bytes);
#else
    const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(dst));
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(s), "l"(src), "r"(bytes) : "memory");
#endif
}

template <int N> __device__ __forceinline__ void async_copy_elem(void* dst, const void* src, bool in) {
    static_assert(N == 4 || N == 8, "async_copy_elem: 4 or 8 bytes");
#if defined(MXC_HIP_EMU)
    mxc_emu::async_copy(dst, src, N, in ? N : 0);
#else
    const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(dst));
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;\n" ::"r"(s), "l"(src), "n"(N), "r"(in ? N : 0) : "memory");
#endif
}

__device__ __forceinline__ void async_commit() {
#if defined(MXC_HIP_EMU)
    mxc_emu::async_commit();
#else
    asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
}

template <int N> __device__ __forceinline__ void async_wait() {
#if defined(MXC_HIP_EMU)
    mxc_emu::async_wait(N);
#else
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
#endif
}

} // namespace hip
} // namespace mxc
#endif
