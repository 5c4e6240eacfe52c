// gemm: the blocked matrix product behind the cpu dot and convolution kernels (element
// types that compute in float or double: float, double, half and bfloat16; the packing
// widens half / bfloat16 to float, so the micro-kernel and the accumulation are fp32, and
// only the epilogue's store rounds; other element types keep the plain loops of
// templates/cpu/dot.hpp and convolution.hpp).
//   y[i * ldy + j] = epi(sum_k A(i, k) * B(k, j), ebase + i * ldy + j),  i < m, j < n
// A and B are read only through packing functors, so strided views (dot) and the implicit
// im2col of a convolution share one kernel:
//   pack_a(i0, rows, k0, kc, dst): dst[kk * mr + r] = A(i0 + r, k0 + kk), r < rows (rows <= mr)
//   pack_b(k0, kc, j0, cols, dst): dst[c / nr * kc * nr + kk * nr + c % nr] = B(k0 + kk, j0 + c),
//                                  c < cols (cols <= nc: nr-wide strips, each kc x nr)
// (the padding of the last strip of each panel is zeroed by the caller). Scheme (Goto/BLIS): the columns are
// cut into blocks of mc x nc (the unit of work of the thread pool, gemm_block); for every
// depth slice of kc a kc x nc panel of B is packed into nr-wide strips (kept in L2), then
// every mr rows of A are packed into one strip (L1) and a register-tiled micro-kernel
// multiplies it with each B strip: mr x nr accumulators in GCC/clang vector extensions (no
// intrinsics: plain SSE2 code by default, AVX code when the library is built for it). The block accumulates in a buffer over the depth slices and the epilogue maps
// it into y. Buffers live on the stack (mc * nc + kc * (nc + mr) elements, 131 KiB for
// float): no allocation, no shared state.
#pragma once
#include "templates/cpu/common.hpp"

#include <string.h>
#include <type_traits>

