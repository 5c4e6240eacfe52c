// Fused kernels on the GPU (see templates/cpu/fused.hpp for the ops and the body functors):
// one thread per output element; the conv/dot value comes from mxc_conv_at / mxc_dot_at and
// the body is applied before the store. At most max_inputs inputs (the fusion passes keep to it).
#pragma once
#include "templates/common/convolution.hpp"
#include "templates/common/dot.hpp"
#include "templates/common/pointwise_program.hpp"
#include "templates/hip/common.hpp"
#include "templates/hip/vector.hpp"

namespace mxc {
namespace hip {

// The body of kernels compiled without a generated expression: the program in ip.
struct program_body {};

// kind 0: pointwise (x[j] = input j); 1: convolution, 2: dot (x[0] = the product, x[j] = input j+1)
template <class T, int Kind, class F> struct fused_elem {
    F f;
    int64_t skip; // where the program starts in ip (interpreted bodies)
    __device__ void operator()(const dev_args& a, int64_t i) const {
        using C = mxc_compute_t<T>;
        C x[max_inputs];
        int first = 0;
        if constexpr (Kind == 1) {
            x[0] = mxc_conv_at(in_ptr<T>(a, 0), a.in_desc[0], in_ptr<T>(a, 1), a.in_desc[1], a.out_desc, a.ip, i);
            first = 1;
        } else if constexpr (Kind == 2) {
            x[0] = mxc_dot_at(in_ptr<T>(a, 0), a.in_desc[0], in_ptr<T>(a, 1), a.in_desc[1], a.out_desc, i);
            first = 1;
        }
        for (int j = first ? 2 : 0; j < a.n_in; ++j) x[j - first] = C(in_ptr<T>(a, j)[mxc_offset_of(a.in_desc[j], i)]);
        if constexpr (std::is_same<F, program_body>::value) out_ptr<T>(a)[i] = T(mxc_pw_run(a.ip + skip, a.n_ip - skip, x));
        else out_ptr<T>(a)[i] = T(f(x));
    }
};

// Bodies of the vectorised fused_pointwise path (templates/hip/vector.hpp): the generated
// expression, or the program in ip.
template <class F> struct fused_expr_body {
    F f;
    template <class C> __device__ C operator()(const dev_args&, const C* x) const { return f(x); }
};
struct fused_program_body {
    template <class C> __device__ C operator()(const dev_args& a, const C* x) const { return mxc_pw_run(a.ip, a.n_ip, x); }
};

template <class T, class F> void fused_pointwise_expr(const mxc_kargs& k, hipStream_t s, F f) {
    if (!launch_vectorised<T, max_inputs>(k, s, fused_expr_body<F>{f})) launch_per_output(k, s, fused_elem<T, 0, F>{f, 0});
}
template <class T, class F> void fused_convolution_expr(const mxc_kargs& k, hipStream_t s, F f) {
    launch_per_output(k, s, fused_elem<T, 1, F>{f, 0});
}
template <class T, class F> void fused_dot_expr(const mxc_kargs& k, hipStream_t s, F f) {
    launch_per_output(k, s, fused_elem<T, 2, F>{f, 0});
}

template <class T> void fused_pointwise(const mxc_kargs& k, hipStream_t s) {
    if (!launch_vectorised<T, max_inputs>(k, s, fused_program_body{})) launch_per_output(k, s, fused_elem<T, 0, program_body>{{}, 0});
}
template <class T> void fused_convolution(const mxc_kargs& k, hipStream_t s) {
    launch_per_output(k, s, fused_elem<T, 1, program_body>{{}, 1 + 3 * (k.out_desc->rank - 2)});
}
template <class T> void fused_dot(const mxc_kargs& k, hipStream_t s) {
    launch_per_output(k, s, fused_elem<T, 2, program_body>{{}, 0});
}

} // namespace hip
} // namespace mxc
