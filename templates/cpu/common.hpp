// Helpers shared by every cpu kernel template. Plain C++17: included by mxc itself (reference
// evaluator, constant folding) and by generated cpu libraries.
#pragma once
#include "templates/common/abi.hpp"
#include "templates/common/math.hpp"
#include "templates/common/types.hpp"

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

// Walks the elements of an index space (lens, rank) in row-major order and calls
// f(e, off) with the offset of each of `count` (at most N) operands through its strides: the
// offsets are stepped along the last dim and carried over the others, no division per element.
template <int N, class F>
inline void for_each_strided(const int64_t* lens, int rank, const int64_t* const* strides, F f, int count = N) {
    int64_t n = 1;
    for (int d = 0; d < rank; ++d) n *= lens[d];
    int64_t off[N > 0 ? N : 1] = {};
    if (n == 0) return;
    if (rank == 0) {
        f(int64_t(0), static_cast<const int64_t*>(off));
        return;
    }
    const int last = rank - 1;
    int64_t idx[MXC_MAX_RANK] = {};
    for (int64_t e = 0; e < n;) {
        for (int64_t q = 0; q < lens[last]; ++q, ++e) {
            f(e, static_cast<const int64_t*>(off));
            for (int i = 0; i < count; ++i) off[i] += strides[i][last];
        }
        for (int i = 0; i < count; ++i) off[i] -= lens[last] * strides[i][last];
        for (int d = last - 1; d >= 0; --d) {
            for (int i = 0; i < count; ++i) off[i] += strides[i][d];
            if (++idx[d] < lens[d]) break;
            for (int i = 0; i < count; ++i) off[i] -= lens[d] * strides[i][d];
            idx[d] = 0;
        }
    }
}

// Calls f(out_index, in_offsets...) for every output element; inputs have the output's lens.
template <int N, class F> inline void for_each_element(const mxc_kargs& k, F f) {
    const int64_t n = elements(*k.out_desc);
    bool packed = true;
    for (int i = 0; i < N; ++i) packed = packed && mxc_is_packed(k.in_desc[i]);
    if (packed) {
        int64_t off[N > 0 ? N : 1];
        for (int64_t e = 0; e < n; ++e) {
            for (int i = 0; i < N; ++i) off[i] = e;
            f(e, static_cast<const int64_t*>(off));
        }
    } else {
        const int64_t* strides[N > 0 ? N : 1];
        for (int i = 0; i < N; ++i) strides[i] = k.in_desc[i].strides;
        for_each_strided<N>(k.out_desc->lens, k.out_desc->rank, strides, f);
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
