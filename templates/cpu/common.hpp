// Helpers shared by every cpu kernel template. Plain C++17: included by mxc itself (reference
// evaluator, constant folding) and by generated cpu libraries.
#pragma once
#include "templates/common/abi.hpp"
#include "templates/common/math.hpp"
#include "templates/common/types.hpp"
#include "templates/cpu/isa.hpp"
#include "templates/cpu/parallel.hpp"

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <type_traits>
#include <utility>

namespace mxc {
namespace cpu {

// Arithmetic type for an element type: half and bfloat16 compute in float.
template <class T> using compute_t = mxc_compute_t<T>;

inline int64_t elements(const mxc_desc& d) { return mxc_elements(d); }

// Element offset (through strides) of the element with row-major index `linear`.
inline int64_t offset_of(const mxc_desc& d, int64_t linear) { return mxc_offset_of(d, linear); }

template <class T> inline const T* input(const mxc_kargs& k, int i) { return static_cast<const T*>(k.in[i]); }
template <class T> inline T* output(const mxc_kargs& k) { return static_cast<T*>(k.out); }

// Walks the elements [begin, end) (end < 0: to the last) of an index space (lens, rank) in
// row-major order and calls f(e, off) with the offset of each of `count` (at most N) operands
// through its strides: the offsets are stepped along the last dim and carried over the
// others, no division per element (one unravel of `begin`).
template <int N, class F>
inline void for_each_strided(const int64_t* lens, int rank, const int64_t* const* strides, F f, int count = N,
                             int64_t begin = 0, int64_t end = -1) {
    int64_t n = 1;
    for (int d = 0; d < rank; ++d) n *= lens[d];
    if (end < 0 || end > n) end = n;
    int64_t off[N > 0 ? N : 1] = {};
    if (begin >= end) return;
    if (rank == 0) {
        f(int64_t(0), static_cast<const int64_t*>(off));
        return;
    }
    const int last = rank - 1;
    int64_t idx[MXC_MAX_RANK] = {};
    for (int64_t rest = begin, d = last; d >= 0; --d) {
        idx[d] = rest % lens[d];
        rest /= lens[d];
    }
    for (int i = 0; i < count; ++i)
        for (int d = 0; d <= last; ++d) off[i] += idx[d] * strides[i][d];
    for (int64_t e = begin;;) {
        const int64_t row = lens[last] - idx[last] < end - e ? lens[last] - idx[last] : end - e;
        for (int64_t q = 0; q < row; ++q, ++e) {
            f(e, static_cast<const int64_t*>(off));
            for (int i = 0; i < count; ++i) off[i] += strides[i][last];
        }
        if (e >= end) return;
        for (int i = 0; i < count; ++i) off[i] -= lens[last] * strides[i][last];
        idx[last] = 0;
        for (int d = last - 1; d >= 0; --d) {
            for (int i = 0; i < count; ++i) off[i] += strides[i][d];
            if (++idx[d] < lens[d]) break;
            for (int i = 0; i < count; ++i) off[i] -= lens[d] * strides[i][d];
            idx[d] = 0;
        }
    }
}

// Calls f(begin, end) for pieces that cover [0, n), spread over the pool (parallel_for): a
// piece per `grain` elements at least, so that handing one out costs little next to its work,
// and where there is more than one, a whole number of them per thread (3 pieces on 2 threads
// took two pieces' time: YOLO's sigmoid of a 3 x 400 x 85 view ran 1.3x faster on 2 threads).
constexpr int64_t elementwise_grain = int64_t(1) << 15;
template <class F> inline void parallel_ranges(int64_t n, const F& f, int64_t grain = elementwise_grain) {
    int64_t pieces = n / grain;
    if (pieces > 64) pieces = 64;
    if (pieces < 1) pieces = 1;
    const pool_iface* pool = current_pool();
    if (pieces > 1 && pool && pool->threads > 1) pieces = (pieces + pool->threads - 1) / pool->threads * pool->threads;
    if (pieces > n) pieces = n > 0 ? n : 1;
    parallel_for(pieces, [&](int64_t t) { f(n * t / pieces, n * (t + 1) / pieces); });
}

// Views read across their rows (transposed): where an operand steps by more than one element
// along the last dim but by one along another dim d (YOLO's heads: sigmoid of a [1, 3, 85,
// 1600] -> [1, 3, 1600, 85] transpose), the row-major walk reads a cache line of it per
// element; a walk in tiles of tile x tile over (d, last) reads each line once. The dim d of
// the first such operand (at least 8 long, as the last), or -1: the row-major walk.
constexpr int64_t transposed_tile = 32;
inline int transposed_dim(const mxc_desc& od, const int64_t* const* strides, int count) {
    const int last = od.rank - 1;
    if (od.rank < 2 || od.lens[last] < 8) return -1;
    for (int i = 0; i < count; ++i) {
        if (strides[i][last] == 0 || strides[i][last] == 1) continue;
        for (int d = last - 1; d >= 0; --d)
            if (strides[i][d] == 1) return od.lens[d] >= 8 ? d : -1;
        return -1;
    }
    return -1;
}

// The tiles [u0, u1) of that walk, f(e, off) as for_each_strided for every element of each: a
// tile is an index over the dims other than d and last (row-major), then a tile along d, then
// one along last; in it, rows of up to `tile` elements along last.
template <int N, class F>
inline void for_each_tiled_in(const mxc_desc& od, int d, const int64_t* const* strides, const F& f, int64_t u0,
                              int64_t u1) {
    constexpr int64_t t = transposed_tile;
    const int last = od.rank - 1;
    const int64_t nd = (od.lens[d] + t - 1) / t, nl = (od.lens[last] + t - 1) / t;
    int64_t ostride[MXC_MAX_RANK]; // the packed output's strides
    for (int64_t q = last, st = 1; q >= 0; --q) ostride[q] = st, st *= od.lens[q];
    for (int64_t u = u0; u < u1; ++u) {
        int64_t rest = u, e0 = 0, off0[N > 0 ? N : 1] = {};
        const int64_t tl = rest % nl * t, td = (rest /= nl) % nd * t;
        rest /= nd;
        for (int q = last - 1; q >= 0; --q) {
            if (q == d) continue;
            const int64_t i = rest % od.lens[q];
            rest /= od.lens[q];
            e0 += i * ostride[q];
            for (int j = 0; j < N; ++j) off0[j] += i * strides[j][q];
        }
        const int64_t ad = od.lens[d] - td < t ? od.lens[d] - td : t, al = od.lens[last] - tl < t ? od.lens[last] - tl : t;
        for (int64_t a = td; a < td + ad; ++a) {
            int64_t off[N > 0 ? N : 1];
            for (int j = 0; j < N; ++j) off[j] = off0[j] + a * strides[j][d] + tl * strides[j][last];
            for (int64_t b = tl, e = e0 + a * ostride[d] + tl; b < tl + al; ++b, ++e) {
                f(e, static_cast<const int64_t*>(off));
                for (int j = 0; j < N; ++j) off[j] += strides[j][last];
            }
        }
    }
}

// Elements [begin, end) of for_each_element (its pieces: packed, or row-major).
template <int N, class F>
inline void for_each_element_in(const mxc_kargs& k, bool packed, const int64_t* const* strides, const F& f,
                                int64_t begin, int64_t end) {
    if (packed) {
        int64_t off[N > 0 ? N : 1];
        for (int64_t e = begin; e < end; ++e) {
            for (int i = 0; i < N; ++i) off[i] = e;
            f(e, static_cast<const int64_t*>(off));
        }
    } else {
        for_each_strided<N>(k.out_desc->lens, k.out_desc->rank, strides, f, N, begin, end);
    }
}

// Runs p.run(b, e) (an always_inline piece of a loop: the fused epilogues') in the vectors of
// the CPU, the GEMM's run-time choice (gemm_runtime_isa): clones for AVX2 and AVX-512F, and the
// baseline. flatten: the body and the math it calls are inlined whatever GCC's unit-growth
// limit says (in a large generated unit it stopped inlining them, and a call per element stops
// the vectorisation). No clone fuses a multiply and add (AVX2 without FMA; contraction off in
// the AVX-512F one, which brings FMA): every element is the baseline's. (The elementwise walks
// stay on the baseline: in an AVX-512 clone of theirs GCC did not inline the kernels' lambdas,
// a call per element.)
template <class P> struct isa_clones {
    const P& p;
    __attribute__((flatten, noinline)) void run_base(int64_t b, int64_t e) const { p.run(b, e); }
#if MXC_GEMM_AVX2
    __attribute__((target("avx2"), flatten, noinline)) void run_avx2(int64_t b, int64_t e) const { p.run(b, e); }
    __attribute__((target("avx512f,prefer-vector-width=512"), optimize("fp-contract=off"), flatten, noinline)) void
    run_avx512(int64_t b, int64_t e) const {
        p.run(b, e);
    }
#endif
    void operator()(int64_t b, int64_t e) const {
#if MXC_GEMM_AVX2
        const gemm_isa isa = gemm_runtime_isa();
        if (isa == gemm_isa::avx512) return run_avx512(b, e);
        if (gemm_isa_avx2(isa)) return run_avx2(b, e);
#endif
        run_base(b, e);
    }
};

// A piece of for_each_element: elements [b, e) (d < 0), or tiles [b, e) over (d, last).
// flatten: f and the math it calls are inlined whatever GCC's unit-growth limit says (see
// isa_clones).
template <int N, class F> struct element_piece {
    const mxc_kargs& k;
    bool packed;
    int d;
    const int64_t* const* strides;
    const F& f;
    __attribute__((flatten, noinline)) void operator()(int64_t b, int64_t e) const {
        if (d >= 0) for_each_tiled_in<N>(*k.out_desc, d, strides, f, b, e);
        else for_each_element_in<N>(k, packed, strides, f, b, e);
    }
};

// Calls f(out_index, in_offsets...) for every output element; inputs have the output's lens.
// The elements are spread over the pool: f is called concurrently, for distinct elements, in
// row-major order within a piece or, for transposed views, tile by tile (for_each_tiled_in).
template <int N, class F> inline void for_each_element(const mxc_kargs& k, F f) {
    bool packed = true;
    for (int i = 0; i < N; ++i) packed = packed && mxc_is_packed(k.in_desc[i]);
    const int64_t* strides[N > 0 ? N : 1];
    for (int i = 0; i < N; ++i) strides[i] = k.in_desc[i].strides;
    const mxc_desc& od = *k.out_desc;
    const int d = packed ? -1 : transposed_dim(od, strides, N);
    const element_piece<N, F> piece{k, packed, d, strides, f};
    if (d >= 0) {
        const int64_t tiles = elements(od) / (od.lens[d] * od.lens[od.rank - 1]) *
                              ((od.lens[d] + transposed_tile - 1) / transposed_tile) *
                              ((od.lens[od.rank - 1] + transposed_tile - 1) / transposed_tile);
        parallel_ranges(tiles, piece, elementwise_grain / (transposed_tile * transposed_tile));
    } else {
        parallel_ranges(elements(od), piece);
    }
}

// Calls f(e) for every output element e (the generic loop of kernels whose per-element math
// lives in templates/common).
template <class F> inline void for_each_output(const mxc_kargs& k, F f) {
    const int64_t n = elements(*k.out_desc);
    for (int64_t e = 0; e < n; ++e) f(e);
}

// An epilogue (the functor a conv/dot kernel maps each accumulated value through before the
// store, `epi(acc, e)` for output element e) may also take a whole run of consecutive output
// elements at once: `epi.run(acc, y, e, len)` stores y[i] = epi(acc[i], e + i), i < len (the
// fused epilogues of templates/cpu/fused.hpp do: they read their extra inputs per run).
// epilogue_store calls it when there is one, else the epilogue element by element.
template <class E, class C, class T, class = void> struct has_epilogue_run : std::false_type {};
template <class E, class C, class T>
struct has_epilogue_run<E, C, T,
                        decltype(void(std::declval<E&>().run(std::declval<const C*>(), std::declval<T*>(), int64_t(),
                                                             int64_t())))> : std::true_type {};

template <class E, class C, class T> inline void epilogue_store(E& epi, const C* acc, T* y, int64_t e, int64_t len) {
    if constexpr (has_epilogue_run<E, C, T>::value)
        epi.run(acc, y, e, len);
    else
        for (int64_t i = 0; i < len; ++i) y[i] = T(epi(acc[i], e + i));
}

// Rows of a block: y[r * ldy + i] = epi(acc[r * acc_ld + i], e + r * ldy + i), i < len, r < rows;
// the epilogue's run_rows when it has one (fused epilogues: one unravel a block), else row by row.
template <class E, class C, class T, class = void> struct has_epilogue_rows : std::false_type {};
template <class E, class C, class T>
struct has_epilogue_rows<E, C, T,
                         decltype(void(std::declval<E&>().run_rows(std::declval<const C*>(), int64_t(), std::declval<T*>(),
                                                                   int64_t(), int64_t(), int64_t(), int64_t())))>
    : std::true_type {};

template <class E, class C, class T>
inline void epilogue_store_rows(E& epi, const C* acc, int64_t acc_ld, T* y, int64_t ldy, int64_t e, int64_t len, int64_t rows) {
    if constexpr (has_epilogue_rows<E, C, T>::value)
        epi.run_rows(acc, acc_ld, y, ldy, e, len, rows);
    else
        for (int64_t r = 0; r < rows; ++r) epilogue_store(epi, acc + r * acc_ld, y + r * ldy, e + r * ldy, len);
}

} // namespace cpu
} // namespace mxc
