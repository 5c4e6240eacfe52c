// resize along one axis (math and parameters: templates/common/resize.hpp).
#pragma once
#include "templates/common/resize.hpp"
#include "templates/cpu/common.hpp"

namespace mxc {
namespace cpu {

template <class T> void resize(const mxc_kargs& k) {
    T* y = output<T>(k);
    for_each_output(k, [&](int64_t o) { y[o] = mxc_resize_at(input<T>(k, 0), k.in_desc[0], *k.out_desc, k.ip, k.fp, o); });
}

} // namespace cpu
} // namespace mxc
