// Fused kernels (passes/fuse_pointwise.cpp, passes/fuse_epilogue.cpp). A body functor f maps
// the input values of one element, x[0..n), to the output value (generated code passes one
// expression per kernel; the reference evaluator passes mxc_pw_program over ip).
//   fused_pointwise:   inputs x0..xn, all with the output's lens; ip = [program]
//   fused_convolution: x, w, then extra inputs; body x0 = the convolution's value, xN = extra
//                      input N (N >= 1); ip = [convolution's ip (1 + 3s values), program]
//   fused_dot:         a, b, then extra inputs as above; ip = [program]
#pragma once
#include "templates/common/pointwise_program.hpp"
#include "templates/cpu/common.hpp"
#include "templates/cpu/convolution.hpp"
#include "templates/cpu/dot.hpp"

namespace mxc {
namespace cpu {

constexpr int fused_max_inputs = 16;

template <class T, class F> void fused_pointwise_expr(const mxc_kargs& k, F f) {
    using C = compute_t<T>;
    T* y = output<T>(k);
    const int n = k.n_in;
    bool packed = true;
    for (int i = 0; i < n; ++i) packed = packed && mxc_is_packed(k.in_desc[i]);
    const int64_t count = elements(*k.out_desc);
    C x[fused_max_inputs];
    for (int64_t e = 0; e < count; ++e) {
        for (int i = 0; i < n; ++i) x[i] = C(input<T>(k, i)[packed ? e : offset_of(k.in_desc[i], e)]);
        y[e] = T(f(x));
    }
}

template <class T> void fused_pointwise(const mxc_kargs& k) { fused_pointwise_expr<T>(k, mxc_pw_program{k.ip, k.n_ip}); }

// The epilogue of a conv/dot: x[0] = the accumulated value, x[j] = extra input j+1 at element e.
// The extra inputs have the output's lens (broadcasts are stride-0 views); their offsets are
// stepped from one element to the next (the kernels call it along runs of e), recomputed
// only after a jump. Stateful: each thread works on its own copy.
template <class T, class F> struct epilogue_of {
    const mxc_kargs& k;
    F f;
    int64_t next = -1;                         // the element the cursor is at
    int64_t idx[MXC_MAX_RANK] = {};            // its index in the output
    int64_t off[fused_max_inputs] = {};        // its offsets in the extra inputs
    compute_t<T> operator()(compute_t<T> acc, int64_t e) {
        const mxc_desc& od = *k.out_desc;
        const int last = od.rank - 1;
        if (e != next) {
            mxc_unravel(od, e, idx);
            for (int j = 2; j < k.n_in; ++j) {
                off[j] = 0;
                for (int d = 0; d <= last; ++d) off[j] += idx[d] * k.in_desc[j].strides[d];
            }
        }
        compute_t<T> x[fused_max_inputs];
        x[0] = acc;
        for (int j = 2; j < k.n_in; ++j) x[j - 1] = compute_t<T>(input<T>(k, j)[off[j]]);
        next = e + 1;
        if (last >= 0) {
            ++idx[last];
            for (int j = 2; j < k.n_in; ++j) off[j] += k.in_desc[j].strides[last];
            for (int d = last; d > 0 && idx[d] == od.lens[d]; --d) {
                idx[d] = 0;
                ++idx[d - 1];
                for (int j = 2; j < k.n_in; ++j) off[j] += k.in_desc[j].strides[d - 1] - od.lens[d] * k.in_desc[j].strides[d];
            }
        }
        return f(x);
    }
};

template <class T, class F> void fused_convolution_expr(const mxc_kargs& k, F f) {
    convolution_epilogue<T>(k, epilogue_of<T, F>{k, f});
}
template <class T> void fused_convolution(const mxc_kargs& k) {
    const int64_t skip = 1 + 3 * (k.out_desc->rank - 2);
    fused_convolution_expr<T>(k, mxc_pw_program{k.ip + skip, k.n_ip - skip});
}

template <class T, class F> void fused_dot_expr(const mxc_kargs& k, F f) { dot_epilogue<T>(k, epilogue_of<T, F>{k, f}); }
template <class T> void fused_dot(const mxc_kargs& k) { fused_dot_expr<T>(k, mxc_pw_program{k.ip, k.n_ip}); }

} // namespace cpu
} // namespace mxc
