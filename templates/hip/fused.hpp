// Fused kernels on the GPU (see templates/cpu/fused.hpp for the ops and the body functors).
// fused_pointwise: one thread per output element. fused_convolution / fused_dot: the
// convolution / dot kernels (tiled GEMM, depthwise) with fused_store as the epilogue: the body
// is applied to (the accumulated value, the extra inputs at the element) before the store.
// At most max_inputs inputs (the fusion passes keep to it).
#pragma once
#include "templates/common/pointwise_program.hpp"
#include "templates/hip/common.hpp"
#include "templates/hip/convolution.hpp"
#include "templates/hip/dot.hpp"
#include "templates/hip/vector.hpp"

#include <type_traits>

namespace mxc {
namespace hip {

// The body of kernels compiled without a generated expression: the program in ip.
struct program_body {};

// The epilogue of a fused conv/dot: x[0] = the accumulated value, x[j] = extra input j+1 (input
// j + 1 of the kernel) at output element e. The extra inputs have the output's lens
// (broadcasts are stride-0 views) and may share the output's storage: each element is read
// before it is written. The interpreted body's program starts at a.ip + skip.
// The GEMM kernels call put once per register-tile element (unrolled): the interpreter of a
// program body is called, not inlined, so that it is not copied TM * TN times.
template <class T>
__device__ __attribute__((noinline)) void fused_program_put(const dev_args& a, int64_t skip, int64_t e,
                                                            mxc_compute_t<T> acc) {
    using C = mxc_compute_t<T>;
    C x[max_inputs];
    x[0] = acc;
    for (int j = 2; j < a.n_in; ++j) x[j - 1] = C(in_ptr<T>(a, j)[mxc_offset_of(a.in_desc[j], e)]);
    out_ptr<T>(a)[e] = T(mxc_pw_run(a.ip + skip, a.n_ip - skip, x));
}
template <class T, class F> struct fused_store {
    F f;
    dev_args a;
    int64_t skip;
    __device__ void put(int64_t e, mxc_compute_t<T> acc) const {
        using C = mxc_compute_t<T>;
        if constexpr (std::is_same<F, program_body>::value) {
            fused_program_put<T>(a, skip, e, acc);
        } else {
            C x[max_inputs];
            x[0] = acc;
            for (int j = 2; j < a.n_in; ++j) x[j - 1] = C(in_ptr<T>(a, j)[mxc_offset_of(a.in_desc[j], e)]);
            out_ptr<T>(a)[e] = T(f(x));
        }
    }
};

// fused_pointwise: x[j] = input j.
template <class T, class F> struct fused_elem {
    F f;
    __device__ void operator()(const dev_args& a, int64_t i) const {
        using C = mxc_compute_t<T>;
        C x[max_inputs];
        for (int j = 0; j < a.n_in; ++j) x[j] = C(in_ptr<T>(a, j)[mxc_offset_of(a.in_desc[j], i)]);
        if constexpr (std::is_same<F, program_body>::value) out_ptr<T>(a)[i] = T(mxc_pw_run(a.ip, a.n_ip, x));
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
    if (!launch_vectorised<T, max_inputs>(k, s, fused_expr_body<F>{f})) launch_per_output(k, s, fused_elem<T, F>{f});
}
template <class T, class Cfg = gemm_auto, mxc_conv_form Form = MXC_CONV_AUTO, class F>
void fused_convolution_expr(const mxc_kargs& k, hipStream_t s, F f) {
    convolution_epilogue<T, Cfg, Form>(k, s, fused_store<T, F>{f, pack(k), 0});
}
template <class T, class Cfg = gemm_auto, class F> void fused_dot_expr(const mxc_kargs& k, hipStream_t s, F f) {
    dot_epilogue<T, Cfg>(k, s, fused_store<T, F>{f, pack(k), 0});
}

template <class T> void fused_pointwise(const mxc_kargs& k, hipStream_t s) {
    if (!launch_vectorised<T, max_inputs>(k, s, fused_program_body{})) launch_per_output(k, s, fused_elem<T, program_body>{{}});
}
template <class T, class Cfg = gemm_auto, mxc_conv_form Form = MXC_CONV_AUTO>
void fused_convolution(const mxc_kargs& k, hipStream_t s) {
    convolution_epilogue<T, Cfg, Form>(k, s, fused_store<T, program_body>{{}, pack(k), 1 + 3 * (k.out_desc->rank - 2)});
}
template <class T, class Cfg = gemm_auto> void fused_dot(const mxc_kargs& k, hipStream_t s) {
    dot_epilogue<T, Cfg>(k, s, fused_store<T, program_body>{{}, pack(k), 0});
}

} // namespace hip
} // namespace mxc
