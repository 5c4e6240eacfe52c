// top_k hip kernel: one thread per output index (templates/common/topk.hpp).
#pragma once
#include "templates/common/topk.hpp"
#include "templates/hip/common.hpp"

namespace mxc {
namespace hip {

template <class T> struct top_k_elem {
    __device__ void operator()(const dev_args& a, int64_t i) const {
        out_ptr<int64_t>(a)[i] = mxc_topk_at(in_ptr<T>(a, 0), a.in_desc[0], a.out_desc, a.ip, i);
    }
};
template <class T> void top_k(const mxc_kargs& k, hipStream_t s) { launch_per_output(k, s, top_k_elem<T>{}); }

} // namespace hip
} // namespace mxc