namespace mxc {
namespace cpu {

// The vector of the micro-kernel: the widest the build targets without asking (16 bytes:
// SSE2, the x86-64 baseline; 32 with AVX, e.g. --cpu-arch x86-64-v3), so that GCC keeps the
// accumulators in registers.
#if defined(__AVX__)
constexpr int gemm_vec_bytes = 32;
#else
constexpr int gemm_vec_bytes = 16;
#endif
template <class C> struct gemm_vec;
template <> struct gemm_vec<float> { typedef float type __attribute__((vector_size(gemm_vec_bytes))); };
template <> struct gemm_vec<double> { typedef double type __attribute__((vector_size(gemm_vec_bytes))); };

// Whether element type T takes the blocked path (its compute type is float or double).
template <class T> constexpr bool gemm_supported =
    std::is_same<compute_t<T>, float>::value || std::is_same<compute_t<T>, double>::value;

template <class C> struct gemm_shape {
    static constexpr int lanes = gemm_vec_bytes / sizeof(C);
    static constexpr int nv = 2; // of the 16 vector registers: 6 x 2 accumulators, 2 for b, 1 for a
    static constexpr int mr = 6, nr = lanes * nv;
    static constexpr int64_t kc = 1024 / sizeof(C), mc = 240, nc = 64;
};

// out[r * nr + c] = sum_kk a[kk * mr + r] * b[kk * nr + c]
template <class C> inline void gemm_micro(int64_t kc, const C* a, const C* b, C* out) {
    using S = gemm_shape<C>;
    using V = typename gemm_vec<C>::type;
    V acc[S::mr][S::nv] = {};
    for (int64_t kk = 0; kk < kc; ++kk) {
        V bv[S::nv];
#pragma GCC unroll 4
        for (int v = 0; v < S::nv; ++v) memcpy(&bv[v], b + kk * S::nr + v * S::lanes, sizeof(V));
#pragma GCC unroll 8
        for (int r = 0; r < S::mr; ++r) {
            const C av = a[kk * S::mr + r];
#pragma GCC unroll 4
            for (int v = 0; v < S::nv; ++v) acc[r][v] += av * bv[v];
        }
    }
#pragma GCC unroll 8
    for (int r = 0; r < S::mr; ++r)
#pragma GCC unroll 4
        for (int v = 0; v < S::nv; ++v) memcpy(out + r * S::nr + v * S::lanes, &acc[r][v], sizeof(V));
}

// Number of blocks of mc x nc outputs (the units gemm_block takes).
template <class T> inline int64_t gemm_blocks(int64_t m, int64_t n) {
    using S = gemm_shape<compute_t<T>>;
    return ((m + S::mc - 1) / S::mc) * ((n + S::nc - 1) / S::nc);
}

// Block `blk` (row-major over row blocks x column blocks) of y. The packed panels, the
// accumulators and the micro-kernel are in the compute type C.
template <class T, class PA, class PB, class E>
void gemm_block(int64_t m, int64_t n, int64_t kdim, const PA& pack_a, const PB& pack_b, T* y, int64_t ldy,
                int64_t ebase, const E& epi, int64_t blk) {
    using C = compute_t<T>;
    using S = gemm_shape<C>;
    constexpr int mr = S::mr, nr = S::nr;
    const int64_t col_blocks = (n + S::nc - 1) / S::nc;
    const int64_t i0 = blk / col_blocks * S::mc, j0 = blk % col_blocks * S::nc;
    const int64_t mb = m - i0 < S::mc ? m - i0 : S::mc, nb = n - j0 < S::nc ? n - j0 : S::nc;
    alignas(64) C acc[S::mc * S::nc];
    alignas(64) C bp[S::kc * S::nc];
    alignas(64) C ap[S::kc * mr];
    alignas(64) C tile[mr * nr];
    for (int64_t i = 0; i < mb * S::nc; ++i) acc[i] = C(0);
    for (int64_t k0 = 0; k0 < kdim; k0 += S::kc) {
        const int64_t kc = kdim - k0 < S::kc ? kdim - k0 : S::kc;
        if (nb % nr) memset(bp + nb / nr * nr * kc, 0, sizeof(C) * kc * nr);
        pack_b(k0, kc, j0, int(nb), bp);
        for (int64_t ir = 0; ir < mb; ir += mr) {
            const int rows = mb - ir < mr ? int(mb - ir) : mr;
            if (rows < mr) memset(ap, 0, sizeof(C) * kc * mr);
            pack_a(i0 + ir, rows, k0, kc, ap);
            for (int64_t jr = 0; jr < nb; jr += nr) {
                gemm_micro<C>(kc, ap, bp + jr * kc, tile);
                C* at = acc + ir * S::nc + jr;
                for (int r = 0; r < mr; ++r)
                    for (int c = 0; c < nr; ++c) at[r * S::nc + c] += tile[r * nr + c];
            }
        }
    }
    // The extra inputs of a fused epilogue may share y's storage (memory_sharing.cpp): each
    // element is read before it is written. The epilogue may keep state (fused.hpp): a copy.
    E ep = epi;
    for (int64_t i = 0; i < mb; ++i)
        for (int64_t j = 0; j < nb; ++j) {
            const int64_t o = (i0 + i) * ldy + j0 + j;
            y[o] = T(ep(acc[i * S::nc + j], ebase + o));
        }
}

// Packing of a strided matrix: element (i, j) at p[i * si + j * sj], widened to the compute type.
template <class T> struct gemm_pack_a_strided {
    const T* p;
    int64_t si, sj;
    void operator()(int64_t i0, int rows, int64_t k0, int64_t kc, compute_t<T>* dst) const {
        using C = compute_t<T>;
        constexpr int mr = gemm_shape<C>::mr;
        for (int r = 0; r < rows; ++r) {
            const T* row = p + (i0 + r) * si + k0 * sj;
            if (sj == 1)
                for (int64_t kk = 0; kk < kc; ++kk) dst[kk * mr + r] = C(row[kk]);
            else
                for (int64_t kk = 0; kk < kc; ++kk) dst[kk * mr + r] = C(row[kk * sj]);
        }
    }
};
template <class T> struct gemm_pack_b_strided {
    const T* p;
    int64_t si, sj;
    void operator()(int64_t k0, int64_t kc, int64_t j0, int cols, compute_t<T>* dst) const {
        using C = compute_t<T>;
        constexpr int nr = gemm_shape<C>::nr;
        for (int c0 = 0; c0 < cols; c0 += nr) {
            const int w = cols - c0 < nr ? cols - c0 : nr;
            C* strip = dst + c0 * kc;
            if (sj == 1) {
                for (int64_t kk = 0; kk < kc; ++kk) {
                    const T* src = p + (k0 + kk) * si + j0 + c0;
                    if constexpr (std::is_same<T, C>::value) memcpy(strip + kk * nr, src, sizeof(T) * w);
                    else for (int c = 0; c < w; ++c) strip[kk * nr + c] = C(src[c]);
                }
            } else {
                for (int c = 0; c < w; ++c) {
                    const T* col = p + k0 * si + (j0 + c0 + c) * sj;
                    for (int64_t kk = 0; kk < kc; ++kk) strip[kk * nr + c] = C(col[kk * si]);
                }
            }
        }
    }
};

} // namespace cpu
} // namespace mxc
