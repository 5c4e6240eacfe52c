// roi_align (math and parameters: templates/common/roi_align.hpp).
#pragma once
#include "templates/common/roi_align.hpp"
#include "templates/cpu/common.hpp"

namespace mxc {
namespace cpu {

template <class T> void roi_align(const mxc_kargs& k) {
    T* y = output<T>(k);
    for_each_output(k, [&](int64_t o) {
        y[o] = mxc_roi_align_at(input<T>(k, 0), k.in_desc[0], input<T>(k, 1), k.in_desc[1], k.in[2], k.in_desc[2],
                                *k.out_desc, k.ip, k.fp, o);
    });
}

} // namespace cpu
} // namespace mxc
