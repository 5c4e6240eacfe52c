// dot: a [..., M, K] x b [..., K, N] -> packed [..., M, N]; inputs may be strided (e.g.
// transposed) views. No parameters. float, double, half and bfloat16 go through the blocked GEMM
// (templates/cpu/gemm.hpp), one work item per (batch, block of outputs) for the thread pool;
// other types accumulate rows of the output in the compute type with the innermost loop
// over N (contiguous when b is).
#pragma once
#include "templates/common/dot.hpp"
#include "templates/cpu/common.hpp"
#include "templates/cpu/gemm.hpp"
#include "templates/cpu/parallel.hpp"

#include <type_traits>
#include <vector>

namespace mxc {
namespace cpu {

// acc[j] = sum over k < k_len of a[k * as_k] * b[k * bs_k + j], j < nb <= cols, in order of k
// from 0, multiply and add apart (so the AVX2 clone gives the baseline's values). Where T is
// its compute type: 8 rows of b at a time against 4 vectors of acc held in registers, so that
// acc is loaded and stored once per 8 rows; the loop is bound by reading b.
template <class T> struct gemv_cols {
    using C = compute_t<T>;
    static constexpr int64_t cols = 512, rows = 8, lanes = 32 / int64_t(sizeof(C)), tile = 4 * lanes;
    using V = typename gemm_vec<C, 32>::type;

    static void run_any(const T* a, int64_t as_k, const T* b, int64_t bs_k, int64_t k_len, int64_t nb, C* acc) {
#if MXC_GEMM_AVX2
        if (gemm_isa_avx2(gemm_runtime_isa())) return run_avx2(a, as_k, b, bs_k, k_len, nb, acc);
#endif
        run<false>(a, as_k, b, bs_k, k_len, nb, acc);
    }
#if MXC_GEMM_AVX2
    __attribute__((target("avx2"), noinline)) static void run_avx2(const T* a, int64_t as_k, const T* b, int64_t bs_k,
                                                                   int64_t k_len, int64_t nb, C* acc) {
        run<true>(a, as_k, b, bs_k, k_len, nb, acc);
    }
#endif
    template <bool Avx>
    __attribute__((always_inline)) static void run(const T* a, int64_t as_k, const T* b, int64_t bs_k, int64_t k_len,
                                                   int64_t nb, C* acc) {
        for (int64_t j = 0; j < nb; ++j) acc[j] = C(0);
        int64_t k0 = 0;
        if constexpr (std::is_same<T, C>::value)
            for (; k0 + rows <= k_len; k0 += rows) {
                int64_t j = 0;
                for (; j + tile <= nb; j += tile) {
                    V s[4];
                    __builtin_memcpy(s, acc + j, sizeof s);
#pragma GCC unroll 8
                    for (int u = 0; u < rows; ++u) {
                        const C av = a[(k0 + u) * as_k];
                        const C* br = b + (k0 + u) * bs_k + j;
#pragma GCC unroll 4
                        for (int v = 0; v < 4; ++v) {
                            V bv;
                            __builtin_memcpy(&bv, br + v * lanes, sizeof bv);
                            s[v] = s[v] + av * bv;
                        }
                    }
                    __builtin_memcpy(acc + j, s, sizeof s);
                }
                for (; j < nb; ++j)
                    for (int u = 0; u < rows; ++u) acc[j] += C(a[(k0 + u) * as_k]) * C(b[(k0 + u) * bs_k + j]);
            }
        for (int64_t kk = k0; kk < k_len; ++kk) {
            const C av = C(a[kk * as_k]);
            const T* br = b + kk * bs_k;
            for (int64_t j = 0; j < nb; ++j) acc[j] += av * C(br[j]);
        }
    }
};

// `epi(acc, e)` maps the accumulated value of output element e before the store (fused
// epilogues, templates/cpu/fused.hpp); the plain kernel stores acc as it is.
// Strips: b is a constant the compiler stored as the GEMM's packed panels
// (codegen/dot_weights_strips.cpp: K x N as ceil(N / nr) strips of K x nr, one matrix for
// every batch; its descriptor is that buffer's, [strips, K, nr]): read in place, never packed.
template <class T, class E, bool Strips = false> void dot_epilogue(const mxc_kargs& k, E epi) {
    using C = compute_t<T>;
    const mxc_desc &ad = k.in_desc[0], &bd = k.in_desc[1], &od = *k.out_desc;
    const int r = od.rank;
    const int64_t m_len = od.lens[r - 2], n_len = od.lens[r - 1], k_len = ad.lens[r - 1];
    if (m_len == 0 || n_len == 0) return;
    const int64_t batches = elements(od) / (m_len * n_len);
    const int64_t as_m = ad.strides[r - 2], as_k = ad.strides[r - 1], bs_k = bd.strides[r - 2], bs_n = bd.strides[r - 1];
    const T* a = input<T>(k, 0);
    const T* b = input<T>(k, 1);
    T* y = output<T>(k);
    static_assert(!Strips || std::is_same<T, C>::value, "dot: b in strips only for float and double");
    if constexpr (gemm_supported<T>) {
        // B of the batch at offset boff: packed from its view on every run, or the strips
        // (one matrix for every batch: boff is 0)
        const auto pack_b = [&](int64_t boff) {
            if constexpr (Strips) return gemm_b_strips<C>{b, k_len};
            else return gemm_pack_b_strided<T>{b + boff, bs_k, bs_n};
        };
        // One row per product (m = 1, e.g. attention with its transposes folded into the
        // views) sharing b along a batch dim (strips: along all of them): that dim becomes the
        // rows of fewer, taller products.
        int fold = -1;
        if (m_len == 1)
            for (int d = 0; d < r - 2; ++d)
                if ((Strips || bd.strides[d] == 0) && od.lens[d] > 1 && (fold < 0 || od.lens[d] > od.lens[fold])) fold = d;
        if (fold >= 0) {
            mxc_desc ad1 = ad, bd1 = bd, od1 = od; // the batch dims but the folded one
            ad1.lens[fold] = od1.lens[fold] = 1;
            if (!Strips) bd1.lens[fold] = 1;
            int64_t ostride = 1; // the output's (packed) stride of the folded dim
            for (int d = r - 1; d > fold; --d) ostride *= od.lens[d];
            const int64_t rows = od.lens[fold], outer = batches / rows;
            const gemm_split sp = gemm_plan<T>(rows, n_len, outer);
            const int64_t blocks = sp.blocks();
            parallel_for(outer * blocks, [&](int64_t t) {
                int64_t aoff, boff = 0, yoff;
                if (!Strips) mxc_dot_batch_offsets(ad1, bd1, t / blocks, &aoff, &boff);
                mxc_dot_batch_offsets(ad1, od1, t / blocks, &aoff, &yoff);
                gemm_block(sp, k_len, gemm_pack_a_strided<T>{a + aoff, ad.strides[fold], as_k}, pack_b(boff), y + yoff,
                           ostride, yoff, epi, t % blocks);
            });
            return;
        }
        // One row against a b of unit column stride (a classifier's weights, K x N row-major):
        // the blocked GEMM would pack all of b on every run and fill one of its six rows. Each
        // work item streams b's rows over its columns instead (gemv_cols), summing in order of k
        // (the GEMM's order). (Never strips: the compiler stores none for one row.)
        if (!Strips && m_len == 1 && bs_n == 1) {
            using G = gemv_cols<T>;
            const int64_t items = (n_len + G::cols - 1) / G::cols;
            parallel_for(batches * items, [&](int64_t t) {
                const int64_t batch = t / items, j0 = t % items * G::cols, nb = n_len - j0 < G::cols ? n_len - j0 : G::cols;
                int64_t aoff, boff;
                mxc_dot_batch_offsets(ad, bd, batch, &aoff, &boff);
                C acc[G::cols];
                G::run_any(a + aoff, as_k, b + boff + j0, bs_k, k_len, nb, acc);
                E ep = epi;
                const int64_t e = batch * n_len + j0;
                epilogue_store(ep, static_cast<const C*>(acc), y + e, e, nb);
            });
            return;
        }
        const gemm_split sp = gemm_plan<T>(m_len, n_len, batches);
        const int64_t blocks = sp.blocks();
        parallel_for(batches * blocks, [&](int64_t t) {
            const int64_t batch = t / blocks;
            int64_t aoff, boff = 0;
            mxc_dot_batch_offsets(ad, Strips ? ad : bd, batch, &aoff, &boff);
            gemm_block(sp, k_len, gemm_pack_a_strided<T>{a + aoff, as_m, as_k}, pack_b(Strips ? 0 : boff),
                       y + batch * m_len * n_len, n_len, batch * m_len * n_len, epi, t % blocks);
        });
        return;
    }
    std::vector<C> acc(static_cast<size_t>(n_len));
    for (int64_t batch = 0; batch < batches; ++batch) {
        int64_t aoff, boff;
        mxc_dot_batch_offsets(ad, bd, batch, &aoff, &boff);
        for (int64_t i = 0; i < m_len; ++i) {
            for (auto& v : acc) v = C(0);
            const T* arow = a + aoff + i * as_m;
            for (int64_t kk = 0; kk < k_len; ++kk) {
                const C av = C(arow[kk * as_k]);
                const T* brow = b + boff + kk * bs_k;
                if (bs_n == 1)
                    for (int64_t j = 0; j < n_len; ++j) acc[j] += av * C(brow[j]);
                else
                    for (int64_t j = 0; j < n_len; ++j) acc[j] += av * C(brow[j * bs_n]);
            }
            T* yrow = y + (batch * m_len + i) * n_len;
            for (int64_t j = 0; j < n_len; ++j) yrow[j] = T(epi(acc[j], (batch * m_len + i) * n_len + j));
        }
    }
}

template <class T, bool Strips = false> void dot(const mxc_kargs& k) {
    auto same = [](compute_t<T> v, int64_t) { return v; };
    dot_epilogue<T, decltype(same), Strips>(k, same);
}

} // namespace cpu
} // namespace mxc
