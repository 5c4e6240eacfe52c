// class_select: x [N, C, d...], target [N, d...] -> y [N, d...]; ip = [ignore_index,
// has_ignore, target is int64] (math: templates/common/loss.hpp).
#pragma once
#include "templates/common/loss.hpp"
#include "templates/cpu/common.hpp"

namespace mxc {
namespace cpu {

template <class T> void class_select(const mxc_kargs& k) {
    T* y = output<T>(k);
    for_each_output(k, [&](int64_t o) {
        y[o] = mxc_class_select_at(input<T>(k, 0), k.in_desc[0], k.in[1], k.in_desc[1], *k.out_desc, k.ip, o);
    });
}

} // namespace cpu
} // namespace mxc
