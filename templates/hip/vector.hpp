// The vectorised pointwise path: when the output is packed and every input is either packed
// with the output's lens or one broadcast element (a scalar), a thread computes 4 neighbouring
// elements, reading and writing each packed operand with one aligned 4-element access
// (16 bytes for 4-byte types). Anything else takes the one-thread-per-element strided path.
#pragma once
#include "templates/hip/common.hpp"

namespace mxc {
namespace hip {

constexpr int vec_width = 4;

template <class T> struct alignas(sizeof(T) * vec_width < 16 ? sizeof(T) * vec_width : 16) vec_pack {
    T v[vec_width];
};

inline bool is_broadcast_scalar(const mxc_desc& d) {
    for (int i = 0; i < d.rank; ++i)
        if (d.lens[i] != 1 && d.strides[i] != 0) return false;
    return true;
}
inline bool same_lens(const mxc_desc& a, const mxc_desc& b) {
    if (a.rank != b.rank) return false;
    for (int i = 0; i < a.rank; ++i)
        if (a.lens[i] != b.lens[i]) return false;
    return true;
}

// Whether the first n_in inputs and the output of k (all of type T) take the vectorised path;
// sets bit j of *scalars for an input j that is one broadcast element.
template <class T> inline bool vectorisable(const mxc_kargs& k, int n_in, unsigned* scalars) {
    auto aligned = [](const void* p) { return reinterpret_cast<uintptr_t>(p) % alignof(vec_pack<T>) == 0; };
    if (n_in > k.n_in || n_in > max_inputs || !mxc_is_packed(*k.out_desc) || !aligned(k.out)) return false;
    *scalars = 0;
    for (int j = 0; j < n_in; ++j) {
        if (is_broadcast_scalar(k.in_desc[j])) *scalars |= 1u << j;
        else if (!same_lens(k.in_desc[j], *k.out_desc) || !mxc_is_packed(k.in_desc[j]) || !aligned(k.in[j])) return false;
    }
    return true;
}

// Elements 4p..4p+3 of y = body(x) (fewer at the end) with x[j] = element of input j < a.n_in
// (at most N inputs, all of type T), computed in the compute type C: body(a, const C* x) -> C.
template <class T, int N, class Body> struct vec_elem {
    Body body;
    unsigned scalars; // bit j: input j is one broadcast element
    int64_t n;        // output elements
    __device__ void operator()(const dev_args& a, int64_t p) const {
        using C = mxc_compute_t<T>;
        const int64_t i0 = p * vec_width;
        T* y = out_ptr<T>(a);
        if (i0 + vec_width <= n) {
            vec_pack<T> v[N], r;
            for (int j = 0; j < N && j < a.n_in; ++j) {
                const T* x = in_ptr<T>(a, j);
                if (scalars >> j & 1u)
                    for (int e = 0; e < vec_width; ++e) v[j].v[e] = x[0];
                else v[j] = vector_load<vec_pack<T>>(x + i0);
            }
            for (int e = 0; e < vec_width; ++e) {
                C x[N];
                for (int j = 0; j < N && j < a.n_in; ++j) x[j] = C(v[j].v[e]);
                r.v[e] = T(body(a, x));
            }
            vector_store(y + i0, r);
            return;
        }
        for (int64_t i = i0; i < n; ++i) {
            C x[N];
            for (int j = 0; j < N && j < a.n_in; ++j) x[j] = C(in_ptr<T>(a, j)[(scalars >> j & 1u) ? 0 : i]);
            y[i] = T(body(a, x));
        }
    }
};

// Launches y = body(x) 4 elements a thread (k has at most N inputs); false (nothing launched)
// when k does not qualify.
template <class T, int N, class Body> inline bool launch_vectorised(const mxc_kargs& k, hipStream_t stream, Body body) {
    unsigned scalars = 0;
    if (k.n_in > N || !vectorisable<T>(k, k.n_in, &scalars)) return false;
    const int64_t n = mxc_elements(*k.out_desc);
    launch(pack(k), (n + vec_width - 1) / vec_width, stream, vec_elem<T, N, Body>{body, scalars, n});
    return true;
}

} // namespace hip
} // namespace mxc
