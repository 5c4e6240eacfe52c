// det (math: templates/common/linalg.hpp).
#pragma once
#include "templates/common/linalg.hpp"
#include "templates/cpu/common.hpp"

namespace mxc {
namespace cpu {

template <class T> void det(const mxc_kargs& k) {
    T* y = output<T>(k);
    for_each_output(k, [&](int64_t o) { y[o] = mxc_det_at(input<T>(k, 0), k.in_desc[0], *k.out_desc, o); });
}

} // namespace cpu
} // namespace mxc
