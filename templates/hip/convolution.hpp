// convolution: x [N, C, spatial...] * w [M, C/group, k...] -> packed y [N, M, out...], no bias.
// ip = [group, pad_begin[0..s), stride[0..s), dilation[0..s)], s = rank - 2. One thread per
// output element (mxc_conv_at, templates/common/convolution.hpp).
#pragma once
#include "templates/common/convolution.hpp"
#include "templates/hip/common.hpp"

namespace mxc {
namespace hip {

template <class T> struct convolution_elem {
    __device__ void operator()(const dev_args& a, int64_t i) const {
        out_ptr<T>(a)[i] =
            T(mxc_conv_at(in_ptr<T>(a, 0), a.in_desc[0], in_ptr<T>(a, 1), a.in_desc[1], a.out_desc, a.ip, i));
    }
};
template <class T> void convolution(const mxc_kargs& k, hipStream_t s) { launch_per_output(k, s, convolution_elem<T>{}); }

} // namespace hip
} // namespace mxc
