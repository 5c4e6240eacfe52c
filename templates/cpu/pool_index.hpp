// max_pool_index: x [N, C, spatial...] -> packed int64 [N, C, out...] (math and parameters:
// templates/common/pool_index.hpp).
#pragma once
#include "templates/common/pool_index.hpp"
#include "templates/cpu/common.hpp"

namespace mxc {
namespace cpu {

template <class T> void max_pool_index(const mxc_kargs& k) {
    int64_t* y = output<int64_t>(k);
    for_each_output(k, [&](int64_t o) { y[o] = mxc_pool_index_at(input<T>(k, 0), k.in_desc[0], *k.out_desc, k.ip, o); });
}

} // namespace cpu
} // namespace mxc
