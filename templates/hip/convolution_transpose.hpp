// convolution_transpose (ONNX ConvTranspose without bias): x [N, C, in...] with w [C, M/group,
// k...] -> y [N, M, out...]; ip = [group, pad_begin[0..s), stride[0..s), dilation[0..s)].
// float, half, bfloat16, double with packed weights: the gather form as an implicit GEMM per
// group on the tiled engine (templates/hip/gemm.hpp, the sources of templates/hip/convolution.hpp):
// rows = the group's output channels, columns = N * out positions, K = C/group * kernel; B(kk,
// j) = the input element that output position j receives through weight element kk, zero where
// (o + pad - k * dilation) is not a non-negative multiple of the stride. Other types: one thread
// per output element (mxc_conv_transpose_at, templates/common/convolution_transpose.hpp).
#pragma once
#include "templates/common/convolution_transpose.hpp"
#include "templates/hip/common.hpp"
#include "templates/hip/convolution.hpp"
#include "templates/hip/gemm.hpp"

namespace mxc {
namespace hip {

template <class T, class E> struct convolution_transpose_elem {
    E epi;
    __device__ void operator()(const dev_args& a, int64_t i) const {
        epi.put(i, mxc_conv_transpose_at(in_ptr<T>(a, 0), a.in_desc[0], in_ptr<T>(a, 1), a.in_desc[1], a.out_desc, a.ip, i));
    }
};
// The transposed convolution with epilogue epi (plain_store, or a fused body:
// templates/hip/fused.hpp). Cfg: the GEMM configuration (gemm_run), as mxc names it; gemm_auto:
// the rule at run time.
template <class T, class Cfg, class E> void convolution_transpose_epilogue(const mxc_kargs& k, hipStream_t s, const E& epi) {
    const mxc_desc &xd = k.in_desc[0], &wd = k.in_desc[1], &od = *k.out_desc;
    if (mxc_elements(od) == 0) return;
    if constexpr (gemm_supported<T>) {
        if (mxc_is_packed(wd)) {
            conv_geom g = make_conv_geom(k);
            const int64_t group = k.ip[0];
            g.transposed = 1;
            g.cg = xd.lens[1] / group;
            g.mg = wd.lens[1];
            const T* x = static_cast<const T*>(k.in[0]);
            const T* w = static_cast<const T*>(k.in[1]);
            gemm_run<T, Cfg>(g.mg, od.lens[0] * g.plane, g.cg * g.kn, group, conv_tw_source<T, conv_index_any>{w, g.cg, wd.strides[0], wd.strides[1], g.kn, g.kn_d, g.small},
                        conv_im2col_source<T, conv_index_any>{x, g}, conv_out<E, conv_index_any>{epi, g.mg, g.mtot, g.plane, g.plane_d, g.small}, s);
            return;
        }
    }
    launch_per_output(k, s, convolution_transpose_elem<T, E>{epi});
}

template <class T, class Cfg = gemm_auto> void convolution_transpose(const mxc_kargs& k, hipStream_t s) {
    convolution_transpose_epilogue<T, Cfg>(k, s, plain_store<T>{static_cast<T*>(k.out)});
}

} // namespace hip
} // namespace mxc
