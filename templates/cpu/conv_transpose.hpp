// conv_transpose (math and parameters: templates/common/conv_transpose.hpp).
#pragma once
#include "templates/common/conv_transpose.hpp"
#include "templates/cpu/common.hpp"

namespace mxc {
namespace cpu {

template <class T> void conv_transpose(const mxc_kargs& k) {
    T* y = output<T>(k);
    for_each_output(k, [&](int64_t o) {
        y[o] = T(mxc_conv_transpose_at(input<T>(k, 0), k.in_desc[0], input<T>(k, 1), k.in_desc[1], *k.out_desc, k.ip, o));
    });
}

} // namespace cpu
} // namespace mxc
