// pooling: one thread per output element; ip as in templates/common/pooling.hpp.
#pragma once
#include "templates/common/pooling.hpp"
#include "templates/hip/common.hpp"

namespace mxc {
namespace hip {

template <class T> struct pooling_elem {
    __device__ void operator()(const dev_args& a, int64_t i) const {
        out_ptr<T>(a)[i] = T(mxc_pool_at(in_ptr<T>(a, 0), a.in_desc[0], a.out_desc, a.ip, i));
    }
};
template <class T> void pooling(const mxc_kargs& k, hipStream_t s) { launch_per_output(k, s, pooling_elem<T>{}); }

} // namespace hip
} // namespace mxc
