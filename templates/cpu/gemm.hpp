// gemm: the blocked matrix product behind the cpu dot and convolution kernels (element
// types that compute in float or double: float, double, half and bfloat16; the packing
// widens half / bfloat16 to float, so the micro-kernel and the accumulation are fp32, and
// only the epilogue's store rounds; other element types keep the plain loops of
// templates/cpu/dot.hpp and convolution.hpp).
//   y[i * ldy + j] = epi(sum_k A(i, k) * B(k, j), ebase + i * ldy + j),  i < m, j < n
// A and B are read only through packing functors, so strided views (dot) and the implicit
// im2col of a convolution share one kernel (NR = std::integral_constant<int, nr>, the strip
// width, gemm_shape<C>::nr):
//   pack_a(i0, rows, k0, kc, dst):      dst[kk * gemm_mr + r] = A(i0 + r, k0 + kk), r < rows (rows <= gemm_mr)
//   pack_b(k0, kc, j0, cols, dst, NR):  dst[c / nr * kc * nr + kk * nr + c % nr] = B(k0 + kk, j0 + c),
//                                       c < cols (nr-wide strips, each kc x nr)
// (the padding of the last strip is zeroed by the caller); a packer of A may also offer A in
// place (`direct`, see has_gemm_direct): float / double rows of unit stride are not packed;
// B may come in that layout already (gemm_b_strips: constant weights stored so at build time),
// and A as packed row panels (gemm_a_panels: constant convolution weights).
// Scheme (Goto/BLIS): gemm_plan cuts the outputs into blocks of at most mc x nc, whole strips
// of the micro-kernel, balanced, as many as the thread pool needs (the unit of work,
// gemm_block); for every depth slice of kc a kc x nc panel of B is packed into nr-wide strips
// (kept in L2), then a register-tiled micro-kernel multiplies every gemm_mr rows of A (a
// packed strip, or the rows in place) with each B strip, accumulating in the block's buffer.
// A last strip with only a few real columns (49 = 3 x 16 + 1) is computed as dot products
// along k instead, when A is read in place (gemm_tail).
// The epilogue then maps each row of the buffer into y (epilogue_store: a fused epilogue
// reads its extra inputs per row). Buffers live on the stack (mc * nc + kc * (nc + gemm_mr +
// gemm_tail_max) elements: 97 KiB for float, 194 KiB for double): no allocation, no shared
// state.
//
// Micro-kernels (gemm_isa), in GCC/clang vector extensions: `base` uses the vectors the
// library is built for (16 bytes: SSE2, the x86-64 baseline; 32 with AVX, e.g. --cpu-arch
// x86-64-v3) with separate multiply and add; on x86-64 an `avx2` kernel (32-byte vectors,
// fused multiply-add) is built too and chosen at run time when the CPU has AVX2 and FMA, so
// a library built for any x86-64 still uses them, and for float an `avx512` one (64-byte
// vectors, up to four strips at a time; the same sums as avx2) where the CPU has AVX-512F
// (MXC_CPU_ISA=base or avx2 in the environment keeps that kernel; mxc itself pins base:
// gemm_isa_pinned). The result of an element does not
// depend on the block split or the thread count: its k terms are always summed in order; it
// does depend on the kernel (a fused multiply-add rounds once).
#pragma once
#include "templates/cpu/common.hpp"
#include "templates/cpu/parallel.hpp"

#include <stdlib.h>
#include <string.h>
#include <type_traits>
#include <utility>

