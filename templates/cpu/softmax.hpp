// softmax / log_softmax along axis ip[0] (math: templates/common/softmax.hpp), rows shared
// out to the thread pool in groups. A row of contiguous elements computed in its own type
// (float, double) takes a faster form of the same math: the maximum and the sum in 32-byte
// vectors of partial results, combined in a fixed order (so the value does not depend on the
// CPU or the thread count; it may differ from mxc_softmax_row's sum in order by an ulp or
// two), each exp computed once and kept in y, then divided by the sum.
#pragma once
#include "templates/common/softmax.hpp"
#include "templates/cpu/common.hpp"
#include "templates/cpu/gemm.hpp"
#include "templates/cpu/parallel.hpp"

#include <string.h>
#include <type_traits>

namespace mxc {
namespace cpu {

template <class T> struct softmax_vec {
    static constexpr int lanes = int(32 / sizeof(T));
    typedef T V __attribute__((vector_size(32)));
    // the largest element of x[0, len) (NaN if any is NaN; the lowest value if len is 0)
    __attribute__((always_inline)) static T max(const T* x, int64_t len) {
        V mv, v;
        for (int l = 0; l < lanes; ++l) mv[l] = mxc_lowest<T>();
        auto nan = mv != mv; // no lane has seen a NaN
        int64_t i = 0;
        for (; i + lanes <= len; i += lanes) {
            memcpy(&v, x + i, sizeof v);
            mv = mv < v ? v : mv;
            nan |= v != v;
        }
        T m = mxc_lowest<T>();
        bool any_nan = false;
        for (int l = 0; l < lanes; ++l) {
            m = m < mv[l] ? mv[l] : m;
            any_nan |= nan[l] != 0;
        }
        if (any_nan) return T(NAN);
        for (; i < len; ++i) m = mxc_op_max_nan{}(m, x[i]);
        return m;
    }
    // the sum of x[0, len): lanes of partial sums, then the lanes and the tail in order
    __attribute__((always_inline)) static T sum(const T* x, int64_t len) {
        V sv = V{}, v;
        int64_t i = 0;
        for (; i + lanes <= len; i += lanes) {
            memcpy(&v, x + i, sizeof v);
            sv += v;
        }
        T s = T(0);
        for (int l = 0; l < lanes; ++l) s += sv[l];
        for (; i < len; ++i) s += x[i];
        return s;
    }
};

// One contiguous row; x may be y (the attention kernel's softmax runs in place).
template <class T, bool Log> __attribute__((always_inline)) inline void softmax_row_of(const T* x, T* y, int64_t len) {
    const T m = softmax_vec<T>::max(x, len);
    if (m == mxc_lowest<T>()) { // every element is -inf: softmax 0, log -inf
        for (int64_t i = 0; i < len; ++i) y[i] = Log ? mxc_lowest<T>() : T(0);
        return;
    }
    if (Log) {
        T sum = T(0);
        for (int64_t i = 0; i < len; ++i) sum += mxc_exp(T(x[i] - m));
        const T log_sum = mxc_log(sum);
        for (int64_t i = 0; i < len; ++i) y[i] = T(T(x[i] - m) - log_sum);
    } else {
        for (int64_t i = 0; i < len; ++i) y[i] = mxc_exp(T(x[i] - m)); // (GCC vectorises it: mxc_exp is branch-free)
        const T sum = softmax_vec<T>::sum(y, len);
        for (int64_t i = 0; i < len; ++i) y[i] = y[i] / sum;
    }
}
// The row for the baseline ISA and, where the CPU has it, for AVX2 (no FMA: the same values).
// flatten: mxc_exp is inlined into the loops whatever GCC's unit-growth limit says.
template <class T, bool Log> __attribute__((flatten, noinline)) void softmax_row_base(const T* x, T* y, int64_t len) {
    softmax_row_of<T, Log>(x, y, len);
}
#if MXC_GEMM_AVX2
template <class T, bool Log>
__attribute__((target("avx2"), flatten, noinline)) void softmax_row_avx2(const T* x, T* y, int64_t len) {
    softmax_row_of<T, Log>(x, y, len);
}
#endif
template <class T, bool Log> inline void softmax_contiguous_row(const T* x, T* y, int64_t len) {
#if MXC_GEMM_AVX2
    if (gemm_isa_avx2(gemm_runtime_isa())) return softmax_row_avx2<T, Log>(x, y, len);
#endif
    softmax_row_base<T, Log>(x, y, len);
}

template <class T, bool Log> inline void softmax_rows(const mxc_kargs& k) {
    const mxc_desc &xd = k.in_desc[0], &od = *k.out_desc;
    const int64_t axis = k.ip[0], rows = mxc_softmax_rows(od, axis);
    if (rows == 0) return;
    const int64_t len = od.lens[axis], group = 4096 / (len > 0 ? len : 1) + 1; // rows per work item
    const bool contiguous = std::is_same<T, compute_t<T>>::value && mxc_softmax_inner(od, axis) == 1 &&
                            mxc_is_packed(xd) && mxc_is_packed(od);
    parallel_for((rows + group - 1) / group, [&](int64_t g) {
        const int64_t r1 = (g + 1) * group < rows ? (g + 1) * group : rows;
        for (int64_t r = g * group; r < r1; ++r) {
            if constexpr (std::is_same<T, compute_t<T>>::value)
                if (contiguous) {
                    softmax_contiguous_row<T, Log>(input<T>(k, 0) + r * len, output<T>(k) + r * len, len);
                    continue;
                }
            mxc_softmax_row<T, Log>(input<T>(k, 0), xd, output<T>(k), od, axis, r);
        }
    });
}

template <class T> void softmax(const mxc_kargs& k) { softmax_rows<T, false>(k); }
template <class T> void log_softmax(const mxc_kargs& k) { softmax_rows<T, true>(k); }

} // namespace cpu
} // namespace mxc
