// convolution_transpose (ONNX ConvTranspose without bias): one thread per output element
// (mxc_conv_transpose_at, templates/common/convolution_transpose.hpp).
// ip = [group, pad_begin[0..s), stride[0..s), dilation[0..s)].
#pragma once
#include "templates/common/convolution_transpose.hpp"
#include "templates/hip/common.hpp"

namespace mxc {
namespace hip {

template <class T> struct convolution_transpose_elem {
    __device__ void operator()(const dev_args& a, int64_t i) const {
        out_ptr<T>(a)[i] = T(mxc_conv_transpose_at(in_ptr<T>(a, 0), a.in_desc[0], in_ptr<T>(a, 1), a.in_desc[1],
                                                    a.out_desc, a.ip, i));
    }
};
template <class T> void convolution_transpose(const mxc_kargs& k, hipStream_t s) {
    launch_per_output(k, s, convolution_transpose_elem<T>{});
}

} // namespace hip
} // namespace mxc
