// top_k: x -> packed int64 indices of the k best elements along an axis, in rank order
// (math and parameters: templates/common/topk.hpp).
#pragma once
#include "templates/common/topk.hpp"
#include "templates/cpu/common.hpp"

namespace mxc {
namespace cpu {

template <class T> void top_k(const mxc_kargs& k) {
    int64_t* y = output<int64_t>(k);
    for_each_output(k, [&](int64_t o) { y[o] = mxc_topk_at(input<T>(k, 0), k.in_desc[0], *k.out_desc, k.ip, o); });
}

} // namespace cpu
} // namespace mxc
