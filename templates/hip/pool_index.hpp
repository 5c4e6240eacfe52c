// max_pool_index hip kernel: one thread per output element (templates/common/pool_index.hpp).
#pragma once
#include "templates/common/pool_index.hpp"
#include "templates/hip/common.hpp"

namespace mxc {
namespace hip {

template <class T> struct max_pool_index_elem {
    __device__ void operator()(const dev_args& a, int64_t i) const {
        out_ptr<int64_t>(a)[i] = mxc_pool_index_at(in_ptr<T>(a, 0), a.in_desc[0], a.out_desc, a.ip, i);
    }
};
template <class T> void max_pool_index(const mxc_kargs& k, hipStream_t s) { launch_per_output(k, s, max_pool_index_elem<T>{}); }

} // namespace hip
} // namespace mxc
