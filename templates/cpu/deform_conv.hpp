// deform_conv (math and parameters: templates/common/deform_conv.hpp).
#pragma once
#include "templates/common/deform_conv.hpp"
#include "templates/cpu/common.hpp"

namespace mxc {
namespace cpu {

template <class T> void deform_conv(const mxc_kargs& k) {
    T* y = output<T>(k);
    const int mi = k.n_in > 3 ? 3 : 0; // no mask: never read (has_mask = 0)
    for_each_output(k, [&](int64_t o) {
        y[o] = mxc_deform_conv_at(input<T>(k, 0), k.in_desc[0], input<T>(k, 1), k.in_desc[1], input<T>(k, 2), k.in_desc[2],
                                  input<T>(k, mi), k.in_desc[mi], *k.out_desc, k.ip, o);
    });
}

} // namespace cpu
} // namespace mxc
