// batch_norm_inference: x [N, C, ...], scale, bias, mean, var ([C] each) -> packed y;
// fp = [epsilon] (math: templates/common/batch_norm.hpp).
#pragma once
#include "templates/common/batch_norm.hpp"
#include "templates/cpu/common.hpp"

namespace mxc {
namespace cpu {

template <class T> void batch_norm_inference(const mxc_kargs& k) {
    T* y = output<T>(k);
    for_each_output(k, [&](int64_t o) { y[o] = T(mxc_batch_norm_at<T>(k.in, k.in_desc, *k.out_desc, k.fp[0], o)); });
}

} // namespace cpu
} // namespace mxc
