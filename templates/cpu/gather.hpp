// gather: data, indices -> packed y; ip = [axis, indices are int64 (1) or int32 (0)]
// (math: templates/common/gather.hpp).
#pragma once
#include "templates/common/gather.hpp"
#include "templates/cpu/common.hpp"

namespace mxc {
namespace cpu {

template <class T> void gather(const mxc_kargs& k) {
    T* y = output<T>(k);
    for_each_output(k, [&](int64_t o) {
        y[o] = mxc_gather_at(input<T>(k, 0), k.in_desc[0], k.in[1], k.in_desc[1], *k.out_desc, k.ip, o);
    });
}

} // namespace cpu
} // namespace mxc
