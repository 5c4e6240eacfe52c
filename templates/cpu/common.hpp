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

// Calls f(out_index, in_offsets...) for every output element; inputs have the output's lens.
template <int N, class F> inline void for_each_element(const mxc_kargs& k, F f) {
    const int64_t n = elements(*k.out_desc);
    bool packed = true;
    for (int i = 0; i < N; ++i) packed = packed && mxc_is_packed(k.in_desc[i]);
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

} // namespace cpu
} // namespace mxc
