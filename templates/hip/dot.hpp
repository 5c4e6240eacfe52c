// dot: a [..., M, K] x b [..., K, N] -> packed [..., M, N]; one thread per output element
// (mxc_dot_at, templates/common/dot.hpp). No parameters.
#pragma once
#include "templates/common/dot.hpp"
#include "templates/hip/common.hpp"

namespace mxc {
namespace hip {

template <class T> struct dot_elem {
    __device__ void operator()(const dev_args& a, int64_t i) const {
        out_ptr<T>(a)[i] = T(mxc_dot_at(in_ptr<T>(a, 0), a.in_desc[0], in_ptr<T>(a, 1), a.in_desc[1], a.out_desc, i));
    }
};
template <class T> void dot(const mxc_kargs& k, hipStream_t s) { launch_per_output(k, s, dot_elem<T>{}); }

} // namespace hip
} // namespace mxc
