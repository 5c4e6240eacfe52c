// col2im: x [N, C * prod(block), L] -> packed y [N, C, image...] (math and parameters:
// templates/common/col2im.hpp).
#pragma once
#include "templates/common/col2im.hpp"
#include "templates/cpu/common.hpp"

namespace mxc {
namespace cpu {

template <class T> void col2im(const mxc_kargs& k) {
    T* y = output<T>(k);
    for_each_output(k, [&](int64_t o) { y[o] = mxc_col2im_at(input<T>(k, 0), k.in_desc[0], *k.out_desc, k.ip, o); });
}

} // namespace cpu
} // namespace mxc
