// pad: x (optional constant value) -> packed y (math and parameters: templates/common/pad.hpp).
#pragma once
#include "templates/common/pad.hpp"
#include "templates/cpu/common.hpp"

namespace mxc {
namespace cpu {

template <class T> void pad(const mxc_kargs& k) {
    T* y = output<T>(k);
    const T* value = k.n_in > 1 ? input<T>(k, 1) : nullptr;
    for_each_output(k, [&](int64_t o) { y[o] = mxc_pad_at(input<T>(k, 0), k.in_desc[0], value, *k.out_desc, k.ip, o); });
}

} // namespace cpu
} // namespace mxc
