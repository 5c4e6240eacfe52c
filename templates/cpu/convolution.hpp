// convolution: x [N, C, spatial...] * w [M, C/group, k...] -> packed y [N, M, out...], no bias.
// ip = [group, pad_begin[0..s), stride[0..s), dilation[0..s)], s = rank - 2. The per-element
// math is mxc_conv_at (templates/common/convolution.hpp), shared with the hip kernel.
#pragma once
#include "templates/common/convolution.hpp"
#include "templates/cpu/common.hpp"

namespace mxc {
namespace cpu {

template <class T> void convolution(const mxc_kargs& k) {
    const T* x = input<T>(k, 0);
    const T* w = input<T>(k, 1);
    T* y = output<T>(k);
    for_each_output(k, [&](int64_t o) { y[o] = T(mxc_conv_at(x, k.in_desc[0], w, k.in_desc[1], *k.out_desc, k.ip, o)); });
}

} // namespace cpu
} // namespace mxc
