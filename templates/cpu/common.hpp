// Helpers shared by every cpu kernel template. Plain C++17: included by mxc itself (reference
// evaluator, constant folding) and by generated cpu libraries.
#pragma once
#include "templates/common/abi.hpp"
#include "templates/common/types.hpp"

#include <math.h>
#include <stddef.h>
#include <stdint.h>

namespace mxc {
namespace cpu {

// Arithmetic type for an element type: half and bfloat16 compute in float.
template <class T> struct compute { using type = T; };
template <> struct compute<mxc_half> { using type = float; };
template <> struct compute<mxc_bf16> { using type = float; };
template <class T> using compute_t = typename compute<T>::type;

inline int64_t elements(const mxc_desc& d) {
    int64_t n = 1;
    for (int i = 0; i < d.rank; ++i) n *= d.lens[i];
    return n;
}

// Element offset (through strides) of the element with row-major index `linear`.
inline int64_t offset_of(const mxc_desc& d, int64_t linear) {
    int64_t off = 0;
    for (int i = d.rank - 1; i >= 0; --i) {
        int64_t l = d.lens[i];
        off += (linear % l) * d.strides[i];
        linear /= l;
    }
    return off;
}

inline bool is_standard(const mxc_desc& d) {
    int64_t acc = 1;
    for (int i = d.rank - 1; i >= 0; --i) {
        if (d.lens[i] != 1 && d.strides[i] != acc) return false;
        acc *= d.lens[i];
    }
    return true;
}

template <class T> inline const T* input(const mxc_kargs& k, int i) { return static_cast<const T*>(k.in[i]); }
template <class T> inline T* output(const mxc_kargs& k) { return static_cast<T*>(k.out); }

// Calls f(out_index, in_offsets...) for every output element; inputs have the output's lens.
template <int N, class F> inline void for_each_element(const mxc_kargs& k, F f) {
    const int64_t n = elements(*k.out_desc);
    bool packed = true;
    for (int i = 0; i < N; ++i) packed = packed && is_standard(k.in_desc[i]);
    int64_t off[N > 0 ? N : 1];
    if (packed) {
        for (int64_t e = 0; e < n; ++e) {
            for (int i = 0; i < N; ++i) off[i] = e;
            f(e, off);
        }
    } else {
        for (int64_t e = 0; e < n; ++e) {
            for (int i = 0; i < N; ++i) off[i] = offset_of(k.in_desc[i], e);
            f(e, off);
        }
    }
}

} // namespace cpu
} // namespace mxc
