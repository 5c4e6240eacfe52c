// pooling: x [N, C, spatial...] -> packed y [N, C, out...], max or average.
// ip = [mode (0 max, 1 average), count_include_pad, pad_begin[s], pad_end[s], stride[s],
//       lengths[s], dilation[s]], s = rank - 2 (math: templates/common/pooling.hpp).
#pragma once
#include "templates/common/pooling.hpp"
#include "templates/cpu/common.hpp"

namespace mxc {
namespace cpu {

template <class T> void pooling(const mxc_kargs& k) {
    const T* x = input<T>(k, 0);
    T* y = output<T>(k);
    for_each_output(k, [&](int64_t o) { y[o] = T(mxc_pool_at(x, k.in_desc[0], *k.out_desc, k.ip, o)); });
}

} // namespace cpu
} // namespace mxc
