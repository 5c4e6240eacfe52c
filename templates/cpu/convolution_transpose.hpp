// convolution_transpose (ONNX ConvTranspose without bias): one output element at a time with
// mxc_conv_transpose_at (templates/common/convolution_transpose.hpp), which the hip kernel uses.
// ip = [group, pad_begin[0..s), stride[0..s), dilation[0..s)].
#pragma once
#include "templates/common/convolution_transpose.hpp"
#include "templates/cpu/common.hpp"

namespace mxc {
namespace cpu {

template <class T> void convolution_transpose(const mxc_kargs& k) {
    const T* x = input<T>(k, 0);
    const T* w = input<T>(k, 1);
    T* y = output<T>(k);
    for_each_output(k, [&](int64_t e) {
        y[e] = T(mxc_conv_transpose_at(x, k.in_desc[0], w, k.in_desc[1], *k.out_desc, k.ip, e));
    });
}

} // namespace cpu
} // namespace mxc