namespace mxc {
namespace cpu {

#if defined(__AVX__)
constexpr int gemm_base_vec_bytes = 32;
#else
constexpr int gemm_base_vec_bytes = 16;
#endif

// The tile of the micro-kernel: gemm_mr rows x nr columns, two 32-byte vectors wide (of the
// 16 vector registers of AVX2: 12 accumulators, 2 for B, 1 for A); the base kernel with
// 16-byte vectors computes it as two halves. Every kernel packs the same layout, so the block
// code is one and only the micro-kernel differs.
constexpr int gemm_mr = 6;
template <int NR> using gemm_nr = std::integral_constant<int, NR>;
template <class C> struct gemm_shape {
    static constexpr int mr = gemm_mr, nr = 2 * 32 / int(sizeof(C));
    // a depth slice: 128 (float: 8 KiB a strip, 32 KiB for the four the avx512 kernel reads,
    // which stay in L1 while the rows of A stream past them; 256 left them in L2, 2026-11-24)
    static constexpr int64_t kc = 128;
    static constexpr int64_t mc = 40 * mr, nc = 64; // the most a block holds (whole strips)
};

template <class C, int Bytes> struct gemm_vec;
template <> struct gemm_vec<float, 16> { typedef float type __attribute__((vector_size(16))); };
template <> struct gemm_vec<float, 32> { typedef float type __attribute__((vector_size(32))); };
template <> struct gemm_vec<double, 16> { typedef double type __attribute__((vector_size(16))); };
template <> struct gemm_vec<double, 32> { typedef double type __attribute__((vector_size(32))); };

// c[r * ldc + j] (first ? = : +=) sum_kk a[kk * mr + r] * B(kk, j), r < mr, j < NV vectors
// of Bytes, vector v of B's row kk at b + kk * ldb + v * bstep (bstep = one vector: the row's
// next lanes; or the distance to the next strip), or, with boff, at b + boff[kk] + v * bstep
// (rows anywhere: a stride-1 convolution's shifted input rows, gemm_b_shifted; A packed).
// madd(z, x, y): z = x * y + z on vectors; madd.splat(v, s): every lane of v = s (by
// reference: a vector of another target's width is never passed by value). A is packed
// (a[kk * mr + r]) or, with lda > 0, read in place (a[r * lda + kk]: rows of unit stride).
// The micro-kernels' last step: row r of the tile at c + r * ldc (first ? = : +=) its
// accumulators acc[r][0..NV) (the slice's sums: added once, in the same order everywhere).
template <class C, class V, int R, int NV>
__attribute__((always_inline)) inline void gemm_add_tile(const V (&acc)[R][NV], C* c, int64_t ldc, bool first) {
    constexpr int lanes = int(sizeof(V) / sizeof(C));
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r)
#pragma GCC unroll 4
        for (int v = 0; v < NV; ++v) {
            C* p = c + r * ldc + v * lanes;
            V old = V{};
            if (!first) memcpy(&old, p, sizeof(V));
            const V sum = old + acc[r][v];
            memcpy(p, &sum, sizeof(V));
        }
}

template <class C, int Bytes, int ldb, class M, int NV = 2>
__attribute__((always_inline)) inline void gemm_micro_body(int64_t kc, const C* a, int64_t lda, const C* b, C* c,
                                                            int64_t ldc, bool first, M madd,
                                                            int64_t bstep = Bytes / int(sizeof(C)),
                                                            const int64_t* boff = nullptr, const C* apf = nullptr) {
    constexpr int nv = NV, mr = gemm_mr;
    using V = typename gemm_vec<C, Bytes>::type;
    V acc[mr][nv] = {};
    const auto step = [&](const C* brow, auto at) __attribute__((always_inline)) {
        V bv[nv];
#pragma GCC unroll 4
        for (int v = 0; v < nv; ++v) memcpy(&bv[v], brow + v * bstep, sizeof(V));
#pragma GCC unroll 8
        for (int r = 0; r < mr; ++r) {
            V av;
            madd.splat(av, at(r));
#pragma GCC unroll 4
            for (int v = 0; v < nv; ++v) madd(acc[r][v], av, bv[v]);
        }
    };
    if (lda > 0)
        for (int64_t kk = 0; kk < kc; ++kk)
            step(b + kk * ldb, [&](int r) __attribute__((always_inline)) { return a[r * lda + kk]; });
    else if (boff && apf)
        for (int64_t kk = 0; kk < kc; ++kk) {
            if ((kk & 7) == 0)
                for (int l = 0; l < 3; ++l) __builtin_prefetch(apf + kk * mr + l * (64 / int(sizeof(C))), 0, 3);
            step(b + boff[kk], [&](int r) __attribute__((always_inline)) { return a[kk * mr + r]; });
        }
    else if (boff)
        for (int64_t kk = 0; kk < kc; ++kk)
            step(b + boff[kk], [&](int r) __attribute__((always_inline)) { return a[kk * mr + r]; });
    else if (apf) // the next packed slice of A fetched along the way, three lines every 8 steps
        for (int64_t kk = 0; kk < kc; ++kk) {
            if ((kk & 7) == 0)
                for (int l = 0; l < 3; ++l) __builtin_prefetch(apf + kk * mr + l * (64 / int(sizeof(C))), 0, 3);
            step(b + kk * ldb, [&](int r) __attribute__((always_inline)) { return a[kk * mr + r]; });
        }
    else
        for (int64_t kk = 0; kk < kc; ++kk)
            step(b + kk * ldb, [&](int r) __attribute__((always_inline)) { return a[kk * mr + r]; });
    gemm_add_tile<C>(acc, c, ldc, first);
}

template <class V> struct gemm_madd {
    template <class C> void splat(V& v, C s) const { v = s - V{}; } // x - 0 is x, -0 included
    void operator()(V& z, const V& x, const V& y) const { z = x * y + z; }
};

template <class C, gemm_isa I> struct gemm_micro;
template <class C> struct gemm_micro<C, gemm_isa::base> {
    using V = typename gemm_vec<C, gemm_base_vec_bytes>::type;
    __attribute__((noinline)) static void run(int64_t kc, const C* a, int64_t lda, const C* b, C* c, int64_t ldc,
                                              bool first, const int64_t* boff = nullptr) {
        constexpr int nr = gemm_shape<C>::nr, width = 2 * gemm_base_vec_bytes / int(sizeof(C));
        for (int h = 0; h < nr; h += width) // the tile in parts of two vectors
            gemm_micro_body<C, gemm_base_vec_bytes, nr>(kc, a, lda, b + h, c + h, ldc, first, gemm_madd<V>{},
                                                       gemm_base_vec_bytes / int(sizeof(C)), boff);
    }
};
#if MXC_GEMM_AVX2
typedef float gemm_f32x8 __attribute__((vector_size(32)));
typedef double gemm_f64x4 __attribute__((vector_size(32)));
struct gemm_fma256 {
    __attribute__((target("avx2,fma"))) void splat(gemm_f32x8& v, float s) const { v = (gemm_f32x8)_mm256_set1_ps(s); }
    __attribute__((target("avx2,fma"))) void splat(gemm_f64x4& v, double s) const { v = (gemm_f64x4)_mm256_set1_pd(s); }
    __attribute__((target("avx2,fma"))) void operator()(gemm_f32x8& z, const gemm_f32x8& x, const gemm_f32x8& y) const {
        z = (gemm_f32x8)_mm256_fmadd_ps((__m256)x, (__m256)y, (__m256)z);
    }
    __attribute__((target("avx2,fma"))) void operator()(gemm_f64x4& z, const gemm_f64x4& x, const gemm_f64x4& y) const {
        z = (gemm_f64x4)_mm256_fmadd_pd((__m256d)x, (__m256d)y, (__m256d)z);
    }
};
template <class C> struct gemm_micro<C, gemm_isa::avx2> {
    __attribute__((target("avx2,fma"), noinline)) static void run(int64_t kc, const C* a, int64_t lda, const C* b,
                                                                   C* c, int64_t ldc, bool first,
                                                                   const int64_t* boff = nullptr) {
        gemm_micro_body<C, 32, gemm_shape<C>::nr>(kc, a, lda, b, c, ldc, first, gemm_fma256{}, 32 / int(sizeof(C)), boff);
    }
};
// AVX-512 (float): a row of a 16-wide strip is one 64-byte vector, so the tile is 6 rows x four
// strips (run4: 24 of the 32 vector registers accumulate; per depth step 4 loads of B and 6
// broadcasts of A feed 24 fused multiply-adds), three (run3: a block of 3 strips, a 7x7
// plane's 49 columns), two (run2: twelve accumulators, as the avx2 kernel has) or one (run);
// the strips equally spaced (bstep apart). Each element is the same fused multiply-adds in the
// same order as in the avx2 kernel: the results are identical. Measured on a Xeon with two 512-bit FMA units (2026-11-24,
// a 252 x 192 x 2304 product with B's strips in place, best of 4): run2 with 256-deep slices
// 160 GFLOP/s on one core, run4 with 128-deep slices 187 (run2 alone, everything in L1: 215).
typedef float gemm_f32x16 __attribute__((vector_size(64)));
struct gemm_fma512 {
    __attribute__((target("avx512f"))) void splat(gemm_f32x16& v, float s) const { v = (gemm_f32x16)_mm512_set1_ps(s); }
    __attribute__((target("avx512f"))) void operator()(gemm_f32x16& z, const gemm_f32x16& x, const gemm_f32x16& y) const {
        z = (gemm_f32x16)_mm512_fmadd_ps((__m512)x, (__m512)y, (__m512)z);
    }
};
template <> struct gemm_vec<float, 64> { typedef gemm_f32x16 type; };
template <class C> struct gemm_micro<C, gemm_isa::avx512> {
    static_assert(std::is_same<C, float>::value && gemm_shape<C>::nr == 16, "gemm_micro avx512: float strips of 16");
    __attribute__((target("avx512f"), noinline)) static void run(int64_t kc, const C* a, int64_t lda, const C* b, C* c,
                                                                  int64_t ldc, bool first, const int64_t* boff = nullptr,
                                                                  const C* apf = nullptr) {
        gemm_micro_body<C, 64, 16, gemm_fma512, 1>(kc, a, lda, b, c, ldc, first, gemm_fma512{}, 16, boff, apf);
    }
    // strips b, b + bstep, ... (their outputs at c, c + 16, ...)
    __attribute__((target("avx512f"), noinline)) static void run2(int64_t kc, const C* a, int64_t lda, const C* b,
                                                                   int64_t bstep, C* c, int64_t ldc, bool first,
                                                                   const int64_t* boff = nullptr, const C* apf = nullptr) {
        gemm_micro_body<C, 64, 16, gemm_fma512, 2>(kc, a, lda, b, c, ldc, first, gemm_fma512{}, bstep, boff, apf);
    }
    __attribute__((target("avx512f"), noinline)) static void run3(int64_t kc, const C* a, int64_t lda, const C* b,
                                                                   int64_t bstep, C* c, int64_t ldc, bool first,
                                                                   const int64_t* boff = nullptr, const C* apf = nullptr) {
        gemm_micro_body<C, 64, 16, gemm_fma512, 3>(kc, a, lda, b, c, ldc, first, gemm_fma512{}, bstep, boff, apf);
    }
    __attribute__((target("avx512f"), noinline)) static void run4(int64_t kc, const C* a, int64_t lda, const C* b,
                                                                   int64_t bstep, C* c, int64_t ldc, bool first,
                                                                   const int64_t* boff = nullptr, const C* apf = nullptr) {
        gemm_micro_body<C, 64, 16, gemm_fma512, 4>(kc, a, lda, b, c, ldc, first, gemm_fma512{}, bstep, boff, apf);
    }
};
#endif

// The transposed micro-kernel (convolution_gemm's pixel rows, conv_rows_form): its mr rows are
// output pixels, whose elements of A are read in place, element kk of row r at arow[r][off[kk]]
// (a convolution's zero-bordered input copy: pixel r's base plus the kernel offset of kk; R
// rows, gemm_mr but in a last group of pixels), or at arow[r][kk * astep] without offsets (Off
// false: a 1x1 convolution's input in place), and its columns are output channels, B stored at build time as strips of nr channels (strip s of
// the depth slice at b + s * bstep, its row kk at + kk * nr). NV vectors of Bytes per row:
//   c[r * ldc + j] (first ? = : +=) sum_kk arow[r][off[kk]] * B(kk, j), r < mr, j < NV lanes
// Each element is the same multiply-adds in the same order as in gemm_micro_body (depth order,
// the slice's sum added to c): the results are those of the other forms.
template <class C, int Bytes, int NV, int R, bool Off, class M>
__attribute__((always_inline)) inline void gemm_rows_body(int64_t kc, const C* const* arow, const int64_t* off,
                                                           int64_t astep, const C* b, int64_t bstep, C* c, int64_t ldc,
                                                           bool first, M madd) {
    constexpr int lanes = Bytes / int(sizeof(C)), nr = gemm_shape<C>::nr, per = nr / lanes, mr = R;
    using V = typename gemm_vec<C, Bytes>::type;
    V acc[mr][NV] = {};
    const C* ar[mr];
#pragma GCC unroll 8
    for (int r = 0; r < mr; ++r) ar[r] = arow[r];
    for (int64_t kk = 0; kk < kc; ++kk) {
        const int64_t o = Off ? off[kk] : kk * astep;
        V bv[NV];
#pragma GCC unroll 4
        for (int v = 0; v < NV; ++v) memcpy(&bv[v], b + (v / per) * bstep + (v % per) * lanes + kk * nr, sizeof(V));
#pragma GCC unroll 8
        for (int r = 0; r < mr; ++r) {
            V av;
            madd.splat(av, ar[r][o]);
#pragma GCC unroll 4
            for (int v = 0; v < NV; ++v) madd(acc[r][v], av, bv[v]);
        }
    }
    gemm_add_tile<C>(acc, c, ldc, first);
}
// The strips [0, n) of a channel block for `rows` (1 to gemm_mr) pixels through gemm_rows_body
// on the runtime ISA: avx512 up to four strips a call, avx2 one (two vectors), the baseline
// half a strip.
template <class C> struct gemm_rows {
    template <int R, bool Off>
    __attribute__((noinline)) static void run_base(int n, int64_t kc, const C* const* arow, const int64_t* off, int64_t astep,
                                                   const C* b, int64_t bstep, C* c, int64_t ldc, bool first) {
        using V = typename gemm_vec<C, gemm_base_vec_bytes>::type;
        constexpr int lanes = gemm_base_vec_bytes / int(sizeof(C)), nr = gemm_shape<C>::nr;
        constexpr int per = nr / lanes < 2 ? 1 : 2; // vectors a call
        for (int s = 0; s < n; ++s)
            for (int h = 0; h < nr; h += per * lanes)
                gemm_rows_body<C, gemm_base_vec_bytes, per, R, Off>(kc, arow, off, astep, b + s * bstep + h, bstep, c + s * nr + h,
                                                               ldc, first, gemm_madd<V>{});
    }
#if MXC_GEMM_AVX2
    template <int R, bool Off>
    __attribute__((target("avx2,fma"), noinline)) static void run_avx2(int n, int64_t kc, const C* const* arow,
                                                                        const int64_t* off, int64_t astep, const C* b, int64_t bstep,
                                                                        C* c, int64_t ldc, bool first) {
        constexpr int nv = gemm_shape<C>::nr * int(sizeof(C)) / 32; // one strip
        for (int s = 0; s < n; ++s)
            gemm_rows_body<C, 32, nv, R, Off>(kc, arow, off, astep, b + s * bstep, bstep, c + s * gemm_shape<C>::nr, ldc, first,
                                         gemm_fma256{});
    }
    template <int NV, int R, bool Off>
    __attribute__((target("avx512f"), noinline)) static void run_avx512(int64_t kc, const C* const* arow, const int64_t* off, int64_t astep,
                                                                          const C* b, int64_t bstep, C* c, int64_t ldc,
                                                                          bool first) {
        gemm_rows_body<C, 64, NV, R, Off>(kc, arow, off, astep, b, bstep, c, ldc, first, gemm_fma512{});
    }
    template <int R, bool Off>
    static void avx512(int n, int64_t kc, const C* const* arow, const int64_t* off, int64_t astep, const C* b, int64_t bstep, C* c,
                       int64_t ldc, bool first) {
        for (int s = 0; s < n; s += 4) {
            const C* bs = b + s * bstep;
            C* cs = c + s * gemm_shape<C>::nr;
            switch (n - s < 4 ? n - s : 4) {
            case 1: run_avx512<1, R, Off>(kc, arow, off, astep, bs, bstep, cs, ldc, first); break;
            case 2: run_avx512<2, R, Off>(kc, arow, off, astep, bs, bstep, cs, ldc, first); break;
            case 3: run_avx512<3, R, Off>(kc, arow, off, astep, bs, bstep, cs, ldc, first); break;
            default: run_avx512<4, R, Off>(kc, arow, off, astep, bs, bstep, cs, ldc, first); break;
            }
        }
    }
#endif
    template <int R, bool Off>
    static void run_rows(gemm_isa isa, int n, int64_t kc, const C* const* arow, const int64_t* off, int64_t astep, const C* b,
                         int64_t bstep, C* c, int64_t ldc, bool first) {
#if MXC_GEMM_AVX2
        if constexpr (std::is_same<C, float>::value)
            if (isa == gemm_isa::avx512) return avx512<R, Off>(n, kc, arow, off, astep, b, bstep, c, ldc, first);
        if (gemm_isa_avx2(isa)) return run_avx2<R, Off>(n, kc, arow, off, astep, b, bstep, c, ldc, first);
#endif
        (void)isa;
        run_base<R, Off>(n, kc, arow, off, astep, b, bstep, c, ldc, first);
    }
    // off null: element kk of a row at kk * astep
    static void run(gemm_isa isa, int rows, int n, int64_t kc, const C* const* arow, const int64_t* off, int64_t astep,
                    const C* b, int64_t bstep, C* c, int64_t ldc, bool first) {
        if (off) return run_off<true>(isa, rows, n, kc, arow, off, astep, b, bstep, c, ldc, first);
        run_off<false>(isa, rows, n, kc, arow, off, astep, b, bstep, c, ldc, first);
    }
    template <bool Off>
    static void run_off(gemm_isa isa, int rows, int n, int64_t kc, const C* const* arow, const int64_t* off, int64_t astep,
                        const C* b, int64_t bstep, C* c, int64_t ldc, bool first) {
        static_assert(gemm_mr == 6, "gemm_rows: the row counts below");
        switch (rows) {
        case 1: return run_rows<1, Off>(isa, n, kc, arow, off, astep, b, bstep, c, ldc, first);
        case 2: return run_rows<2, Off>(isa, n, kc, arow, off, astep, b, bstep, c, ldc, first);
        case 3: return run_rows<3, Off>(isa, n, kc, arow, off, astep, b, bstep, c, ldc, first);
        case 4: return run_rows<4, Off>(isa, n, kc, arow, off, astep, b, bstep, c, ldc, first);
        case 5: return run_rows<5, Off>(isa, n, kc, arow, off, astep, b, bstep, c, ldc, first);
        default: return run_rows<6, Off>(isa, n, kc, arow, off, astep, b, bstep, c, ldc, first);
        }
    }
};

// The last strip of a block when only a few of its columns are real (w = nb % nr, 1 to
// gemm_tail_max; 49 columns, a 7x7 plane, are three strips and one column): with A read in
// place as rows of unit stride, those columns are dot products along k, vectors of A's rows
// times the columns (transposed out of the packed strip: t[j * kc + kk]), instead of a whole
// strip of the micro-kernel for w columns of it. R rows at a time (R x W accumulators, A's
// rows past the last read again and dropped); lanes summed in order, the last kc % lanes
// terms after them:
//   c[r * ldc + j] (first ? = : +=) sum_kk a[r * lda + kk] * t[j * kc + kk], r < rows, j < W
constexpr int gemm_tail_max = 4;
template <class C, int Bytes, int W, class M>
__attribute__((always_inline)) inline void gemm_tail_body(int64_t kc, const C* a, int64_t lda, int64_t rows, const C* t,
                                                           C* c, int64_t ldc, bool first, M madd) {
    constexpr int lanes = Bytes / int(sizeof(C)), R = W == 1 ? 8 : W == 2 ? 4 : 2;
    using V = typename gemm_vec<C, Bytes>::type;
    const int64_t kv = kc / lanes * lanes;
    for (int64_t r0 = 0; r0 < rows; r0 += R) {
        const C* ar[R];
#pragma GCC unroll 8
        for (int r = 0; r < R; ++r) ar[r] = a + (r0 + r < rows ? r0 + r : rows - 1) * lda;
        V s[R][W] = {};
        for (int64_t kk = 0; kk < kv; kk += lanes) {
            V tv[W];
#pragma GCC unroll 4
            for (int j = 0; j < W; ++j) memcpy(&tv[j], t + j * kc + kk, sizeof(V));
#pragma GCC unroll 8
            for (int r = 0; r < R; ++r) {
                V av;
                memcpy(&av, ar[r] + kk, sizeof(V));
#pragma GCC unroll 4
                for (int j = 0; j < W; ++j) madd(s[r][j], av, tv[j]);
            }
        }
        for (int r = 0; r < R && r0 + r < rows; ++r)
            for (int j = 0; j < W; ++j) {
                C sum = 0;
                for (int l = 0; l < lanes; ++l) sum += s[r][j][l];
                for (int64_t kk = kv; kk < kc; ++kk) sum += ar[r][kk] * t[j * kc + kk];
                C& out = c[(r0 + r) * ldc + j];
                out = first ? sum : out + sum;
            }
    }
}
template <class C, int Bytes, class M>
__attribute__((always_inline)) inline void gemm_tail_any(int w, int64_t kc, const C* a, int64_t lda, int64_t rows,
                                                          const C* t, C* c, int64_t ldc, bool first, M madd) {
    switch (w) {
    case 1: return gemm_tail_body<C, Bytes, 1>(kc, a, lda, rows, t, c, ldc, first, madd);
    case 2: return gemm_tail_body<C, Bytes, 2>(kc, a, lda, rows, t, c, ldc, first, madd);
    case 3: return gemm_tail_body<C, Bytes, 3>(kc, a, lda, rows, t, c, ldc, first, madd);
    default: return gemm_tail_body<C, Bytes, 4>(kc, a, lda, rows, t, c, ldc, first, madd);
    }
}
template <class C, gemm_isa I> struct gemm_tail;
template <class C> struct gemm_tail<C, gemm_isa::base> {
    __attribute__((noinline)) static void run(int w, int64_t kc, const C* a, int64_t lda, int64_t rows, const C* t, C* c,
                                              int64_t ldc, bool first) {
        using V = typename gemm_vec<C, gemm_base_vec_bytes>::type;
        gemm_tail_any<C, gemm_base_vec_bytes>(w, kc, a, lda, rows, t, c, ldc, first, gemm_madd<V>{});
    }
};
#if MXC_GEMM_AVX2
template <class C> struct gemm_tail<C, gemm_isa::avx2> {
    __attribute__((target("avx2,fma"), noinline)) static void run(int w, int64_t kc, const C* a, int64_t lda,
                                                                   int64_t rows, const C* t, C* c, int64_t ldc,
                                                                   bool first) {
        gemm_tail_any<C, 32>(w, kc, a, lda, rows, t, c, ldc, first, gemm_fma256{});
    }
};
#endif

// Whether element type T takes the blocked path (its compute type is float or double).
template <class T> constexpr bool gemm_supported =
    std::is_same<compute_t<T>, float>::value || std::is_same<compute_t<T>, double>::value;

// The blocks of an m x n product (the units gemm_block takes, row-major over row blocks x
// column blocks): rows and columns cut into whole micro-kernel strips, as evenly as the
// strips allow, at most row_strips_max x col_strips_max strips each; and the kernel.
struct gemm_split {
    int64_t m, n;
    gemm_isa isa;
    int mr, nr;
    int64_t row_strips, col_strips, row_blocks, col_blocks;
    gemm_split(int64_t m_, int64_t n_, gemm_isa isa_, int mr_, int nr_, int64_t row_strips_max, int64_t col_strips_max)
        : m(m_), n(n_), isa(isa_), mr(mr_), nr(nr_), row_strips((m_ + mr_ - 1) / mr_), col_strips((n_ + nr_ - 1) / nr_),
          row_blocks((row_strips + row_strips_max - 1) / row_strips_max),
          col_blocks((col_strips + col_strips_max - 1) / col_strips_max) {}
    int64_t blocks() const { return row_blocks * col_blocks; }
    // rows [i0, i1) and columns [j0, j1) of block b
    void block(int64_t b, int64_t& i0, int64_t& i1, int64_t& j0, int64_t& j1) const {
        const int64_t rb = b / col_blocks, cb = b % col_blocks;
        i0 = rb * row_strips / row_blocks * mr;
        i1 = (rb + 1) * row_strips / row_blocks * mr;
        j0 = cb * col_strips / col_blocks * nr;
        j1 = (cb + 1) * col_strips / col_blocks * nr;
        if (i1 > m) i1 = m;
        if (j1 > n) j1 = n;
    }
};

// Whether a packer of A can hand out A in place: `const C* direct(int64_t& ld)` returns
// A(0, 0) with A(i, k) at [i * ld + k], or null.
template <class P, class C, class = void> struct has_gemm_direct : std::false_type {};
template <class P, class C>
struct has_gemm_direct<P, C, decltype(void(static_cast<const C*>(std::declval<const P&>().direct(std::declval<int64_t&>()))))>
    : std::true_type {};

// B stored at build time in the packed panels' own layout (codegen/dot_weights_strips.cpp:
// a constant K x N matrix of the compute type as ceil(N / nr) strips of K x nr, zero past
// column N): gemm_block reads each strip in place instead of packing it on every run, as
// ONNX Runtime prepacks constant GEMM weights. `strips` points at the first strip.
template <class C> struct gemm_b_strips {
    const C* strips;
    int64_t kdim; // K: the rows of each strip
    template <int NR> const C* at(int64_t k0, int64_t j) const { return strips + j / NR * kdim * NR + k0 * NR; }
};
// Every 64-byte line of [p, p + bytes) fetched into the cache (a hint: it never faults).
template <int Locality = 3> inline void gemm_fetch(const void* p, int64_t bytes) {
    const char* c = static_cast<const char*>(p);
    for (int64_t b = 0; b < bytes; b += 64) __builtin_prefetch(c + b, 0, Locality);
}
// Every line of [p, p + bytes) fetched into L1, to be written (a hint: prefetchw where the
// target has it, else prefetcht0, which measured the same on Zen 5).
inline void gemm_fetch_write(const void* p, int64_t bytes) {
    const uintptr_t a = reinterpret_cast<uintptr_t>(p), first = a & ~uintptr_t(63);
    for (uintptr_t l = first; l < a + uintptr_t(bytes); l += 64) __builtin_prefetch(reinterpret_cast<const void*>(l), 1, 3);
}
// gemm_block_to fetches the lines of the next block's outputs (the next column block of the
// same rows: a thread of the pool runs its blocks in order, templates/cpu/parallel.hpp) while
// it stores its own, row group by row group, where the product's output has more bytes than
// this. A block's mr x nc tile writes mr rows a plane apart, and its rows of output are as
// many streams as the block has rows (96 for MobileNetV2's 16 -> 96 over 112x112): more than
// the hardware's prefetchers follow, and such an output comes from memory inside a model (its
// lines last written a run before, several MB of other data since). Only for products of
// one depth slice (kdim <= kc), whose blocks are short and mostly stores: 1x1 16 -> 96 over
// 112x112, one thread, 2026-11-26: 0.87 -> 0.43 ms alone with the caches flushed (0.33 ->
// 0.35 with the output warm in L3), 0.47 -> 0.35 inside MobileNetV2, the model 5.25 -> 5.17
// (median of 20 interleaved rounds); for every product over 1 MB, YOLO ran 1% slower.
constexpr int64_t gemm_fetch_out_bytes = int64_t(1) << 20;
// Likewise B read in place (gemm_b_shifted: a 1x1 convolution's input planes) of more bytes
// than this, one depth slice deep: each of its rows is a stream (96 for MobileNetV2's 96 -> 24
// over 56x56), and each block fetches the next block's columns of every row (that layer alone,
// one thread, caches flushed before each run, 2026-11-26: 0.235 -> 0.176 ms, min of 15
// alternated rounds; warm the same; its 32 -> 16 over 112x112 the same either way; the model
// 9.06 -> 8.77 ms, median of 16 rounds).
constexpr int64_t gemm_fetch_b_bytes = int64_t(1) << 20;
// gemm_block fetches A's slices ahead where A has more bytes than this (weights that do not
// stay in cache from one run to the next inside a model).
constexpr int64_t gemm_prefetch_a_bytes = int64_t(1) << 20;
// On avx512 the micro-kernel itself fetches the next panel's slice, a few lines every few
// steps (gemm_micro_body's apf), where A's panels (gemm_a_panels) have more bytes than this:
// cheap enough to be worth it for most weights inside a model (ResNet-50 on two threads: its
// 1x1 1024 -> 256 over 14x14, 1 MB of weights, 0.50 -> 0.41 ms; 64 KB to 1 MB, its 128- and
// 256-channel layers, 3-10% each; the fetches in one burst before the micro-kernel had stalled
// on the cache's fill buffers, 8% of its 256-channel 3x3s over 14x14).
constexpr int64_t gemm_prefetch_panels_bytes = int64_t(1) << 16;

// A stored at build time as the micro-kernel's packed row panels (codegen/conv_weights_panels.cpp:
// constant convolution weights, M x K of the compute type, as M / gemm_mr panels of K x gemm_mr,
// then the last M % gemm_mr rows as one K x (M % gemm_mr) panel, so that the panels take the
// bytes of the matrix): gemm_block reads each whole panel in place, one sequential stream,
// where rows read in place are gemm_mr streams K apart (which the prefetchers follow badly from
// memory: inside ResNet-50, whose 100 MB of weights do not stay in cache, a 3x3 convolution took
// 2.6 ms where the same layer alone, its weights in L2, took 1.7). `panels` points at the first.
template <class C> struct gemm_a_panels {
    const C* panels;
    int64_t kdim, rows; // K: the depth of each panel; M
    // whole panel i / gemm_mr from depth k0 (i a multiple of gemm_mr, i + gemm_mr <= rows)
    const C* at(int64_t i, int64_t k0) const { return panels + i / gemm_mr * kdim * gemm_mr + k0 * gemm_mr; }
    // the rows past the whole panels (i = rows / gemm_mr * gemm_mr) as pack_a packs them
    void operator()(int64_t i0, int n, int64_t k0, int64_t kc, C* dst) const {
        const C* p = panels + i0 * kdim + k0 * n;
        for (int64_t kk = 0; kk < kc; ++kk)
            for (int r = 0; r < n; ++r) dst[kk * gemm_mr + r] = p[kk * n + r];
    }
};
template <class P> struct is_gemm_a_panels : std::false_type {};
template <class C> struct is_gemm_a_panels<gemm_a_panels<C>> : std::true_type {};
// Element (i, k) of an M x K matrix in that layout (what the compiler writes).
constexpr int64_t gemm_panel_index(int64_t i, int64_t k, int64_t kdim, int64_t rows) {
    const int64_t whole = rows / gemm_mr * gemm_mr, last = rows - whole;
    return i < whole ? i / gemm_mr * kdim * gemm_mr + k * gemm_mr + i % gemm_mr : whole * kdim + k * last + (i - whole);
}
template <class P> struct is_gemm_b_strips : std::false_type {};
template <class C> struct is_gemm_b_strips<gemm_b_strips<C>> : std::true_type {};
// Element (k, j) of a K x N matrix in that layout, strips nr wide (what the compiler writes).
constexpr int64_t gemm_strip_index(int64_t k, int64_t j, int64_t kdim, int nr) { return j / nr * kdim * nr + k * nr + j % nr; }

// How to cut `outer` independent m x n products (batches, images, groups) run side by side
// by the thread pool of the calling thread: blocks as large as the buffers hold (fewer
// repacked panels); with more than one thread, made smaller until there are about four
// work items per thread. The
// split changes where a block ends, never what an element sums.
template <class T> gemm_split gemm_plan(int64_t m, int64_t n, int64_t outer) {
    using C = compute_t<T>;
    const gemm_isa isa = gemm_runtime_isa();
    using S = gemm_shape<C>;
    const int mr = S::mr, nr = S::nr;
    const int64_t mc = S::mc, nc = S::nc;
    const pool_iface* pool = current_pool(); // none on a pool thread: the blocks run one after the other
    const int64_t want = pool && pool->threads > 1 ? 4 * pool->threads : 1;
    int64_t rows = mc / mr, cols = nc / nr;
    gemm_split sp(m, n, isa, mr, nr, rows, cols);
    // a column block more reads all of A again (m x k), a row block more packs all of B again
    // (k x n): cut the side whose repeat costs less; but not the columns below the strips the
    // micro-kernel takes at once (avx512: four; a 64 x 196 product over 384 on two threads cut
    // into 13 one-strip column blocks ran slower than on one thread)
    const int64_t widest = isa == gemm_isa::avx512 && std::is_same<C, float>::value ? 4 : 1;
    while (outer * sp.blocks() < want && (cols > 1 || rows > 1)) {
        if (rows > 1 && (m > n || cols <= widest)) {
            // as many row blocks as make whole rounds of the pool's threads (the items are
            // handed out in turn: 9 equal blocks on 2 threads take 5 blocks' time, 8 take 4),
            // else half the rows
            const int64_t threads = pool->threads, per = outer * sp.col_blocks;
            const int64_t need = (want + per - 1) / per, blocks = (need + threads - 1) / threads * threads;
            const int64_t fit = (sp.row_strips + blocks - 1) / blocks;
            rows = fit < rows ? fit : (rows + 1) / 2;
        } else {
            cols = (cols + 1) / 2;
        }
        sp = gemm_split(m, n, isa, mr, nr, rows, cols);
    }
    return sp;
}

// Whether gemm_plan may cut the rows of an m x n product into more than one block, for some
// thread count: more rows than one block holds (mc), or more than one strip of them where the
// rows are cut first (m > n). (With more threads it may also cut the rows of a wide product,
// once its column blocks are down to the strips the micro-kernel takes at once.)
template <class C> constexpr bool gemm_rows_may_split(int64_t m, int64_t n) {
    using S = gemm_shape<C>;
    const int64_t strips = (m + S::mr - 1) / S::mr;
    return strips > S::mc / S::mr || (m > n && strips > 1);
}

// B read in place from rows anywhere: B(k, j) = base[off[k] + j], every row contiguous (a
// stride-1 convolution over a zero-bordered copy of its input, convolution_gemm: row k = (input
// channel, kernel offset) is the copy shifted by that offset). The micro-kernel reads whole
// strips past the last column: base must have nr - 1 elements to spare past the last one read.
template <class C> struct gemm_b_shifted {
    const C* base;
    const int64_t* off; // K offsets
};
template <class P> struct is_gemm_b_shifted : std::false_type {};
template <class C> struct is_gemm_b_shifted<gemm_b_shifted<C>> : std::true_type {};

// Where gemm_block stores its rows: element (i, j) of the product at y[i * ldy + j], its
// index for the epilogue ebase + i * ldy + j. (Another layout: convolution_gemm's
// conv_out_shifted.) store(ep, acc, acc_ld, i, j, cols, rows): rows i.. of columns j.. .
template <class T> struct gemm_out_dense {
    using value_type = T;
    T* y;
    int64_t ldy, ebase;
    template <class E, class C>
    void store(E& ep, const C* acc, int64_t acc_ld, int64_t i, int64_t j, int64_t cols, int64_t rows) const {
        const int64_t o = i * ldy + j;
        epilogue_store_rows(ep, acc, acc_ld, y + o, ldy, ebase + o, cols, rows);
    }
    // the lines of rows i.., columns j.. fetched for writing (gemm_fetch_out_bytes)
    void fetch(int64_t i, int64_t j, int64_t cols, int64_t rows) const {
        for (int64_t r = 0; r < rows; ++r) gemm_fetch_write(y + (i + r) * ldy + j, cols * int64_t(sizeof(T)));
    }
};
template <class O, class = void> struct has_out_fetch : std::false_type {};
template <class O>
struct has_out_fetch<O, decltype(void(std::declval<const O&>().fetch(int64_t(), int64_t(), int64_t(), int64_t())))>
    : std::true_type {};

// Block `blk` of y (of the split gemm_plan made, with its kernel). The packed panels, the
// accumulators and the micro-kernel are in the compute type C.
// gemm_block_to stores through an Out (gemm_out_dense: gemm_block).
template <class PA, class PB, class E, class Out>
void gemm_block_to(const gemm_split& sp, int64_t kdim, const PA& pack_a, const PB& pack_b, const Out& out,
                   const E& epi, int64_t blk) {
    using T = typename Out::value_type;
    using C = compute_t<T>;
    using S = gemm_shape<C>;
    constexpr int mr = S::mr, nr = S::nr;
    int64_t i0, i1, j0, j1;
    sp.block(blk, i0, i1, j0, j1);
    const int64_t mb = i1 - i0, nb = j1 - j0;
    alignas(64) C acc[S::mc * S::nc];
    alignas(64) C bp[S::kc * S::nc];
    alignas(64) C ap[S::kc * mr];
    // A read in place by whole strips when the packer says it can be (gemm_pack_a_strided:
    // compute-typed rows of unit stride)
    const C* adirect = nullptr;
    int64_t adirect_ld = 0;
    constexpr bool shifted = is_gemm_b_shifted<PB>::value; // (the micro-kernel takes its rows with A packed)
    if constexpr (has_gemm_direct<PA, C>::value && !shifted) adirect = pack_a.direct(adirect_ld);
    // a last strip of at most gemm_tail_max columns as dot products (gemm_tail), with A in place
    // (avx512 too, 2026-11-24: 512 3x3 over 7x7, 49 columns, 1.63 ms with it, 1.85 with the
    // last strip in the four-strip kernel; 256 over 14x14, 196 columns, the same either way)
    const int tail = adirect && nb % nr <= gemm_tail_max ? int(nb % nr) : 0;
    const int64_t nfull = nb - tail;
    constexpr bool strips = is_gemm_b_strips<PB>::value; // B in place, strip by strip
    // The epilogue stores each group of mr rows as soon as the last depth slice has finished
    // them, so that its stores to y overlap the micro-kernel's work on the next group instead
    // of coming in one burst after the block (1x1 64 -> 256 over 56x56: the burst was 29% of
    // the time). The extra inputs of a fused epilogue may share y's storage
    // (memory_sharing.cpp): each element is read before it is written. The epilogue may keep
    // state (fused.hpp): a copy.
    E ep = epi;
    const bool fetch_out = has_out_fetch<Out>::value && j1 < sp.n && kdim <= S::kc &&
                           double(sp.m) * double(sp.n) * double(sizeof(T)) > double(gemm_fetch_out_bytes);
    auto store = [&](int64_t ir) {
        const int64_t rows = mb - ir < mr ? mb - ir : mr;
        out.store(ep, static_cast<const C*>(acc + ir * S::nc), S::nc, i0 + ir, j0, nb, rows);
        if constexpr (has_out_fetch<Out>::value)
            if (fetch_out) out.fetch(i0 + ir, j1, sp.n - j1 < nb ? sp.n - j1 : nb, rows);
    };
    // A too large to stay in cache between runs: its slices fetched ahead on the first pass
    const double a_bytes = double(sp.m) * double(kdim) * double(sizeof(C));
    const bool fetch = a_bytes > double(gemm_prefetch_a_bytes);
    // rows [q0, q1) of the block's A read in place, the slice at k0 (kc deep)
    auto fetch_rows = [&](int64_t q0, int64_t q1, int64_t k0, int64_t kc) {
        for (int64_t q = q0; q < q1; ++q) gemm_fetch(adirect + (i0 + q) * adirect_ld + k0, kc * int64_t(sizeof(C)));
    };
    // depth slices of equal size, at most S::kc (a stem's 147 as 74 + 73, not 128 + 19: a slice
    // of a few steps pays the micro-kernel's loads and stores of the accumulators for little)
    const int64_t slices = (kdim + S::kc - 1) / S::kc, kstep = slices > 0 ? (kdim + slices - 1) / slices : S::kc;
    if constexpr (shifted) // (gemm_fetch_b_bytes) the next block's columns of B's rows
        if (j1 < sp.n && kdim <= S::kc && double(kdim) * double(sp.n) * double(sizeof(C)) > double(gemm_fetch_b_bytes))
            for (int64_t kk = 0; kk < kdim; ++kk)
                gemm_fetch(pack_b.base + pack_b.off[kk] + j1, (sp.n - j1 < nb ? sp.n - j1 : nb) * int64_t(sizeof(C)));
    for (int64_t k0 = 0; k0 < kdim; k0 += kstep) {
        const int64_t kc = kdim - k0 < kstep ? kdim - k0 : kstep;
        const bool last = k0 + kc >= kdim; // rows finished by the last strip are stored
        // strip jr of the block's panel (jr a multiple of nr)
        auto strip_at = [&](int64_t jr) -> const C* {
            if constexpr (strips) return pack_b.template at<nr>(k0, j0 + jr);
            else if constexpr (shifted) return pack_b.base + j0 + jr; // (its rows at boff)
            else return bp + jr * kc;
        };
        const int64_t* boff = nullptr;
        if constexpr (shifted) boff = pack_b.off + k0;
        if constexpr (!strips && !shifted) {
            if (nb % nr) memset(bp + nb / nr * nr * kc, 0, sizeof(C) * kc * nr);
            pack_b(k0, kc, j0, int(nb), bp, gemm_nr<nr>{});
        }
        if (tail) {
            alignas(64) C tt[gemm_tail_max * S::kc];
            const C* strip = strip_at(nfull);
            for (int j = 0; j < tail; ++j)
                for (int64_t kk = 0; kk < kc; ++kk) tt[j * kc + kk] = strip[kk * nr + j];
            // the first pass over this slice of A's rows: where A is large (see the panels
            // below), in chunks of rows, the next chunk's slices fetched meanwhile
            const C* a = adirect + i0 * adirect_ld + k0;
            const int64_t chunk = fetch ? 24 : mb; // (whole groups of the tail's 8, 4 or 2 rows: the same sums)
            for (int64_t r = 0; r < mb; r += chunk) {
                const int64_t rows = mb - r < chunk ? mb - r : chunk;
                if (fetch) fetch_rows(r + chunk, r + 2 * chunk < mb ? r + 2 * chunk : mb, k0, kc);
#if MXC_GEMM_AVX2
                if (gemm_isa_avx2(sp.isa))
                    gemm_tail<C, gemm_isa::avx2>::run(tail, kc, a + r * adirect_ld, adirect_ld, rows, tt, acc + r * S::nc + nfull,
                                                      S::nc, k0 == 0);
                else
#endif
                    gemm_tail<C, gemm_isa::base>::run(tail, kc, a + r * adirect_ld, adirect_ld, rows, tt, acc + r * S::nc + nfull,
                                                      S::nc, k0 == 0);
            }
        }
        // the distance from one strip to the next
        auto strip_step = [&]() -> int64_t {
            if constexpr (strips) return pack_b.kdim * nr;
            else if constexpr (shifted) return nr;
            else return kc * nr;
        };
        // the micro-kernel on rows ir .. ir + mr of A (a, lda) and the strip(s) at column jr:
        // returns the columns done (up to four strips at once on avx512)
        // (apf: on avx512, the packed slice of A to fetch meanwhile, or null)
        auto micro = [&](const C* a, int64_t lda, int64_t ir, int64_t jr, const C* apf = nullptr) -> int64_t {
            C* c = acc + ir * S::nc + jr;
#if MXC_GEMM_AVX2
            if constexpr (std::is_same<C, float>::value) {
                if (sp.isa == gemm_isa::avx512) {
                    const int64_t bstep = strip_step(); // (the same between any two strips)
                    switch ((nfull - jr + nr - 1) / nr) { // up to four strips at once (the last may be partial)
                    case 1: break;
                    case 2: gemm_micro<C, gemm_isa::avx512>::run2(kc, a, lda, strip_at(jr), bstep, c, S::nc, k0 == 0, boff, apf); return 2 * nr;
                    case 3: gemm_micro<C, gemm_isa::avx512>::run3(kc, a, lda, strip_at(jr), bstep, c, S::nc, k0 == 0, boff, apf); return 3 * nr;
                    default: gemm_micro<C, gemm_isa::avx512>::run4(kc, a, lda, strip_at(jr), bstep, c, S::nc, k0 == 0, boff, apf); return 4 * nr;
                    }
                    gemm_micro<C, gemm_isa::avx512>::run(kc, a, lda, strip_at(jr), c, S::nc, k0 == 0, boff, apf);
                    return nr;
                }
            }
            if (gemm_isa_avx2(sp.isa)) { // (double on avx512 too)
                gemm_micro<C, gemm_isa::avx2>::run(kc, a, lda, strip_at(jr), c, S::nc, k0 == 0, boff);
                return nr;
            }
#endif
            gemm_micro<C, gemm_isa::base>::run(kc, a, lda, strip_at(jr), c, S::nc, k0 == 0, boff);
            return nr;
        };
        if constexpr (is_gemm_a_panels<PA>::value) {
            // A's whole panels in place, the last rows packed once (ap): the strips outside, as below
            const int64_t whole = i0 + mb <= pack_a.rows / mr * mr ? mb : pack_a.rows / mr * mr - i0;
            if (whole < mb) {
                memset(ap, 0, sizeof(C) * kc * mr);
                pack_a(i0 + whole, int(mb - whole), k0, kc, ap);
            }
            // each panel's slice is a stream of its own (panels are K x mr apart): where A is
            // too large to stay in L2 between runs (`fetch`: more than gemm_prefetch_a_bytes;
            // inside a model it comes from memory), the next one is fetched while the micro-kernel works
            // on this one, on the first pass (ResNet-50's 256-channel 3x3s over 14x14, 2.4 MB
            // of weights each, one thread: 11.5 -> 9.5 ms; for small weights, already in cache,
            // the fetches only cost: 64-channel 3x3s 5.1 -> 5.4 ms); on avx512 by the
            // micro-kernel, from more than gemm_prefetch_panels_bytes (`in_micro`)
            const bool in_micro = std::is_same<C, float>::value && sp.isa == gemm_isa::avx512 &&
                                  a_bytes > double(gemm_prefetch_panels_bytes);
            for (int64_t jr = 0, done = 0; jr < nfull; jr += done)
                for (int64_t ir = 0; ir < mb; ir += mr) {
                    const C* apf = nullptr;
                    if (jr == 0 && ir + mr < whole) {
                        if (in_micro) apf = pack_a.at(i0 + ir + mr, k0);
                        else if (fetch) gemm_fetch(pack_a.at(i0 + ir + mr, k0), kc * mr * int64_t(sizeof(C)));
                    }
                    done = micro(ir < whole ? pack_a.at(i0 + ir, k0) : ap, 0, ir, jr, apf);
                    if (last && jr + done >= nfull) store(ir);
                }
        } else if (adirect) {
            // A in place: the strips outside, so that the one or two the micro-kernel reads
            // stay in L1 while every group of mr rows of A streams past them (A's rows of the
            // block: in L2); a last group of fewer rows packed once (ap)
            const int64_t full = mb / mr * mr;
            if (full < mb) {
                memset(ap, 0, sizeof(C) * kc * mr);
                pack_a(i0 + full, int(mb - full), k0, kc, ap);
            }
            for (int64_t jr = 0, done = 0; jr < nfull; jr += done)
                for (int64_t ir = 0; ir < mb; ir += mr) {
                    if (fetch && !tail && jr == 0) // (the tail made the first pass)
                        fetch_rows(ir + mr, ir + 2 * mr < full ? ir + 2 * mr : full, k0, kc);
                    done = ir < full ? micro(adirect + (i0 + ir) * adirect_ld + k0, adirect_ld, ir, jr) : micro(ap, 0, ir, jr);
                    if (last && jr + done >= nfull) store(ir);
                }
        } else {
            for (int64_t ir = 0; nfull > 0 && ir < mb; ir += mr) {
                const int rows = mb - ir < mr ? int(mb - ir) : mr;
                if (rows < mr) memset(ap, 0, sizeof(C) * kc * mr);
                pack_a(i0 + ir, rows, k0, kc, ap);
                for (int64_t jr = 0; jr < nfull;) jr += micro(ap, 0, ir, jr);
                if (last) store(ir);
            }
        }
    }
    if (kdim == 0)
        for (int64_t i = 0; i < mb * S::nc; ++i) acc[i] = C(0);
    if (kdim == 0 || nfull == 0) // no micro-kernel ran (only a tail, or nothing to sum): every row at once
        out.store(ep, static_cast<const C*>(acc), S::nc, i0, j0, nb, mb);
}
template <class T, class PA, class PB, class E>
void gemm_block(const gemm_split& sp, int64_t kdim, const PA& pack_a, const PB& pack_b, T* y, int64_t ldy,
                int64_t ebase, const E& epi, int64_t blk) {
    gemm_block_to(sp, kdim, pack_a, pack_b, gemm_out_dense<T>{y, ldy, ebase}, epi, blk);
}

// Packing of a strided matrix: element (i, j) at p[i * si + j * sj], widened to the compute type.
template <class T> struct gemm_pack_a_strided {
    const T* p;
    int64_t si, sj;
    const compute_t<T>* direct(int64_t& ld) const {
        ld = si;
        if constexpr (std::is_same<T, compute_t<T>>::value)
            if (sj == 1 && si > 0) return p;
        return nullptr;
    }
    void operator()(int64_t i0, int rows, int64_t k0, int64_t kc, compute_t<T>* dst) const {
        using C = compute_t<T>;
        constexpr int mr = gemm_mr;
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
    template <class NR> void operator()(int64_t k0, int64_t kc, int64_t j0, int cols, compute_t<T>* dst, NR) const {
        using C = compute_t<T>;
        constexpr int nr = NR::value;
        if (sj == 1) {
            // row by row (the block's part of a row is contiguous), and the part of the row the
            // next block along will read fetched meanwhile: the rows are far apart (a 1x1
            // convolution's input channels), too many streams for the hardware prefetcher
            const int ahead = si >= j0 + 2 * cols ? cols : 0; // (within the row)
            for (int64_t kk = 0; kk < kc; ++kk) {
                const T* src = p + (k0 + kk) * si + j0;
                gemm_fetch<2>(src + cols, ahead * int64_t(sizeof(T)));
                for (int c0 = 0; c0 < cols; c0 += nr) {
                    const int w = cols - c0 < nr ? cols - c0 : nr;
                    C* d = dst + c0 * kc + kk * nr;
                    if constexpr (std::is_same<T, C>::value)
                        if (w == nr) memcpy(d, src + c0, sizeof(T) * nr); // a fixed size: a few moves
                        else memcpy(d, src + c0, sizeof(T) * w);
                    else for (int c = 0; c < w; ++c) d[c] = C(src[c0 + c]);
                }
            }
            return;
        }
        for (int c0 = 0; c0 < cols; c0 += nr) {
            const int w = cols - c0 < nr ? cols - c0 : nr;
            C* strip = dst + c0 * kc;
            for (int c = 0; c < w; ++c) {
                const T* col = p + k0 * si + (j0 + c0 + c) * sj;
                for (int64_t kk = 0; kk < kc; ++kk) strip[kk * nr + c] = C(col[kk * si]);
            }
        }
    }
};

} // namespace cpu
} // namespace mxc
