// The instruction sets the cpu kernels choose between at run time (a library is built for any
// x86-64): the GEMM's micro-kernels, and the AVX2 / AVX-512 clones of the vectorised loops
// (fused epilogues, softmax rows, depthwise convolutions).
#pragma once
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define MXC_GEMM_AVX2 1
#else
#define MXC_GEMM_AVX2 0
#endif

namespace mxc {
namespace cpu {

enum class gemm_isa { base, avx2, avx512 };
// Whether the kernels of `isa` may use AVX2 and FMA (avx512 implies them).
constexpr bool gemm_isa_avx2(gemm_isa isa) { return isa != gemm_isa::base; }

// A kernel this process keeps to whatever the CPU has (mxc itself pins base, so that constant
// folding, and with it the weights of a library, do not depend on the machine that builds).
inline const gemm_isa*& gemm_isa_pinned() {
    static const gemm_isa* pinned = nullptr;
    return pinned;
}

// The kernel this process runs: the pinned one, else avx512 where the CPU has AVX-512F (and
// AVX2 and FMA; MXC_CPU_ISA=avx2 keeps avx2), avx2 where it has AVX2 and FMA (and MXC_CPU_ISA
// is not "base"), else base.
inline gemm_isa gemm_runtime_isa() {
    if (gemm_isa_pinned()) return *gemm_isa_pinned();
#if MXC_GEMM_AVX2
    static const gemm_isa isa = [] {
        const char* env = getenv("MXC_CPU_ISA");
        if (env && strcmp(env, "base") == 0) return gemm_isa::base;
        __builtin_cpu_init();
        if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma")) return gemm_isa::base;
        if (env && strcmp(env, "avx2") == 0) return gemm_isa::avx2;
        return __builtin_cpu_supports("avx512f") ? gemm_isa::avx512 : gemm_isa::avx2;
    }();
    return isa;
#else
    return gemm_isa::base;
#endif
}

} // namespace cpu
} // namespace mxc
