// Elementwise hip kernels: 4 elements a thread with aligned vector loads when the output and
// inputs are packed alike (or inputs are scalars: templates/hip/vector.hpp), else one thread
// per output element with inputs read through their strides. The math is in
// templates/common/pointwise.hpp. `convert`: ip = [source dtype index].
#pragma once
#include "templates/common/pointwise.hpp"
#include "templates/hip/common.hpp"
#include "templates/hip/vector.hpp"

namespace mxc {
namespace hip {

template <class T, int N, class F> struct pointwise_elem {
    F f;
    __device__ void operator()(const dev_args& a, int64_t i) const {
        using C = mxc_compute_t<T>;
        C x[N];
        for (int j = 0; j < N; ++j) x[j] = C(in_ptr<T>(a, j)[mxc_offset_of(a.in_desc[j], i)]);
        T* y = out_ptr<T>(a);
        if constexpr (N == 1) y[i] = T(f(x[0]));
        else if constexpr (N == 2) y[i] = T(f(x[0], x[1]));
        else y[i] = T(f(x[0], x[1], x[2]));
    }
};

// f over the N values of x, for the vectorised path.
template <int N, class F> struct pointwise_body {
    F f;
    template <class C> __device__ auto operator()(const dev_args&, const C* x) const {
        if constexpr (N == 1) return f(x[0]);
        else if constexpr (N == 2) return f(x[0], x[1]);
        else return f(x[0], x[1], x[2]);
    }
};

template <class T, int N, class F> inline void pointwise(const mxc_kargs& k, hipStream_t stream, F f) {
    if (!launch_vectorised<T, N>(k, stream, pointwise_body<N, F>{f})) launch_per_output(k, stream, pointwise_elem<T, N, F>{f});
}

template <class T> void relu(const mxc_kargs& k, hipStream_t s) { pointwise<T, 1>(k, s, mxc_pw_relu{}); }
template <class T> void sigmoid(const mxc_kargs& k, hipStream_t s) { pointwise<T, 1>(k, s, mxc_pw_sigmoid{}); }
template <class T> void tanh(const mxc_kargs& k, hipStream_t s) { pointwise<T, 1>(k, s, mxc_pw_tanh{}); }
template <class T> void neg(const mxc_kargs& k, hipStream_t s) { pointwise<T, 1>(k, s, mxc_pw_neg{}); }
template <class T> void abs(const mxc_kargs& k, hipStream_t s) { pointwise<T, 1>(k, s, mxc_pw_abs{}); }
template <class T> void exp(const mxc_kargs& k, hipStream_t s) { pointwise<T, 1>(k, s, mxc_pw_exp{}); }
template <class T> void log(const mxc_kargs& k, hipStream_t s) { pointwise<T, 1>(k, s, mxc_pw_log{}); }
template <class T> void sqrt(const mxc_kargs& k, hipStream_t s) { pointwise<T, 1>(k, s, mxc_pw_sqrt{}); }
template <class T> void erf(const mxc_kargs& k, hipStream_t s) { pointwise<T, 1>(k, s, mxc_pw_erf{}); }
template <class T> void gelu(const mxc_kargs& k, hipStream_t s) { pointwise<T, 1>(k, s, mxc_pw_gelu{}); }
template <class T> void gelu_tanh(const mxc_kargs& k, hipStream_t s) { pointwise<T, 1>(k, s, mxc_pw_gelu_tanh{}); }
template <class T> void add(const mxc_kargs& k, hipStream_t s) { pointwise<T, 2>(k, s, mxc_pw_add{}); }
template <class T> void sub(const mxc_kargs& k, hipStream_t s) { pointwise<T, 2>(k, s, mxc_pw_sub{}); }
template <class T> void mul(const mxc_kargs& k, hipStream_t s) { pointwise<T, 2>(k, s, mxc_pw_mul{}); }
template <class T> void div(const mxc_kargs& k, hipStream_t s) { pointwise<T, 2>(k, s, mxc_pw_div{}); }
template <class T> void max(const mxc_kargs& k, hipStream_t s) { pointwise<T, 2>(k, s, mxc_pw_max{}); }
template <class T> void min(const mxc_kargs& k, hipStream_t s) { pointwise<T, 2>(k, s, mxc_pw_min{}); }
template <class T> void pow(const mxc_kargs& k, hipStream_t s) { pointwise<T, 2>(k, s, mxc_pw_pow{}); }
template <class T> void clip(const mxc_kargs& k, hipStream_t s) { pointwise<T, 3>(k, s, mxc_pw_clip{}); }

// A packed copy of a (strided) view.
template <class T> struct contiguous_elem {
    __device__ void operator()(const dev_args& a, int64_t i) const {
        out_ptr<T>(a)[i] = in_ptr<T>(a, 0)[mxc_offset_of(a.in_desc[0], i)];
    }
};
template <class T> void contiguous(const mxc_kargs& k, hipStream_t s) { launch_per_output(k, s, contiguous_elem<T>{}); }

template <class T, class S> struct convert_elem {
    __device__ void operator()(const dev_args& a, int64_t i) const {
        out_ptr<T>(a)[i] = mxc_cast<T>(in_ptr<S>(a, 0)[mxc_offset_of(a.in_desc[0], i)], a.ip[1] != 0, (int)a.ip[2]);
    }
};
// y = x cast to T from S; ip = [source type, saturate, round_mode]. S = void: the source type
// ip[0] names, dispatched on the host (every S's kernel is built).
template <class T, class S = void> void convert(const mxc_kargs& k, hipStream_t s) {
    if constexpr (std::is_void<S>::value)
        mxc_visit_dtype(static_cast<int>(k.ip[0]), [&](auto tag) { launch_per_output(k, s, convert_elem<T, decltype(tag)>{}); });
    else
        launch_per_output(k, s, convert_elem<T, S>{});
}

template <class T, class S> struct bitcast_elem {
    __device__ void operator()(const dev_args& a, int64_t i) const {
        out_ptr<T>(a)[i] = mxc_bitcast<T>(in_ptr<S>(a, 0)[mxc_offset_of(a.in_desc[0], i)]);
    }
};
// y = the bits of x (of S) read as T; ip = [source type]. S = void: as for convert.
template <class T, class S = void> void bitcast(const mxc_kargs& k, hipStream_t s) {
    if constexpr (std::is_void<S>::value)
        mxc_visit_dtype(static_cast<int>(k.ip[0]), [&](auto tag) { launch_per_output(k, s, bitcast_elem<T, decltype(tag)>{}); });
    else
        launch_per_output(k, s, bitcast_elem<T, S>{});
}

} // namespace hip
} // namespace mxc
