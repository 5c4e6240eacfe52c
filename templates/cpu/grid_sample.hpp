// grid_sample (math and parameters: templates/common/grid_sample.hpp).
#pragma once
#include "templates/common/grid_sample.hpp"
#include "templates/cpu/common.hpp"

namespace mxc {
namespace cpu {

template <class T> void grid_sample(const mxc_kargs& k) {
    T* y = output<T>(k);
    for_each_output(k, [&](int64_t o) {
        y[o] = mxc_grid_sample_at(input<T>(k, 0), k.in_desc[0], input<T>(k, 1), k.in_desc[1], *k.out_desc, k.ip, o);
    });
}

} // namespace cpu
} // namespace mxc
